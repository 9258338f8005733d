/**
 * The HTML report's one stylesheet: system fonts only, light and dark by the reader's setting, long
 * unbroken text wrapped wherever it must so no value widens the page, and a print layout without the
 * controls. The page's policy allows it by its hash.
 */

/** The stylesheet of the HTML report. */
export const pageStyle = String.raw`
:root {
  color-scheme: light dark;
  --bg: #ffffff;
  --fg: #1b1f24;
  --muted: #57606a;
  --line: #d0d7de;
  --panel: #f6f8fa;
  --accent: #0b57d0;
  --pass: #116329;
  --pass-bg: #dafbe1;
  --pass-bar: #2da44e;
  --fail: #a40e26;
  --fail-bg: #ffebe9;
  --fail-bar: #cf222e;
  --flaky: #7d4e00;
  --flaky-bg: #fff8c5;
  --error: #6639ba;
  --error-bg: #fbefff;
  --mono: ui-monospace, "DejaVu Sans Mono", "Liberation Mono", Menlo, Consolas, monospace;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117;
    --fg: #e6edf3;
    --muted: #9da7b3;
    --line: #30363d;
    --panel: #161b22;
    --accent: #79b8ff;
    --pass: #7ee2a8;
    --pass-bg: #0f2d1b;
    --pass-bar: #3fb950;
    --fail: #ffa198;
    --fail-bg: #3d1117;
    --fail-bar: #f85149;
    --flaky: #f2cc60;
    --flaky-bg: #332600;
    --error: #d2a8ff;
    --error-bg: #271a3d;
  }
}
* { box-sizing: border-box; }
html { background: var(--bg); color: var(--fg); }
body {
  margin: 0;
  font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "DejaVu Sans", "Liberation Sans", sans-serif;
}
main { max-width: 1200px; margin: 0 auto; padding: 20px 24px 48px; }
main, section, li, div, p, dd, td, th, pre, code, h1, h2, h3, h4, summary, span {
  overflow-wrap: anywhere;
  min-width: 0;
}
h1 { font-size: 1.35rem; margin: 0 0 4px; }
h2 { font-size: 1.1rem; margin: 28px 0 10px; }
h3 { font-size: 1rem; margin: 0; }
h4 { font-size: 0.9rem; margin: 16px 0 6px; color: var(--muted); text-transform: uppercase; letter-spacing: 0.04em; }
code, pre, .mono { font-family: var(--mono); font-size: 0.86em; }
pre {
  white-space: pre-wrap;
  margin: 4px 0;
  padding: 8px 10px;
  background: var(--panel);
  border: 1px solid var(--line);
  border-radius: 6px;
  max-height: 24em;
  overflow: auto;
}
a { color: var(--accent); }
:focus-visible { outline: 3px solid var(--accent); outline-offset: 2px; }
.muted { color: var(--muted); }
.sr-only {
  position: absolute; width: 1px; height: 1px; padding: 0; margin: -1px;
  overflow: hidden; clip: rect(0, 0, 0, 0); white-space: nowrap; border: 0;
}

/* The verdict */
.verdict {
  border: 1px solid var(--line);
  border-left-width: 8px;
  border-radius: 8px;
  padding: 14px 18px;
  background: var(--panel);
}
.verdict.holds { border-left-color: var(--pass-bar); }
.verdict.below { border-left-color: var(--fail-bar); }
.verdict.none { border-left-color: var(--muted); }
.verdict .headline { font-size: 1.6rem; font-weight: 700; margin: 2px 0 6px; }
.verdict.holds .headline { color: var(--pass); }
.verdict.below .headline { color: var(--fail); }
.gauge {
  position: relative; height: 14px; border-radius: 7px; background: var(--fail-bg);
  border: 1px solid var(--line); margin: 10px 0 4px; max-width: 640px;
}
.gauge .fill { position: absolute; left: 0; top: 0; bottom: 0; border-radius: 7px 0 0 7px; background: var(--pass-bar); }
.gauge .tick { position: absolute; top: -5px; bottom: -5px; width: 3px; margin-left: -1px; background: var(--fg); }
.stats { display: flex; flex-wrap: wrap; gap: 6px 22px; margin: 12px 0 0; padding: 0; }
.stats div { display: flex; gap: 6px; align-items: baseline; }
.stats dt { color: var(--muted); }
.stats dd { margin: 0; font-weight: 600; }
.note { margin: 10px 0 0; }

/* The floor's history */
.trend svg { display: block; width: 100%; max-width: 720px; height: auto; }
.trend .floor-line { fill: none; stroke: var(--accent); stroke-width: 2.5; }
.trend .axis { stroke: var(--line); stroke-width: 1; }
.trend text { fill: var(--muted); font-size: 12px; font-family: inherit; }
.trend .now { fill: var(--pass-bar); }
.trend .now.below { fill: var(--fail-bar); }
.trend .then { fill: var(--muted); }
.trend .step { fill: var(--accent); }
.legend { display: flex; flex-wrap: wrap; gap: 4px 18px; margin: 6px 0; padding: 0; list-style: none; font-size: 0.9em; }
.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 50%; margin-right: 6px; vertical-align: -1px; }
.swatch.floor { background: var(--accent); border-radius: 2px; height: 4px; vertical-align: 3px; }
.swatch.now { background: var(--pass-bar); }
.swatch.now.below { background: var(--fail-bar); }
.swatch.then { background: var(--muted); }
table { border-collapse: collapse; margin: 6px 0; }
th, td { text-align: left; padding: 3px 12px 3px 0; border-bottom: 1px solid var(--line); vertical-align: top; }

/* Per surface */
.surfaces { list-style: none; margin: 0; padding: 0; display: grid; gap: 8px; max-width: 860px; }
.surfaces li { display: grid; grid-template-columns: minmax(6rem, 12rem) 1fr minmax(9rem, auto); gap: 12px; align-items: center; }
.bar { display: flex; height: 16px; border-radius: 4px; overflow: hidden; background: var(--panel); border: 1px solid var(--line); }
.bar .passing { background: var(--pass-bar); }
.bar .failing { background: var(--fail-bar); }

/* Filters */
.filters {
  display: flex; flex-wrap: wrap; gap: 10px 20px; align-items: end;
  padding: 12px 14px; border: 1px solid var(--line); border-radius: 8px; background: var(--panel);
}
.filters fieldset { border: 0; margin: 0; padding: 0; display: flex; flex-wrap: wrap; gap: 4px 14px; }
.filters legend { padding: 0; margin-bottom: 4px; font-weight: 600; }
.filters label { display: inline-flex; gap: 6px; align-items: center; }
.filters .field { display: flex; flex-direction: column; gap: 4px; }
.filters .field label { font-weight: 600; }
.filters select, .filters input[type="search"] {
  font: inherit; color: inherit; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 4px 8px;
}
.filters input[type="search"] { width: 16rem; max-width: 100%; }
.showing { margin: 10px 0; }

/* Cases */
.cases { list-style: none; margin: 0; padding: 0; }
.case { border: 1px solid var(--line); border-left-width: 6px; border-radius: 8px; margin: 0 0 10px; padding: 10px 14px; }
.case.failed { border-left-color: var(--fail-bar); }
.case.errored { border-left-color: var(--error); }
.case.flaky { border-left-color: var(--flaky); }
.case.passed { border-left-color: var(--pass-bar); }
.case-head { display: flex; flex-wrap: wrap; gap: 6px 12px; align-items: center; }
.case-head h3 { flex: 1 1 20rem; }
.toggle {
  font: inherit; font-weight: 600; color: inherit; background: none; border: 0; padding: 2px 0;
  cursor: pointer; text-align: left; display: inline-flex; gap: 8px; align-items: baseline; max-width: 100%;
}
.toggle .chevron::before { content: "▸"; color: var(--muted); }
.toggle[aria-expanded="true"] .chevron::before { content: "▾"; }
.toggle .id { font-family: var(--mono); font-size: 0.95em; overflow-wrap: anywhere; min-width: 0; }
.badge { display: inline-block; border-radius: 999px; padding: 0 9px; font-size: 0.82em; font-weight: 600; white-space: nowrap; }
.badge.failed, .badge.regression, .badge.unsurfaced { background: var(--fail-bg); color: var(--fail); }
.badge.errored { background: var(--error-bg); color: var(--error); }
.badge.flaky { background: var(--flaky-bg); color: var(--flaky); }
.badge.passed, .badge.fix, .badge.path, .badge.quote, .badge.ok { background: var(--pass-bg); color: var(--pass); }
.badge.surface, .badge.tag {
  background: var(--panel); color: var(--fg); border: 1px solid var(--line); font-weight: 500;
  white-space: normal; max-width: 100%; border-radius: 10px;
}
.tags { display: flex; flex-wrap: wrap; gap: 4px; list-style: none; margin: 0; padding: 0; max-width: 100%; }
.guards { margin: 4px 0 0; color: var(--muted); }
.expectations { list-style: none; margin: 6px 0 0; padding: 0; display: grid; gap: 2px; }
.expectations li { display: flex; gap: 8px; align-items: baseline; }
.expectations .mark { width: 1.1em; flex: none; text-align: center; font-weight: 700; }
.expectations .held .mark { color: var(--pass); }
.expectations .broke .mark { color: var(--fail); }
.expectations .kind { font-family: var(--mono); font-size: 0.86em; flex: none; max-width: 40%; font-weight: 600; }
.expectations .broke .kind { color: var(--fail); }
.expectations .fact { font-family: var(--mono); font-size: 0.86em; }
.change { margin: 6px 0 0; padding: 4px 10px; border-radius: 6px; background: var(--panel); }
.permalink { font-size: 0.85em; }
.more { font: inherit; margin: 6px 0 20px; padding: 6px 14px; border-radius: 6px; border: 1px solid var(--line); background: var(--panel); color: inherit; cursor: pointer; }

/* A case opened */
.detail { margin-top: 10px; border-top: 1px dashed var(--line); padding-top: 4px; }
.answer {
  white-space: pre-wrap; padding: 10px 12px; border-radius: 6px; background: var(--panel); border: 1px solid var(--line);
  max-height: 30em; overflow: auto;
}
.facts-line { display: flex; flex-wrap: wrap; gap: 4px 16px; margin: 0; padding: 0; list-style: none; }
.timeline { list-style: none; margin: 0; padding: 0 0 0 18px; border-left: 2px solid var(--line); }
.timeline > li { position: relative; margin: 0 0 10px; padding-left: 6px; }
.timeline > li::before {
  content: ""; position: absolute; left: -25px; top: 6px; width: 10px; height: 10px; border-radius: 50%;
  background: var(--pass-bar); border: 2px solid var(--bg);
}
.timeline > li.errored::before { background: var(--fail-bar); }
.timeline .step-head { display: flex; flex-wrap: wrap; gap: 4px 10px; align-items: baseline; }
.timeline .error { color: var(--fail); font-weight: 600; }
.timeline details { margin: 2px 0; }
.timeline summary { cursor: pointer; color: var(--muted); }
.evidence { display: grid; grid-template-columns: minmax(0, 2fr) minmax(0, 1fr); gap: 16px; }
.evidence ul { margin: 0; padding-left: 18px; }
.evidence li { margin: 2px 0; }
.attempts { display: grid; grid-template-columns: repeat(auto-fit, minmax(18rem, 1fr)); gap: 12px; }
.attempt { border: 1px solid var(--line); border-radius: 8px; padding: 8px 12px; }
.attempt h4 { margin-top: 4px; }

@media (max-width: 720px) {
  .evidence { grid-template-columns: minmax(0, 1fr); }
  .surfaces li { grid-template-columns: minmax(0, 1fr); gap: 2px; }
}

@media print {
  :root { --bg: #ffffff; --fg: #000000; --muted: #333333; --panel: #ffffff; }
  body { font-size: 11pt; }
  main { max-width: none; padding: 0; }
  .filters, .more, .permalink, .showing, noscript { display: none; }
  .case, .verdict, .attempt { break-inside: avoid; }
  pre, .answer { max-height: none; overflow: visible; }
  .toggle .chevron { display: none; }
  .badge, .bar .passing, .bar .failing, .gauge .fill { print-color-adjust: exact; -webkit-print-color-adjust: exact; }
}
`
