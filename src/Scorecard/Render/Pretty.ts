/**
 * The scorecard a person reads: each case ✓/✗ in golden-set order with its failing facts, then the
 * pass rate against the floor. Text from the assistant is shown inert: control characters and escape
 * sequences are printed escaped, never interpreted by the terminal.
 */
import { inert } from "../../Schema/Inert.js"
import type { CaseResult, RunResult } from "../../Schema/Result.js"
import { shown } from "../../Schema/Shown.js"
import { attemptsOf, failingFacts, flakiness } from "../Attempts.js"
import { noFloorYet, repeatOf, showRate } from "../Scorecard.js"

/** How to paint the scorecard. */
export interface PrettyOptions {
  /** ANSI colour (only on a terminal, and never under NO_COLOR). */
  readonly color: boolean
  /** What to say when the run has no floor (none committed, or a partial run). */
  readonly noFloor?: string | undefined
}

/** Text in an ANSI style (`code`, e.g. 31 for red) when `on`, plain otherwise. */
export const paint = (on: boolean, code: string) => (text: string): string =>
  on ? `\u001b[${code}m${text}\u001b[0m` : text

/** A name from the results as the scorecard shows it: clipped, so padding to it cannot swamp the scorecard, and inert. */
export const label = (name: string): string => inert(shown(name))

/** The width of the surface column for these surfaces, as the scorecard shows them. */
export const surfaceWidth = (surfaces: ReadonlyArray<string>): number =>
  Math.max(...surfaces.map((s) => label(s).length), 0)

/** One case's line of the scorecard: `✓ docs       docs.refund-window-cites-source`. */
export const caseLine = (c: CaseResult, width: number, color: boolean): string => {
  const verdict = flakiness(c).verdict
  const mark = verdict === "passed"
    ? paint(color, "32")("✓")
    : verdict === "flaky"
    ? paint(color, "33")("~")
    : paint(color, "31")("✗")
  return `${mark} ${paint(color, "2")(label(c.surface).padEnd(width))}  ${label(c.id)}`
}

/** A case's wall time as a line streamed off a terminal shows it: `412ms`, `2.3s`, `1m05s`. */
export const showCaseDuration = (ms: number): string => {
  if (ms < 1000) return `${Math.round(ms)}ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(1)}s`
  const seconds = Math.round(ms / 1000)
  return `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`
}

/** Renders a run's results as the terminal scorecard. */
export const renderPretty = (result: RunResult, options: PrettyOptions): string => {
  const green = paint(options.color, "32")
  const red = paint(options.color, "31")
  const dim = paint(options.color, "2")
  const bold = paint(options.color, "1")
  const yellow = paint(options.color, "33")
  const width = surfaceWidth(result.cases.map((c) => c.surface))
  const lines: Array<string> = []
  const k = repeatOf(result)
  let flaky = 0
  for (const c of result.cases) {
    const how = flakiness(c)
    if (how.verdict === "flaky") flaky++
    lines.push(caseLine(c, width, options.color))
    if (how.verdict === "flaky") {
      lines.push(`    ${yellow("flaky")}  ${how.passedAttempts} of ${how.attempts} attempts passed`)
      attemptsOf(c).forEach((attempt, i) => {
        for (const f of failingFacts(attempt)) {
          lines.push(`    ${dim(`attempt ${i + 1}`)}  ${red(f.kind)}  ${inert(f.fact)}`)
        }
      })
    } else if (how.verdict === "failed") {
      if (k > 1) lines.push(`    ${red("failed")}  all ${k} attempts; the first:`)
      for (const f of failingFacts(c)) lines.push(`    ${red(f.kind)}  ${inert(f.fact)}`)
    }
  }
  const tally = `${result.passedCount}/${result.total} passed${k > 1 ? ` all ${k} attempts` : ""}${
    flaky > 0 ? ` · ${flaky} flaky` : ""
  } · pass rate ${showRate(result.passRate)}`
  lines.push("")
  if (result.floor === null) {
    lines.push(`${bold(tally)} · ${options.noFloor ?? noFloorYet}`)
  } else if (result.passed === true) {
    lines.push(`${bold(tally)} · floor ${showRate(result.floor)} · ${green("holds the floor")}`)
  } else {
    lines.push(`${bold(tally)} · floor ${showRate(result.floor)} · ${red("below the floor")}`)
  }
  return lines.join("\n")
}
