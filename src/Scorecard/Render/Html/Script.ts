/**
 * The HTML report's one script. It reads the page's JSON data and builds the document from it with
 * `createElement` and text nodes only: no markup is ever parsed from data, no attribute that loads,
 * navigates or runs is set from it, and the only links are the page's own `#case=ID` anchors. Case
 * rows are drawn a chunk at a time as the reader scrolls, and a case's detail only when it is opened,
 * so a results file of 10,000 cases opens at once. The page's policy allows this script by its hash.
 *
 * Written as plain browser JavaScript in a string, so that it ships inside the bundle; it must hold no
 * backtick, no template placeholder and no closing script tag.
 */

/** The page's data, and the only ways it makes elements, links and text. */
const dom = String.raw`
const data = JSON.parse(document.getElementById("report-data").textContent);
const root = document.getElementById("report");
const run = data.run;
const cases = data.cases;
const firstRows = 100;
const chunk = 200;

// Attributes the page never sets from its own code either: whatever loads, navigates or runs.
const forbidden = /^(on|href$|src$|srcdoc$|style$|action$|formaction$|xlink:href$)/i;

const append = (node, children) => {
  for (const child of children) {
    if (child === undefined || child === null || child === false) continue;
    if (Array.isArray(child)) append(node, child);
    else node.append(typeof child === "object" ? child : String(child));
  }
  return node;
};

const attributes = (node, props) => {
  for (const name of Object.keys(props || {})) {
    const value = props[name];
    if (value === undefined || value === null || value === false) continue;
    if (forbidden.test(name)) throw new Error("the report sets no " + name + " attribute");
    if (name === "class") node.setAttribute("class", value);
    else node.setAttribute(name, value === true ? "" : String(value));
  }
  return node;
};

const el = (tag, props, ...children) => append(attributes(document.createElement(tag), props), children);

const svgNs = "http://www.w3.org/2000/svg";
const svg = (tag, props, ...children) => append(attributes(document.createElementNS(svgNs, tag), props), children);

// The one kind of link the page has: to one of its own cases.
const caseLink = (id, label) => {
  const a = el("a", { class: "permalink", "aria-label": label }, "link");
  a.href = "#case=" + encodeURIComponent(id);
  return a;
};

const number = (n) => Number(n).toLocaleString("en");
const rate = (x) => (Math.floor(x * 10000 + 1e-9) / 10000).toFixed(4);
const runDuration = (ms) => {
  if (ms < 1000) return "under 1 s";
  if (ms < 60000) return (ms / 1000).toFixed(1) + " s";
  const s = Math.round(ms / 1000);
  return Math.floor(s / 60) + " min " + String(s % 60).padStart(2, "0") + " s";
};
const stepDuration = (ms) => (ms < 1000 ? Math.round(ms) + " ms" : (ms / 1000).toFixed(1) + " s");
const plural = (n, one, many) => number(n) + " " + (n === 1 ? one : many);

// Text where backticks mark code, as the run's own messages write it.
const withCode = (text) => String(text).split("\u0060").map((part, i) => (i % 2 === 1 ? el("code", null, part) : part));

const heading = (level, props, ...children) => el("h" + Math.min(level, 6), props, ...children);

const verdicts = {
  failed: { mark: "\u2717", word: "failed", filter: "Failing" },
  errored: { mark: "!", word: "errored", filter: "Errored" },
  flaky: { mark: "~", word: "flaky", filter: "Flaky" },
  passed: { mark: "\u2713", word: "passed", filter: "Passing" }
};
`

