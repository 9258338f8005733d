/**
 * The run as one self-contained HTML page (`--reporter html=FILE`): the verdict, the floor's history,
 * a bar per surface, then every case — failing first — with its facts, and on opening it the question,
 * the answer and the trace as a timeline. The page loads nothing: a Content-Security-Policy forbids
 * every request, the one script and the one style are allowed by their hashes, and it works from
 * `file://`. The results go into the page as JSON data that no text can close, and the page's script
 * builds the document from it as text only, so nothing an assistant wrote can run or become markup.
 * Pure.
 */
import { createHash } from "node:crypto"
import type { FloorChange } from "../../Schema/Baseline.js"
import { inert, inertLines } from "../../Schema/Inert.js"
import {
  type Attempt,
  type CaseResult,
  type ExpectationResult,
  type KeptTurn,
  type RunResult,
  stepName,
  stepNamed,
  type StepResult
} from "../../Schema/Result.js"
import { clipped } from "../../Schema/Shown.js"
import { noResult, surfaced } from "../../Schema/Trace.js"
import { attemptsOf, failingFacts, flakiness, obtained } from "../Attempts.js"
import type { RunDiff } from "../Diff.js"
import { maxKeptAnswer } from "../Kept.js"
import { noFloorYet, repeatOf, showRate } from "../Scorecard.js"
import { pageScript } from "./Html/Script.js"
import { pageStyle } from "./Html/Style.js"

/** What the page needs beyond the results: what a report context gives. */
export interface HtmlOptions {
  /** What to say when the run has no floor (none committed, or a partial run); backticks mark code. */
  readonly noFloor?: string | undefined
  /** The comparison with an earlier run (`run --compare`), and that run's file. */
  readonly diff?: { readonly diff: RunDiff; readonly against: string } | undefined
  /** The floor's moves, oldest first, from the baseline. */
  readonly history?: ReadonlyArray<FloorChange> | undefined
  /** How long the run took, when the results do not say. */
  readonly durationMs?: number | undefined
}

/** How a case fared, as the page files it: `errored` when no attempt obtained its turn. */
export type PageVerdict = "failed" | "errored" | "flaky" | "passed"

/** One expectation as the page shows it. */
interface PageExpectation {
  readonly kind: string
  readonly passed: boolean
  readonly fact?: string | undefined
}

/** One tool execution of a trace, its input and output already written as the text the page shows. */
interface PageExecution {
  readonly tool: string
  readonly input?: string | undefined
  readonly output?: string | undefined
  readonly error?: string | undefined
  readonly durationMs?: number | undefined
}

/** A turn as the page shows it. */
interface PageTurn {
  readonly answer: string
  readonly turnId: string
  readonly outcome: string
  readonly citations: ReadonlyArray<
    { readonly path: string; readonly quote?: string | undefined; readonly match: string }
  >
  /**
   * Everything the turn surfaced, when the results kept it; else (older results) the paths its
   * citations matched, each once.
   */
  readonly surfaced: ReadonlyArray<string>
  /** Whether `surfaced` is everything the turn surfaced, not only what its citations matched. */
  readonly surfacedAll: boolean
  readonly executions: ReadonlyArray<PageExecution>
  readonly proposal?: {
    readonly id: string
    readonly summary?: string | undefined
    readonly status?: string | undefined
    readonly actions?: string | undefined
  }
  readonly usage?: { readonly inputTokens: number; readonly outputTokens: number } | undefined
  readonly omitted?: { readonly toolExecutions?: number; readonly citations?: number } | undefined
}

/** One step of a conversation case as the page shows it: what it did, its verdicts and its own turn. */
interface PageStep {
  /** `turn 2 (approve)`. */
  readonly name: string
  /** The text asked or the reason denied. */
  readonly message?: string | undefined
  readonly turnId?: string | undefined
  readonly error?: string | undefined
  readonly skipped?: string | undefined
  readonly expectations: ReadonlyArray<PageExpectation>
  readonly durationMs?: number | undefined
  readonly turn?: PageTurn | undefined
}

/** One attempt as the page shows it. */
interface PageAttempt {
  readonly passed: boolean
  readonly turnId?: string | undefined
  readonly error?: string | undefined
  readonly expectations: ReadonlyArray<PageExpectation>
  readonly durationMs?: number | undefined
  readonly turn?: PageTurn | undefined
  readonly steps?: ReadonlyArray<PageStep> | undefined
}

