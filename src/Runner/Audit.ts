/**
 * Auditing an archive of turns: every turn of a JSON-lines export (one recorded turn per line) graded
 * against invariant expectations — `cites-only-surfaced`, `never-calls deploy` — as a stream, so an
 * archive of any size is read in constant memory. Violations are reported with their facts and turn
 * ids as they are found; unreadable lines are reported by file, line and JSON path.
 */
import { Either, Schema } from "effect"
import { gradeExpectation } from "../Graders/index.js"
import type { Expectation } from "../Schema/Case.js"
import { decodeValue, isRecord } from "../Schema/Decode.js"
import { inert } from "../Schema/Inert.js"
import { shown } from "../Schema/Shown.js"
import type { Surface } from "../Schema/Surface.js"
import { isTurnTrace, type Turn, TurnTrace } from "../Schema/Trace.js"
import { describeJsonError } from "../Schema/JsonSyntax.js"
import { inShard, type Shard } from "./Shard.js"

/** A turn as an export holds it: its answer and trace (a case id or question, when present, is not needed). */
const AuditTurn = Schema.Struct({ answer: Schema.String, trace: TurnTrace })

/** What to audit. */
export interface AuditPlan {
  readonly surfaceName: string
  readonly surface: Surface
  readonly expectations: ReadonlyArray<Expectation>
  readonly shard?: Shard
}

/** The running counts of an audit. */
export interface AuditTally {
  turns: number
  otherSurfaces: number
  otherShards: number
  violatingTurns: number
  violations: number
  unreadable: number
  /** The first unreadable lines, located; the rest are only counted. */
  readonly unreadableShown: Array<string>
}

/** How many unreadable lines are shown; an archive with more has a systematic problem. */
const unreadableShownMax = 20

/** A new tally. */
export const emptyTally = (): AuditTally => ({
  turns: 0,
  otherSurfaces: 0,
  otherShards: 0,
  violatingTurns: 0,
  violations: 0,
  unreadable: 0,
  unreadableShown: []
})

const isAuditTurn = (value: unknown): value is Turn =>
  isRecord(value) && typeof value["answer"] === "string" && isTurnTrace(value["trace"])

const unreadable = (tally: AuditTally, where: string, why: string) => {
  tally.unreadable++
  if (tally.unreadableShown.length < unreadableShownMax) tally.unreadableShown.push(`${where}: ${why}`)
}

/**
 * Audits one line (`where` is `FILE:LINE`), updating the tally; returns the report lines of its
 * violations. Blank lines are skipped.
 */
export const auditLine = (plan: AuditPlan, tally: AuditTally, line: string, where: string): ReadonlyArray<string> => {
  if (line.trim() === "") return []
  let value: unknown
  try {
    value = JSON.parse(line)
  } catch (error) {
    const why = describeJsonError(line, String(error)).replace(/ at line 1, column /, " at column ")
    unreadable(tally, where, `not valid JSON: ${inert(why)}`)
    return []
  }
  let turn: Turn
  if (isAuditTurn(value)) {
    turn = value
  } else {
    const decoded = decodeValue(AuditTurn, where, value, "lenient")
    if (Either.isLeft(decoded)) {
      const [first] = decoded.left.problems
      unreadable(tally, where, first === undefined ? "not a recorded turn" : inert(`${first.path}: ${first.message}`))
      return []
    }
    turn = decoded.right
  }
  if (turn.trace.surface !== plan.surfaceName) {
    tally.otherSurfaces++
    return []
  }
  if (plan.shard !== undefined && !inShard(plan.shard, turn.trace.turnId)) {
    tally.otherShards++
    return []
  }
  tally.turns++
  const found: Array<string> = []
  for (const expectation of plan.expectations) {
    const verdict = gradeExpectation(expectation, turn, plan.surface)
    if (!verdict.passed) found.push(`✗ ${inert(shown(turn.trace.turnId))}  ${expectation.kind}  ${inert(verdict.fact ?? "failed")}`)
  }
  if (found.length > 0) {
    tally.violatingTurns++
    tally.violations += found.length
  }
  return found
}

/** The audit's closing summary. */
export const auditSummary = (plan: AuditPlan, tally: AuditTally): string => {
  const parts = [
    `${tally.violations} violation${tally.violations === 1 ? "" : "s"} in ${tally.violatingTurns} turn${
      tally.violatingTurns === 1 ? "" : "s"
    }`,
    ...(tally.otherSurfaces > 0 ? [`${tally.otherSurfaces} turns of other surfaces skipped`] : []),
    ...(plan.shard !== undefined ? [`${tally.otherShards} turns in other shards`] : []),
    ...(tally.unreadable > 0 ? [`${tally.unreadable} unreadable lines`] : [])
  ]
  return `audited ${tally.turns} turns of ${inert(plan.surfaceName)} against ${plan.expectations.length} expectation${
    plan.expectations.length === 1 ? "" : "s"
  }: ${parts.join(" · ")}`
}
