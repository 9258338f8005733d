/**
 * The results file a run writes (`--json FILE`), version 1: the verdict of every expectation of every
 * case in golden-set order, the pass rate, the floor it was held to and the fingerprint of the case set.
 */
import { Schema } from "effect"
import { ExpectationKind } from "./Case.js"

/** The verdict of one expectation; `fact` names what failed it. */
export const ExpectationResult = Schema.Struct({
  kind: ExpectationKind,
  passed: Schema.Boolean,
  fact: Schema.optionalWith(Schema.String, { exact: true })
})
/** The verdict of one expectation. */
export type ExpectationResult = typeof ExpectationResult.Type

/** The verdict of one case; `error` says why its turn could not be obtained (it then has no expectations). */
export const CaseResult = Schema.Struct({
  id: Schema.String,
  surface: Schema.String,
  passed: Schema.Boolean,
  turnId: Schema.optionalWith(Schema.String, { exact: true }),
  error: Schema.optionalWith(Schema.String, { exact: true }),
  expectations: Schema.Array(ExpectationResult)
})
/** The verdict of one case. */
export type CaseResult = typeof CaseResult.Type

const Rate = Schema.Number.pipe(Schema.between(0, 1))
const Count = Schema.Int.pipe(Schema.nonNegative())

/**
 * A whole run. `passed` is the verdict (pass rate at or above the floor); both are `null` when no floor
 * is committed yet. `caseSet` fingerprints the cases the run covered.
 */
export const RunResult = Schema.Struct({
  version: Schema.Literal(1),
  passRate: Rate,
  floor: Schema.NullOr(Rate),
  passed: Schema.NullOr(Schema.Boolean),
  total: Count,
  passedCount: Count,
  caseSet: Schema.String.pipe(Schema.pattern(/^sha256:[0-9a-f]{64}$/)),
  cases: Schema.Array(CaseResult)
})
/** A whole run. */
export type RunResult = typeof RunResult.Type