/** The verdict: holds or below, the pass rate against the floor, the counts and the run's shape. */
const verdict = String.raw`
const stat = (term, ...value) => el("div", null, el("dt", null, term), el("dd", null, ...value));

const gauge = () => {
  const label = "pass rate " + run.passRateShown + (run.floor === null ? ", no floor" : " against the floor " + run.floorShown);
  const box = el("div", { class: "gauge", role: "img", "aria-label": label });
  const fill = el("div", { class: "fill" });
  fill.style.width = (run.passRate * 100).toFixed(2) + "%";
  box.append(fill);
  if (run.floor !== null) {
    const tick = el("div", { class: "tick" });
    tick.style.left = (run.floor * 100).toFixed(2) + "%";
    box.append(tick);
  }
  return box;
};

const verdictSection = () => {
  const words = { holds: "\u2713 Holds the floor", below: "\u2717 Below the floor", none: "No floor" };
  const shortSet = run.caseSet.replace(/^sha256:/, "").slice(0, 12);
  const notes = [];
  if (run.bailed) notes.push(el("p", { class: "note" }, "The run stopped early (--bail): its results are partial."));
  if (run.version < 2) {
    notes.push(el("p", { class: "note" },
      "This results file (version " + run.version + ") was written before turns were kept: each case shows its verdict and facts, not its question, answer or trace."));
  }
  if (data.compare) {
    const c = data.compare;
    notes.push(el("p", { class: "note" },
      "Compared with ", el("code", null, c.against), ": pass rate ", c.passRateShown, " \u2192 ", run.passRateShown,
      " (" + number(c.passed) + "/" + number(c.total) + " then); ",
      plural(c.regressions, "regression", "regressions"), ", ", plural(c.fixes, "fix", "fixes"),
      c.sameSet ? "." : "; the runs covered different case sets."));
  }
  return el("header", { class: "verdict " + run.verdict, "aria-labelledby": "report-title" },
    el("h1", { id: "report-title" }, "turn-eval report"),
    el("p", { class: "headline" }, words[run.verdict]),
    el("p", null,
      "Pass rate ", el("strong", null, run.passRateShown),
      " (" + number(run.passedCount) + "/" + number(run.total) + ") \u00b7 ",
      run.floor === null ? withCode(run.noFloor) : ["floor ", el("strong", null, run.floorShown)]),
    gauge(),
    el("dl", { class: "stats" },
      stat("Passed", number(run.counts.passed)),
      stat("Failed", number(run.counts.failed)),
      stat("Errored", number(run.counts.errored)),
      stat("Flaky", number(run.counts.flaky)),
      stat("Duration", run.durationMs === undefined ? "not recorded" : runDuration(run.durationMs)),
      stat("Case set", el("code", { title: run.caseSet }, shortSet)),
      stat("Shard", run.shard ? run.shard.index + " of " + run.shard.count : "the whole set"),
      stat("Repeat", run.repeat > 1 ? run.repeat + "\u00d7 (pass^" + run.repeat + ")" : "1\u00d7")),
    notes);
};
`