/** One case as the page shows it. */
export interface PageCase {
  readonly id: string
  readonly surface: string
  readonly verdict: PageVerdict
  readonly guards?: string | undefined
  readonly question?: string | undefined
  readonly tags: ReadonlyArray<string>
  readonly turnId?: string | undefined
  readonly error?: string | undefined
  readonly expectations: ReadonlyArray<PageExpectation>
  readonly durationMs?: number | undefined
  readonly turn?: PageTurn | undefined
  /** A conversation case's steps, in order, each with its own turn. */
  readonly steps?: ReadonlyArray<PageStep> | undefined
  /** Under `--repeat`: every attempt, and how many passed. */
  readonly attempts?: ReadonlyArray<PageAttempt> | undefined
  readonly passedAttempts?: number | undefined
  /** With `--compare`: how the verdict changed, and the older run's failing facts. */
  readonly change?: {
    readonly kind: "regression" | "fix"
    readonly then: {
      readonly passed: boolean
      readonly facts: ReadonlyArray<{ readonly kind: string; readonly fact: string }>
    }
  } | undefined
}

/** What the page is drawn from: the run's verdict and figures, its history and comparison, and its cases. */
export interface PageData {
  readonly run: {
    readonly version: number
    readonly verdict: "holds" | "below" | "none"
    readonly passRate: number
    readonly passRateShown: string
    readonly floor: number | null
    readonly floorShown?: string | undefined
    readonly noFloor?: string | undefined
    readonly total: number
    readonly passedCount: number
    readonly counts: Readonly<Record<PageVerdict, number>>
    readonly durationMs?: number | undefined
    readonly caseSet: string
    readonly repeat: number
    readonly shard?: { readonly index: number; readonly count: number } | undefined
    readonly bailed: boolean
  }
  readonly history?: ReadonlyArray<FloorChange> | undefined
  readonly compare?: {
    readonly against: string
    readonly passRate: number
    readonly passRateShown: string
    readonly passed: number
    readonly total: number
    readonly regressions: number
    readonly fixes: number
    readonly sameSet: boolean
  }
  readonly surfaces: ReadonlyArray<{ readonly name: string; readonly passing: number; readonly failing: number }>
  readonly tags: ReadonlyArray<string>
  readonly cases: ReadonlyArray<PageCase>
}

/** `f` of a value that is there; nothing of one that is not (a field the page then leaves out). */
const mapDefined = <A, B>(a: A | undefined, f: (a: A) => B): B | undefined => a === undefined ? undefined : f(a)

// Every string from the results is clipped, so no single one can swamp the page, and made inert:
// control, bidi and zero-width characters are shown as their escapes instead of reordering or hiding
// text. A block (an answer, a JSON value) keeps its line breaks.
const line = (text: string): string => inert(clipped(text, maxKeptAnswer))
const block = (text: string): string => inertLines(clipped(text, maxKeptAnswer).replace(/\r\n/g, "\n"))

// A kept value: a string (the kept JSON of a value too long to keep whole, or a plain string) as it
// is, anything else as indented JSON.
const value = (v: unknown): string => {
  if (typeof v === "string") return block(v)
  const json = JSON.stringify(v, null, 2) as string | undefined
  return block(json ?? String(v))
}

const expectation = (e: ExpectationResult): PageExpectation => ({
  kind: line(e.kind),
  passed: e.passed,
  fact: mapDefined(e.fact, line)
})

/** An expectation of a conversation's, named by its step (`turn 2 (approve) · runs-as-proposed`) where it has one. */
const stepExpectation = (steps: ReadonlyArray<StepResult> | undefined) => (e: ExpectationResult): PageExpectation => {
  const step = stepNamed(steps, e.step)
  const shown = expectation(e)
  return step === undefined ? shown : { ...shown, kind: line(`${step} · ${e.kind}`) }
}

const pageStep = (s: StepResult): PageStep => ({
  name: stepName(s.step, s.kind),
  message: mapDefined(s.message, block),
  turnId: mapDefined(s.turnId, line),
  error: mapDefined(s.error, line),
  skipped: mapDefined(s.skipped, line),
  expectations: s.expectations.map(expectation),
  durationMs: s.durationMs,
  turn: mapDefined(s.turn, turn)
})

