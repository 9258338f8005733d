/**
 * A run diff as a Markdown section, for a pull-request comment or the step summary: the pass-rate
 * change, a table of regressions with their new facts, then fixes, new and removed cases. Assistant text
 * is escaped like the rest of the summary.
 */
import { failingFacts, showFact } from "../Attempts.js"
import type { RunDiff } from "../Diff.js"
import { showRate } from "../Scorecard.js"
import { showRateChange } from "./DiffText.js"
import { escapeMarkdown } from "./Markdown.js"

const list = (title: string, cases: ReadonlyArray<{ id: string; surface: string }>): ReadonlyArray<string> =>
  cases.length === 0
    ? []
    : [
      "",
      `**${title} (${cases.length})**: ${
        cases.map((c) => `${escapeMarkdown(c.surface)} / ${escapeMarkdown(c.id)}`).join(", ")
      }`
    ]

/** Renders a diff as a Markdown section; `against` names the older run. */
export const renderDiffMarkdown = (diff: RunDiff, against: string): string => {
  const lines = [
    `### Compared with ${escapeMarkdown(against)}`,
    "",
    `Pass rate **${showRate(diff.passRate.from)} → ${showRate(diff.passRate.to)}** (${
      showRateChange(diff.passRate.from, diff.passRate.to)
    }) · ${diff.passed.from}/${diff.total.from} → ${diff.passed.to}/${diff.total.to} passed`
  ]
  if (!diff.sameSet) lines.push("", "The runs covered different case sets; cases are compared by id.")
  if (diff.regressions.length > 0) {
    lines.push(
      "",
      `**Regressions (${diff.regressions.length})**`,
      "",
      "| surface | case | facts now |",
      "| --- | --- | --- |"
    )
    for (const c of diff.regressions) {
      const facts = failingFacts(c.now).map((f) => escapeMarkdown(showFact(f))).join("<br>")
      lines.push(`| ${escapeMarkdown(c.surface)} | ${escapeMarkdown(c.id)} | ${facts} |`)
    }
  }
  lines.push(...list("Fixed", diff.fixes), ...list("New", diff.added), ...list("Removed", diff.removed))
  if (diff.regressions.length + diff.fixes.length + diff.added.length + diff.removed.length === 0) {
    lines.push("", "No case changed its verdict.")
  }
  return lines.join("\n")
}