/** The floor's history as a step chart, with this run's pass rate and, with a comparison, the previous run's. */
const trend = String.raw`
const trendSection = () => {
  const history = data.history || [];
  if (history.length === 0 && !data.compare) return null;
  const points = history.map((h) => ({ label: h.date, floor: h.to }));
  const slots = points.length + (data.compare ? 1 : 0) + 1;
  const floorNow = run.floor !== null ? run.floor : points.length > 0 ? points[points.length - 1].floor : null;
  const values = points.map((p) => p.floor).concat([run.passRate]);
  if (data.compare) values.push(data.compare.passRate);
  if (floorNow !== null) values.push(floorNow);
  const lo = Math.max(0, Math.floor((Math.min(...values) - 0.05) * 20) / 20);
  const hi = 1;
  const width = 720, height = 220, left = 52, right = 20, top = 14, bottom = 44;
  const x = (i) => left + (slots === 1 ? (width - left - right) / 2 : (i * (width - left - right)) / (slots - 1));
  const y = (v) => top + ((hi - v) * (height - top - bottom)) / (hi - lo || 1);
  const title = "The floor" + (history.length > 0
    ? " rose from " + rate(history[0].from === null ? history[0].to : history[0].from) + " to " + rate(history[history.length - 1].to) +
      " over " + plural(history.length, "move", "moves")
    : " is " + (floorNow === null ? "not set" : rate(floorNow))) +
    (data.compare ? "; the previous run's pass rate was " + data.compare.passRateShown : "") +
    "; this run's is " + run.passRateShown + ".";
  const chart = svg("svg", { viewBox: "0 0 " + width + " " + height, role: "img", "aria-labelledby": "trend-title" },
    svg("title", { id: "trend-title" }, title));
  for (const v of [lo, (lo + hi) / 2, hi]) {
    chart.append(svg("line", { class: "axis", x1: left, x2: width - right, y1: y(v), y2: y(v) }));
    chart.append(svg("text", { x: left - 8, y: y(v) + 4, "text-anchor": "end" }, v.toFixed(2)));
  }
  if (floorNow !== null || points.length > 0) {
    // A step line: level at each move's new floor until the next move, then on to this run.
    const start = points.length > 0 ? points[0].floor : floorNow;
    let d = "M" + x(0) + " " + y(start);
    points.forEach((p, i) => { if (i > 0) d += " H" + x(i) + " V" + y(p.floor); });
    d += " H" + x(slots - 1);
    if (floorNow !== null) d += " V" + y(floorNow);
    chart.append(svg("path", { class: "floor-line", d: d }));
  }
  const every = Math.max(1, Math.ceil(points.length / 6));
  points.forEach((p, i) => {
    chart.append(svg("circle", { class: "step", cx: x(i), cy: y(p.floor), r: 4 }));
    if (i % every === 0 || i === points.length - 1) {
      chart.append(svg("text", { x: x(i), y: height - bottom + 18, "text-anchor": "middle" }, p.label.slice(0, 10)));
    }
  });
  if (data.compare) {
    const i = slots - 2;
    chart.append(svg("circle", { class: "then", cx: x(i), cy: y(data.compare.passRate), r: 6 }));
    chart.append(svg("text", { x: x(i), y: height - bottom + 18, "text-anchor": "middle" }, "previous run"));
  }
  const nowClass = run.verdict === "below" ? "now below" : "now";
  chart.append(svg("circle", { class: nowClass, cx: x(slots - 1), cy: y(run.passRate), r: 7 }));
  chart.append(svg("text", { x: x(slots - 1), y: height - bottom + 34, "text-anchor": "end" }, "this run " + run.passRateShown));
  const legend = el("ul", { class: "legend" },
    el("li", null, el("span", { class: "swatch floor", "aria-hidden": "true" }), "the floor"),
    data.compare ? el("li", null, el("span", { class: "swatch then", "aria-hidden": "true" }), "previous run: " + data.compare.passRateShown) : null,
    el("li", null, el("span", { class: "swatch " + nowClass, "aria-hidden": "true" }), "this run: " + run.passRateShown));
  const table = history.length === 0 ? null : el("details", null,
    el("summary", null, "The floor's moves as a table"),
    el("table", null,
      el("thead", null, el("tr", null, el("th", { scope: "col" }, "date"), el("th", { scope: "col" }, "floor"), el("th", { scope: "col" }, "set by"))),
      el("tbody", null, history.map((h) => el("tr", null,
        el("td", null, h.date),
        el("td", null, (h.from === null ? "set to " : rate(h.from) + " \u2192 ") + rate(h.to)),
        el("td", null, number(h.passed) + "/" + number(h.total) + " passed"))))));
  return el("section", { class: "trend", "aria-labelledby": "trend-heading" },
    el("h2", { id: "trend-heading" }, history.length > 0 ? "The floor over time" : "Against the previous run"),
    chart, legend, table);
};
`

/** A bar per surface of its passing and failing cases. */
const surfaces = String.raw`
const surfacesSection = () => el("section", { "aria-labelledby": "surfaces-heading" },
  el("h2", { id: "surfaces-heading" }, "By surface"),
  el("ul", { class: "surfaces" }, data.surfaces.map((s) => {
    const summary = number(s.passing) + " passing \u00b7 " + number(s.failing) + " failing";
    const bar = el("div", { class: "bar", role: "img", "aria-label": s.name + ": " + summary });
    for (const part of ["passing", "failing"]) {
      const span = el("span", { class: part });
      span.style.flexGrow = String(s[part]);
      bar.append(span);
    }
    return el("li", null, el("code", null, s.name), bar, el("span", null, summary));
  })));
`