const turn = (t: KeptTurn): PageTurn => {
  const surfacedPaths = t.surfaced === undefined
    ? [...new Set(t.trace.citations.filter(surfaced).map((c) => line(c.path)))]
    : t.surfaced.map(line)
  return {
    answer: block(t.answer),
    turnId: line(t.trace.turnId),
    outcome: line(t.trace.outcome),
    citations: t.trace.citations.map((c) => ({
      path: line(c.path),
      quote: mapDefined(c.quote, line),
      match: line(c.match)
    })),
    surfaced: surfacedPaths,
    surfacedAll: t.surfaced !== undefined,
    executions: t.trace.toolExecutions.map((e) => ({
      tool: line(e.tool),
      ...("input" in e ? { input: value(e.input) } : {}),
      ...("output" in e ? { output: value(e.output) } : {}),
      ...(typeof e.error === "string" && e.error.length > 0
        ? { error: line(e.error) }
        : e.unresolved === true
        ? { error: noResult }
        : {}),
      ...(typeof e.durationMs === "number" && Number.isFinite(e.durationMs) ? { durationMs: e.durationMs } : {})
    })),
    ...(t.trace.proposal === null ? {} : {
      proposal: {
        id: line(t.trace.proposal.id),
        summary: mapDefined(t.trace.proposal.summary, line),
        status: mapDefined(t.trace.proposal.status, line),
        actions: mapDefined(t.trace.proposal.actions, value)
      }
    }),
    usage: t.trace.usage,
    omitted: t.omitted
  }
}

const attempt = (a: Attempt): PageAttempt => ({
  passed: a.passed,
  turnId: mapDefined(a.turnId, line),
  error: mapDefined(a.error, line),
  expectations: a.expectations.map(stepExpectation(a.turns)),
  durationMs: a.durationMs,
  turn: mapDefined(a.turn, turn),
  steps: a.turns?.map(pageStep)
})

/** A case's verdict on the page: flaky when some attempts passed, errored when no attempt obtained its turn. */
export const pageVerdict = (c: CaseResult): PageVerdict => {
  const { verdict } = flakiness(c)
  if (verdict !== "failed") return verdict
  return attemptsOf(c).every((a) => !obtained(a)) ? "errored" : "failed"
}

const rank: Readonly<Record<PageVerdict, number>> = { failed: 0, errored: 1, flaky: 2, passed: 3 }

const pageCase = (c: CaseResult, change: PageCase["change"] | undefined): PageCase => {
  const verdict = pageVerdict(c)
  return {
    id: line(c.id),
    surface: line(c.surface),
    verdict,
    guards: mapDefined(c.guards, line),
    question: mapDefined(c.question, block),
    tags: (c.tags ?? []).map(line),
    turnId: mapDefined(c.turnId, line),
    error: mapDefined(c.error, line),
    expectations: c.expectations.map(stepExpectation(c.turns)),
    durationMs: c.durationMs,
    turn: mapDefined(c.turn, turn),
    steps: c.turns?.map(pageStep),
    ...(c.attempts === undefined
      ? {}
      : { attempts: c.attempts.map(attempt), passedAttempts: c.attempts.filter((a) => a.passed).length }),
    change
  }
}

