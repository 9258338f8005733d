/**
 * An audit's report as text: a line per violation (`✗ TURN  KIND  FACT`) as the turns are graded, and
 * the closing summary. Text from the archive is shown inert.
 */
import type { AuditPlan, AuditTally, Violation } from "../../Schema/Audit.js"
import { inert } from "../../Schema/Inert.js"
import { shown } from "../../Schema/Shown.js"
import { plural } from "../../Words.js"

/** One violation's line: the turn id, the expectation's kind and the fact that broke it. */
export const violationLine = (violation: Violation): string =>
  `✗ ${inert(shown(violation.turnId))}  ${violation.kind}  ${inert(violation.fact ?? "failed")}`

/** The audit's closing summary. */
export const auditSummary = (plan: AuditPlan, tally: AuditTally): string => {
  const parts = [
    `${plural(tally.violations, "violation")} in ${plural(tally.violatingTurns, "turn")}`,
    ...(tally.otherSurfaces > 0 ? [`${plural(tally.otherSurfaces, "turn")} of other surfaces skipped`] : []),
    ...(plan.shard !== undefined ? [`${plural(tally.otherShards, "turn")} in other shards`] : []),
    ...(tally.unreadable > 0 ? [plural(tally.unreadable, "unreadable line")] : [])
  ]
  return `audited ${plural(tally.turns, "turn")} of ${inert(plan.surfaceName)} against ${
    plural(plan.expectations.length, "expectation")
  }: ${parts.join(" · ")}`
}
