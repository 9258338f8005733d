/**
 * A run diff as a person reads it in a terminal: the pass-rate change, then regressions with their new
 * facts, fixes, new and removed cases. Assistant text is shown inert.
 */
import { inert } from "../../Schema/Inert.js"
import { failingFacts, showFact } from "../Attempts.js"
import type { RunDiff } from "../Diff.js"
import { showRate } from "../Scorecard.js"
import { label, paint } from "./Pretty.js"

/** The signed change between two rates as the scorecard shows them (four decimals, rounded down). */
export const showRateChange = (from: number, to: number): string => {
  const change = Math.round((Number(showRate(to)) - Number(showRate(from))) * 10_000) / 10_000
  return change === 0 ? "±0" : `${change > 0 ? "+" : "−"}${Math.abs(change).toFixed(4)}`
}

/** Renders a diff for the terminal; `against` names the older run. */
export const renderDiffPretty = (
  diff: RunDiff,
  options: { readonly color: boolean; readonly against: string }
): string => {
  const red = paint(options.color, "31")
  const green = paint(options.color, "32")
  const bold = paint(options.color, "1")
  const lines = [
    bold(
      `compared with ${inert(options.against)}: pass rate ${showRate(diff.passRate.from)} → ${
        showRate(diff.passRate.to)
      } (${
        showRateChange(diff.passRate.from, diff.passRate.to)
      }) · ${diff.passed.from}/${diff.total.from} → ${diff.passed.to}/${diff.total.to} passed`
    )
  ]
  if (!diff.sameSet) lines.push("  the runs covered different case sets; cases are compared by id")
  if (diff.repeat.from !== diff.repeat.to) {
    lines.push(`  the runs repeated each case a different number of times (${diff.repeat.from} and ${diff.repeat.to})`)
  }
  const width = Math.max(
    0,
    ...[...diff.regressions, ...diff.fixes, ...diff.added, ...diff.removed].map((c) => label(c.surface).length)
  )
  const row = (mark: string, c: { surface: string; id: string }) =>
    `  ${mark} ${label(c.surface).padEnd(width)}  ${label(c.id)}`
  if (diff.regressions.length > 0) {
    lines.push(red(`regressed ${diff.regressions.length}:`))
    for (const c of diff.regressions) {
      lines.push(row(red("✗"), c))
      for (const fact of failingFacts(c.now)) lines.push(`      ${inert(showFact(fact))}`)
    }
  }
  if (diff.fixes.length > 0) {
    lines.push(green(`fixed ${diff.fixes.length}:`))
    for (const c of diff.fixes) lines.push(row(green("✓"), c))
  }
  if (diff.added.length > 0) {
    lines.push(`new ${diff.added.length}:`)
    for (const c of diff.added) lines.push(row(c.passed ? green("✓") : red("✗"), c))
  }
  if (diff.removed.length > 0) {
    lines.push(`removed ${diff.removed.length}:`)
    for (const c of diff.removed) lines.push(row("-", c))
  }
  if (diff.regressions.length + diff.fixes.length + diff.added.length + diff.removed.length === 0) {
    lines.push("  no case changed its verdict")
  }
  return lines.join("\n")
}