/** A case's row: its verdict, id, surface, what it guards, its tags, each expectation with its fact, and a comparison's mark. */
const rows = String.raw`
const expectationItem = (e) => el("li", { class: e.passed ? "held" : "broke" },
  el("span", { class: "mark", "aria-hidden": "true" }, e.passed ? "\u2713" : "\u2717"),
  el("span", { class: "sr-only" }, e.passed ? "held: " : "failed: "),
  el("code", { class: "kind" }, e.kind),
  e.fact === undefined ? null : el("span", { class: "fact" }, e.fact));

const expectationList = (outcome) => {
  const items = outcome.expectations.map(expectationItem);
  if (outcome.error !== undefined) items.unshift(expectationItem({ kind: "turn error", passed: false, fact: outcome.error }));
  return items.length === 0 ? null : el("ul", { class: "expectations", "aria-label": "expectations" }, items);
};

const changeNote = (c) => {
  if (!c.change) return null;
  const against = data.compare ? data.compare.against : "the earlier run";
  if (c.change.kind === "regression") {
    return el("p", { class: "change" }, el("span", { class: "badge regression" }, "regressed"),
      " since ", el("code", null, against), ": it passed there.");
  }
  return el("div", { class: "change" },
    el("span", { class: "badge fix" }, "fixed"), " since ", el("code", null, against), "; there it failed:",
    el("ul", { class: "expectations", "aria-label": "the earlier run's facts" },
      c.change.then.facts.map((f) => expectationItem({ kind: f.kind, passed: false, fact: f.fact }))));
};

const rows = new Map();
const details = new Map();

const row = (index) => {
  const known = rows.get(index);
  if (known) return known;
  const c = cases[index];
  const v = verdicts[c.verdict];
  const detailId = "detail-" + index;
  const toggle = el("button", { class: "toggle", type: "button", "aria-expanded": "false", "aria-controls": detailId },
    el("span", { class: "chevron", "aria-hidden": "true" }), el("span", { class: "id" }, c.id));
  toggle.addEventListener("click", () => setOpen(index, toggle.getAttribute("aria-expanded") !== "true"));
  const item = el("li", { class: "case " + c.verdict, id: "case-" + index },
    el("div", { class: "case-head" },
      el("span", { class: "badge " + c.verdict }, v.mark + " " + v.word),
      el("h3", null, toggle),
      el("span", { class: "badge surface" }, el("span", { class: "sr-only" }, "surface: "), c.surface),
      c.change ? el("span", { class: "badge " + c.change.kind }, c.change.kind === "regression" ? "regressed" : "fixed") : null,
      caseLink(c.id, "Link to case " + c.id)),
    c.guards === undefined ? null : el("p", { class: "guards" }, "Guards: " + c.guards),
    c.tags.length === 0 ? null : el("ul", { class: "tags", "aria-label": "tags" }, c.tags.map((t) => el("li", { class: "badge tag" }, t))),
    c.attempts ? el("p", { class: "guards" }, number(c.passedAttempts) + " of " + number(c.attempts.length) + " attempts passed" +
      (c.verdict === "passed" ? "" : "; the facts of the first failing one:")) : null,
    expectationList(c),
    changeNote(c),
    el("div", { class: "detail", id: detailId, hidden: true }));
  rows.set(index, item);
  return item;
};
`