/** The page's data: the run's figures, and its cases failing first (failed, errored, flaky, passed), each group in golden-set order. */
export const pageData = (result: RunResult, options: HtmlOptions = {}): PageData => {
  const changes = new Map<string, NonNullable<PageCase["change"]>>()
  for (
    const [kind, list] of [["regression", options.diff?.diff.regressions ?? []], [
      "fix",
      options.diff?.diff.fixes ?? []
    ]] as const
  ) {
    for (const changed of list) {
      changes.set(changed.id, {
        kind,
        then: {
          passed: changed.then.passed,
          facts: failingFacts(changed.then).map((f) => ({ kind: line(f.kind), fact: line(f.fact) }))
        }
      })
    }
  }
  const cases = result.cases
    .map((c, at) => ({ c: pageCase(c, changes.get(c.id)), at }))
    .sort((a, b) => rank[a.c.verdict] - rank[b.c.verdict] || a.at - b.at)
    .map(({ c }) => c)
  const counts: Record<PageVerdict, number> = { failed: 0, errored: 0, flaky: 0, passed: 0 }
  const surfaces = new Map<string, { name: string; passing: number; failing: number }>()
  const tags = new Set<string>()
  for (const c of cases) {
    counts[c.verdict]++
    const surface = surfaces.get(c.surface) ?? { name: c.surface, passing: 0, failing: 0 }
    if (c.verdict === "passed") surface.passing++
    else surface.failing++
    surfaces.set(c.surface, surface)
    for (const tag of c.tags) tags.add(tag)
  }
  const durationMs = result.durationMs ?? options.durationMs
  const diff = options.diff
  return {
    run: {
      version: result.version,
      verdict: result.floor === null || result.passed === null ? "none" : result.passed ? "holds" : "below",
      passRate: result.passRate,
      passRateShown: showRate(result.passRate),
      floor: result.floor,
      ...(result.floor === null
        ? { noFloor: line(options.noFloor ?? noFloorYet) }
        : { floorShown: showRate(result.floor) }),
      total: result.total,
      passedCount: result.passedCount,
      counts,
      durationMs,
      caseSet: line(result.caseSet),
      repeat: repeatOf(result),
      ...(result.shard === undefined ? {} : { shard: { index: result.shard.index, count: result.shard.count } }),
      bailed: result.bailed === true
    },
    ...(options.history === undefined || options.history.length === 0
      ? {}
      : { history: options.history.map((h) => ({ ...h, date: line(h.date) })) }),
    ...(diff === undefined ? {} : {
      compare: {
        against: line(diff.against),
        passRate: diff.diff.passRate.from,
        passRateShown: showRate(diff.diff.passRate.from),
        passed: diff.diff.passed.from,
        total: diff.diff.total.from,
        regressions: diff.diff.regressions.length,
        fixes: diff.diff.fixes.length,
        sameSet: diff.diff.sameSet
      }
    }),
    surfaces: [...surfaces.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)),
    tags: [...tags].sort(),
    cases
  }
}

/**
 * JSON that can sit inside a `<script>` element whatever its strings hold: every `<` is written
 * `\u003c`, so no `</script>` or `<!--` can end or change the element, and the line and paragraph
 * separators are escaped too. It parses back to the same value.
 */
export const scriptJson = (data: unknown): string =>
  JSON.stringify(data).replace(/</g, "\\u003c").replace(/\u2028/g, "\\u2028").replace(/\u2029/g, "\\u2029")

/** The CSP source that allows exactly this inline script or style: `'sha256-…'` of its text. */
export const cspHash = (text: string): string =>
  `'sha256-${createHash("sha256").update(text, "utf8").digest("base64")}'`

/**
 * The page's policy: nothing may load — no script, style, font, image, frame or request — but its own
 * inline script and style, by hash; `data:` images only. Forms and a `<base>` are refused outright.
 */
export const contentSecurityPolicy = (script: string, style: string): string =>
  [
    "default-src 'none'",
    `script-src ${cspHash(script)}`,
    `style-src ${cspHash(style)}`,
    "img-src data:",
    "base-uri 'none'",
    "form-action 'none'"
  ].join("; ")

// The title is made of figures only, so it needs no escaping.
const title = (data: PageData): string => {
  const verdict = data.run.verdict === "holds"
    ? "holds the floor"
    : data.run.verdict === "below"
    ? "below the floor"
    : "no floor"
  return `turn-eval: ${data.run.passedCount}/${data.run.total} passed · ${verdict}`
}

/** Renders a run's results as one self-contained HTML page. */
export const renderHtml = (result: RunResult, options: HtmlOptions = {}): string => {
  const data = pageData(result, options)
  return [
    "<!doctype html>",
    "<html lang=\"en\">",
    "<head>",
    "<meta charset=\"utf-8\">",
    `<meta http-equiv="Content-Security-Policy" content="${contentSecurityPolicy(pageScript, pageStyle)}">`,
    "<meta name=\"referrer\" content=\"no-referrer\">",
    "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">",
    "<meta name=\"color-scheme\" content=\"light dark\">",
    `<title>${title(data)}</title>`,
    `<style>${pageStyle}</style>`,
    "</head>",
    "<body>",
    "<noscript><p>This report draws itself with the script it carries: allow scripts for this file to read it.</p></noscript>",
    "<main id=\"report\" aria-busy=\"true\"></main>",
    `<script type="application/json" id="report-data">${scriptJson(data)}</script>`,
    `<script>${pageScript}</script>`,
    "</body>",
    "</html>"
  ].join("\n")
}
