/**
 * Auditing an archive of turns: every turn of a JSON-lines export (one recorded turn per line) graded
 * against invariant expectations — `cites-only-surfaced`, `never-calls deploy` — as a stream, so an
 * archive of any size is read in constant memory. Violations are returned with their facts and turn
 * ids as they are found (`Scorecard/Render/Audit.ts` writes them as text); unreadable lines are
 * located by file, line and JSON path.
 */
import { Either, Schema } from "effect"
import { gradeExpectation } from "../Graders/index.js"
import type { AuditPlan, AuditTally, Violation } from "../Schema/Audit.js"
import { decodeValue, isRecord } from "../Schema/Decode.js"
import { inert } from "../Schema/Inert.js"
import { describeJsonError } from "../Schema/JsonSyntax.js"
import { isTurnTrace, type Turn, TurnTrace } from "../Schema/Trace.js"
import { inShard } from "./Shard.js"

export type { AuditPlan, AuditTally, Violation } from "../Schema/Audit.js"

/** A turn as an export holds it: its answer and trace (a case id or question, when present, is not needed). */
const AuditTurn = Schema.Struct({ answer: Schema.String, trace: TurnTrace })

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
 * Audits one line (`where` is `FILE:LINE`), updating the tally; returns the violations of its turn.
 * Blank lines are skipped.
 */
export const auditLine = (
  plan: AuditPlan,
  tally: AuditTally,
  line: string,
  where: string
): ReadonlyArray<Violation> => {
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
  const found: Array<Violation> = []
  for (const expectation of plan.expectations) {
    const verdict = gradeExpectation(expectation, turn, plan.surface)
    if (!verdict.passed) found.push({ turnId: turn.trace.turnId, kind: expectation.kind, fact: verdict.fact })
  }
  if (found.length > 0) {
    tally.violatingTurns++
    tally.violations += found.length
  }
  return found
}