/** A case opened: the question, the answer, the trace as a timeline, the citations, the proposal, the attempts. */
const detail = String.raw`
const folded = (label, text) => el("details", null, el("summary", null, label), el("pre", null, text));

const usageText = (u) => u === undefined
  ? "not recorded"
  : number(u.inputTokens) + " in \u00b7 " + number(u.outputTokens) + " out \u00b7 " + number(u.inputTokens + u.outputTokens) + " total";

const timeline = (t, level) => {
  const parts = [heading(level, null, "Tool executions (" + number(t.executions.length + ((t.omitted && t.omitted.toolExecutions) || 0)) + ")")];
  if (t.executions.length === 0) parts.push(el("p", { class: "muted" }, "No tool ran."));
  else {
    parts.push(el("ol", { class: "timeline" }, t.executions.map((e, i) => el("li", { class: e.error === undefined ? "ran" : "errored" },
      el("div", { class: "step-head" },
        el("span", { class: "muted" }, (i + 1) + "."),
        el("code", null, e.tool),
        e.durationMs === undefined ? null : el("span", { class: "muted" }, stepDuration(e.durationMs)),
        e.error === undefined
          ? el("span", { class: "badge ok" }, "ok")
          : el("span", { class: "error" }, "\u2717 errored: ", e.error)),
      e.input === undefined ? null : folded("input", e.input),
      e.output === undefined ? null : folded("output", e.output)))));
  }
  if (t.omitted && t.omitted.toolExecutions) {
    parts.push(el("p", { class: "muted" }, "\u2026 and " + plural(t.omitted.toolExecutions, "more execution", "more executions") + ", not kept."));
  }
  return parts;
};

const evidence = (t, level) => {
  const parts = [heading(level, null, "Citations")];
  if (t.citations.length === 0) parts.push(el("p", { class: "muted" }, "No citations."));
  else {
    parts.push(el("div", { class: "evidence" },
      el("ul", { "aria-label": "citations" }, t.citations.map((c) => el("li", null,
        el("span", { class: "badge " + (c.match === "unsurfaced" ? "unsurfaced" : c.match === "quote" ? "quote" : "path") }, c.match),
        " ", el("code", null, c.path),
        c.quote === undefined ? null : [" \u201c", c.quote, "\u201d"]))),
      el("div", null,
        el("p", { class: "muted" }, "Surfaced items"),
        t.surfaced.length === 0
          ? el("p", { class: "muted" }, t.surfacedAll ? "none: its tools surfaced nothing" : "none: no citation matched a surfaced item")
          : el("ul", { "aria-label": "surfaced items" }, t.surfaced.map((p) => el("li", null, el("code", null, p)))))));
  }
  if (t.omitted && t.omitted.citations) {
    parts.push(el("p", { class: "muted" }, "\u2026 and " + plural(t.omitted.citations, "more citation", "more citations") + ", not kept."));
  }
  return parts;
};

const proposal = (t, level) => [
  heading(level, null, "Proposal"),
  t.proposal === undefined
    ? el("p", { class: "muted" }, "None.")
    : el("ul", { class: "facts-line" },
      el("li", null, "id ", el("code", null, t.proposal.id)),
      t.proposal.status === undefined ? null : el("li", null, "status ", el("code", null, t.proposal.status)),
      t.proposal.summary === undefined ? null : el("li", null, t.proposal.summary)),
  t.proposal === undefined || t.proposal.actions === undefined ? null : folded("actions", t.proposal.actions)
];

const turnView = (t, level) => [
  heading(level, null, "Answer"),
  el("div", { class: "answer" }, t.answer),
  heading(level, null, "Trace"),
  el("ul", { class: "facts-line" },
    el("li", null, "outcome ", el("code", null, t.outcome)),
    el("li", null, "turn ", el("code", null, t.turnId)),
    el("li", null, "tokens " + usageText(t.usage))),
  timeline(t, level + 1),
  evidence(t, level + 1),
  proposal(t, level + 1)
];

const notKept = (outcome) => el("p", { class: "muted" }, run.version < 2
  ? "The turn was not kept: this results file was written before turns were (version " + run.version + ")."
  : outcome.error !== undefined ? "No turn was obtained: " + outcome.error : "The turn was not kept.");

const attemptView = (a, i) => el("div", { class: "attempt" },
  heading(5, null, "Attempt " + (i + 1) + ": " + (a.passed ? "passed" : "failed")),
  el("ul", { class: "facts-line" },
    a.turnId === undefined ? null : el("li", null, "turn ", el("code", null, a.turnId)),
    a.durationMs === undefined ? null : el("li", null, "took " + stepDuration(a.durationMs))),
  expectationList(a),
  a.steps ? el("div", { class: "attempts" }, a.steps.map(stepView)) : a.turn === undefined ? notKept(a) : turnView(a.turn, 6));

const stepView = (s) => el("div", { class: "attempt" },
  heading(5, null, s.name[0].toUpperCase() + s.name.slice(1)),
  s.message === undefined ? null : el("p", null, s.message),
  el("ul", { class: "facts-line" },
    s.turnId === undefined ? null : el("li", null, "turn ", el("code", null, s.turnId)),
    s.durationMs === undefined ? null : el("li", null, "took " + stepDuration(s.durationMs))),
  expectationList(s),
  s.skipped !== undefined
    ? el("p", { class: "muted" }, "Skipped: " + s.skipped + ".")
    : s.turn === undefined ? notKept(s) : turnView(s.turn, 6));

const conversationView = (outcome) => [heading(4, null, "Conversation"),
  el("div", { class: "attempts" }, outcome.steps.map(stepView))];

const detail = (index) => {
  const c = cases[index];
  // A conversation's questions are its steps'.
  return [
    c.steps ? null : heading(4, null, "Question"),
    c.steps ? null : c.question === undefined
      ? el("p", { class: "muted" }, "The question was not kept" + (run.version < 2 ? " (results version " + run.version + ")." : "."))
      : el("p", null, c.question),
    el("ul", { class: "facts-line" },
      c.durationMs === undefined ? null : el("li", null, "took " + stepDuration(c.durationMs)),
      c.turnId === undefined || c.turn !== undefined || c.attempts ? null : el("li", null, "turn ", el("code", null, c.turnId))),
    c.attempts
      ? [heading(4, null, "Attempts"), el("div", { class: "attempts" }, c.attempts.map(attemptView))]
      : c.steps ? conversationView(c) : c.turn === undefined ? notKept(c) : turnView(c.turn, 4)
  ];
};

const setOpen = (index, open) => {
  const item = row(index);
  const toggle = item.querySelector(".toggle");
  const box = item.querySelector(".detail");
  if (open && !details.has(index)) {
    append(box, detail(index));
    details.set(index, true);
  }
  box.hidden = !open;
  toggle.setAttribute("aria-expanded", open ? "true" : "false");
};
`

