/**
 * The run's summary in Markdown, for `$GITHUB_STEP_SUMMARY` or a pull-request comment: the verdict,
 * where the full HTML report went (when one was written), a table of the failing cases with their
 * facts, the flaky cases with each attempt's facts, and the passing cases folded away. Text from the
 * assistant is escaped so that it reads as text: it cannot break the table, start a block, or inject
 * HTML.
 */
import { inert } from "../../Schema/Inert.js"
import type { CaseResult, RunResult } from "../../Schema/Result.js"
import { attemptsOf, type Fact, failingFacts, flakiness } from "../Attempts.js"
import { noFloorYet, showRate } from "../Scorecard.js"

/** What the summary needs beyond the results. */
export interface MarkdownOptions {
  /** The heading's name; `turn-eval` when absent. */
  readonly title?: string | undefined
  /** What to say when the run has no floor (none committed, or a partial run); Markdown, not escaped. */
  readonly noFloor?: string | undefined
  /** Markdown sections appended after the summary, in order (a comparison with an earlier run, say). */
  readonly extraSections?: ReadonlyArray<string> | undefined
  /** The file the full HTML report was written to, which the summary points to. */
  readonly htmlReport?: string | undefined
}

/**
 * Untrusted text as Markdown that renders as that text, on one line: inert (line breaks and half a
 * surrogate pair shown as escapes, so a table cell stays one row), then every ASCII punctuation
 * character backslash-escaped (no emphasis, link, HTML, entity or table pipe can start).
 */
export const escapeMarkdown = (text: string): string => inert(text).replace(/[!-/:-@[-`{-~]/g, "\\$&")

// A name that is safe inside a code span is shown as code, anything else escaped.
const name = (text: string): string => /^[A-Za-z0-9._/-]+$/.test(text) ? `\`${text}\`` : escapeMarkdown(text)

const fact = (f: Fact): string => `**${escapeMarkdown(f.kind)}**: ${escapeMarkdown(f.fact)}`

const headline = (result: RunResult, options: MarkdownOptions): ReadonlyArray<string> => {
  const verdict = result.floor === null || result.passed === null
    ? "➖ no floor"
    : result.passed
    ? "✅ holds the floor"
    : "❌ below the floor"
  const floor = result.floor === null ? options.noFloor ?? noFloorYet : `floor **${showRate(result.floor)}**`
  const shape = [
    ...(result.repeat === undefined
      ? []
      : [`each case ran ${result.repeat}× and passes only if every attempt passed (pass^${result.repeat})`]),
    ...(result.shard === undefined ? [] : [`shard ${result.shard.index} of ${result.shard.count}`])
  ]
  return [
    `## ${escapeMarkdown(options.title ?? "turn-eval")}: ${verdict}`,
    "",
    `**${result.passedCount}/${result.total} passed** · pass rate **${showRate(result.passRate)}** · ${floor}`,
    ...(shape.length === 0 ? [] : ["", `${shape.join(" · ")}`.replace(/^./, (c) => c.toUpperCase())]),
    // The page lives where the run wrote it: on a CI runner, only until the job ends unless uploaded.
    ...(options.htmlReport === undefined
      ? []
      : ["", `The full report: ${name(options.htmlReport)} (an HTML page; in CI, upload it as an artifact)`])
  ]
}

// The facts of a failing case in one table cell: each attempt's under `--repeat`.
const factsCell = (c: CaseResult): string =>
  c.attempts === undefined
    ? failingFacts(c).map(fact).join("<br>")
    : attemptsOf(c).map((a, i) => `attempt ${i + 1}: ${a.passed ? "passed" : failingFacts(a).map(fact).join("; ")}`)
      .join("<br>")

const failingSection = (cases: ReadonlyArray<CaseResult>): ReadonlyArray<string> => [
  `### ❌ Failing (${cases.length})`,
  "",
  "| Case | Surface | Facts |",
  "| --- | --- | --- |",
  ...cases.map((c) => `| ${name(c.id)} | ${name(c.surface)} | ${factsCell(c)} |`)
]

const flakySection = (cases: ReadonlyArray<CaseResult>): ReadonlyArray<string> => [
  `### ⚠️ Flaky (${cases.length})`,
  "",
  "Some attempts passed and some failed: these cases count as failing until every attempt passes.",
  "",
  ...cases.flatMap((c) => {
    const { passedAttempts, attempts } = flakiness(c)
    return [
      `- ${name(c.id)} (${name(c.surface)}): ${passedAttempts} of ${attempts} attempts passed`,
      ...attemptsOf(c).map((a, i) =>
        `  - attempt ${i + 1}: ${a.passed ? "passed" : `failed: ${failingFacts(a).map(fact).join("; ")}`}`
      )
    ]
  })
]

const passingSection = (cases: ReadonlyArray<CaseResult>): ReadonlyArray<string> => [
  "<details>",
  `<summary>✅ Passing (${cases.length})</summary>`,
  "",
  ...cases.map((c) => `- ${name(c.id)} (${name(c.surface)})`),
  "",
  "</details>"
]

/** Renders a run's results as a Markdown summary, with `extraSections` appended at the end. */
export const renderMarkdown = (result: RunResult, options: MarkdownOptions = {}): string => {
  const byVerdict = (verdict: string) => result.cases.filter((c) => flakiness(c).verdict === verdict)
  const failing = byVerdict("failed")
  const flaky = byVerdict("flaky")
  const passing = byVerdict("passed")
  const sections = [
    headline(result, options),
    ...(failing.length === 0 ? [] : [failingSection(failing)]),
    ...(flaky.length === 0 ? [] : [flakySection(flaky)]),
    ...(passing.length === 0 ? [] : [passingSection(passing)])
  ].map((lines) => lines.join("\n"))
  return [...sections, ...(options.extraSections ?? [])].join("\n\n")
}