/** The filters, and the list drawn a chunk at a time. */
const list = String.raw`
const state = { verdicts: { failed: true, errored: true, flaky: true, passed: true }, surface: "", tag: "", text: "" };
const haystacks = new Map();
const haystack = (index) => {
  let hay = haystacks.get(index);
  if (hay === undefined) {
    const c = cases[index];
    hay = [c.id, c.surface, c.guards || "", c.question || "", c.error || "", c.tags.join(" "),
      (c.steps || []).map((s) => s.message || "").join(" "),
      c.expectations.map((e) => e.kind + " " + (e.fact || "")).join(" ")].join("\n").toLowerCase();
    haystacks.set(index, hay);
  }
  return hay;
};
const matches = (index) => {
  const c = cases[index];
  if (!state.verdicts[c.verdict]) return false;
  if (state.surface !== "" && c.surface !== state.surface) return false;
  if (state.tag !== "" && !c.tags.includes(state.tag)) return false;
  return state.text === "" || haystack(index).includes(state.text);
};

const list = el("ol", { class: "cases", "aria-label": "cases" });
const showing = el("p", { class: "showing", role: "status", "aria-live": "polite" });
const more = el("button", { class: "more", type: "button" });
let order = [];
let drawn = 0;

const updateMore = () => {
  const left = order.length - drawn;
  more.hidden = left <= 0;
  more.textContent = "Show " + number(Math.min(chunk, left)) + " more (" + number(left) + " not shown)";
};

const drawUpTo = (count) => {
  const end = Math.min(order.length, count);
  if (end <= drawn) return;
  const batch = document.createDocumentFragment();
  for (let i = drawn; i < end; i++) batch.append(row(order[i]));
  list.append(batch);
  drawn = end;
  updateMore();
};

const apply = () => {
  order = [];
  for (let i = 0; i < cases.length; i++) if (matches(i)) order.push(i);
  list.replaceChildren();
  drawn = 0;
  drawUpTo(firstRows);
  updateMore();
  showing.textContent = "Showing " + number(order.length) + " of " + plural(cases.length, "case", "cases");
};

const checkboxes = {};
const surfaceSelect = el("select", { id: "filter-surface" },
  el("option", { value: "" }, "All surfaces"), data.surfaces.map((s) => el("option", { value: s.name }, s.name)));
const tagSelect = el("select", { id: "filter-tag" },
  el("option", { value: "" }, "All tags"), data.tags.map((t) => el("option", { value: t }, t)));
const search = el("input", { id: "filter-text", type: "search", autocomplete: "off", placeholder: "id, question, fact\u2026" });

const filters = () => {
  const verdictBoxes = Object.keys(verdicts).map((v) => {
    const box = el("input", { type: "checkbox", id: "filter-" + v, checked: true });
    box.addEventListener("change", () => { state.verdicts[v] = box.checked; apply(); });
    checkboxes[v] = box;
    return el("label", { for: "filter-" + v }, box, verdicts[v].filter + " (" + number(run.counts[v]) + ")");
  });
  surfaceSelect.addEventListener("change", () => { state.surface = surfaceSelect.value; apply(); });
  tagSelect.addEventListener("change", () => { state.tag = tagSelect.value; apply(); });
  let pending = 0;
  search.addEventListener("input", () => {
    cancelAnimationFrame(pending);
    pending = requestAnimationFrame(() => { state.text = search.value.trim().toLowerCase(); apply(); });
  });
  search.addEventListener("keydown", (event) => {
    if (event.key === "Escape" && search.value !== "") {
      search.value = "";
      state.text = "";
      apply();
    }
  });
  return el("div", { class: "filters", role: "search", "aria-label": "Filter the cases" },
    el("fieldset", null, el("legend", null, "Show"), verdictBoxes),
    el("div", { class: "field" }, el("label", { for: "filter-surface" }, "Surface"), surfaceSelect),
    el("div", { class: "field" }, el("label", { for: "filter-tag" }, "Tag"), tagSelect),
    el("div", { class: "field" }, el("label", { for: "filter-text" }, "Find"), search));
};

const resetFilters = () => {
  for (const v of Object.keys(verdicts)) { state.verdicts[v] = true; checkboxes[v].checked = true; }
  state.surface = ""; surfaceSelect.value = "";
  state.tag = ""; tagSelect.value = "";
  state.text = ""; search.value = "";
  apply();
};
`

/** A link to a case (`#case=ID`) opens it, scrolled to and focused, whatever the filters hid. */
const links = String.raw`
const openFromHash = () => {
  const found = /^#case=(.*)$/s.exec(location.hash);
  if (found === null) return;
  let id;
  try { id = decodeURIComponent(found[1]); } catch { id = found[1]; }
  const index = cases.findIndex((c) => c.id === id);
  if (index === -1) {
    showing.textContent = "No case " + id + " in this report.";
    return;
  }
  if (!matches(index)) resetFilters();
  drawUpTo(order.indexOf(index) + 1);
  setOpen(index, true);
  const item = row(index);
  item.scrollIntoView({ block: "start" });
  item.querySelector(".toggle").focus({ preventScroll: true });
};
`

/** The page put together, and its keyboard, scrolling and printing wired up. */
const start = String.raw`
root.append(
  verdictSection(),
  trendSection() || "",
  surfacesSection(),
  el("section", { "aria-labelledby": "cases-heading" },
    el("h2", { id: "cases-heading" }, "Cases, failing first"),
    filters(), showing, list, more));
more.addEventListener("click", () => drawUpTo(drawn + chunk));
if ("IntersectionObserver" in window) {
  // Watched anew after each chunk, so a button still in view after one draws the next.
  const watcher = new IntersectionObserver((entries) => {
    if (!entries.some((e) => e.isIntersecting) || more.hidden) return;
    drawUpTo(drawn + chunk);
    watcher.unobserve(more);
    watcher.observe(more);
  }, { rootMargin: "600px" });
  watcher.observe(more);
}
document.addEventListener("keydown", (event) => {
  const target = event.target;
  if (event.key === "/" && !(target instanceof HTMLInputElement || target instanceof HTMLSelectElement || target instanceof HTMLTextAreaElement)) {
    event.preventDefault();
    search.focus();
  }
});
window.addEventListener("beforeprint", () => drawUpTo(order.length));
window.addEventListener("hashchange", openFromHash);
apply();
openFromHash();
root.setAttribute("aria-busy", "false");
document.documentElement.setAttribute("data-ready", "true");
`

/**
 * The script of the HTML report: its parts in order, in a block of their own so that none of its names
 * reaches the page's global scope.
 */
export const pageScript = [
  "\"use strict\";",
  "{",
  dom,
  verdict,
  trend,
  surfaces,
  rows,
  detail,
  list,
  links,
  start,
  "}",
  ""
].join("\n")
