/**
 * The committed floor: `{"floor": 0.0–1.0, "repeat"?: K, "_comment"?: [lines…]}`. It only ever moves
 * up, and each raise is logged in `_comment`. `repeat` is the K of the `--repeat` runs it was set by
 * (absent: 1); runs with another K are neither held to it nor move it.
 */
import { Schema } from "effect"

/** One move of the floor, as the ratchet logs it: when, from what (`null` when it was first set), to what, by which run. */
export const FloorChange = Schema.Struct({
  date: Schema.String,
  from: Schema.NullOr(Schema.Number),
  to: Schema.Number,
  passed: Schema.Int.pipe(Schema.nonNegative()),
  total: Schema.Int.pipe(Schema.nonNegative())
})
/** One move of the floor. */
export type FloorChange = typeof FloorChange.Type

/** The committed floor and the log of its raises. */
export const Baseline = Schema.Struct({
  floor: Schema.Number.pipe(
    Schema.filter((n) => Number.isFinite(n) && n >= 0 && n <= 1, {
      message: (issue) => `expected a floor between 0 and 1, got ${String(issue.actual)}`
    })
  ),
  repeat: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)), { exact: true }),
  _comment: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  /** The floor's moves, oldest first, as the ratchet writes them beside the `_comment` lines. */
  history: Schema.optionalWith(Schema.Array(FloorChange), { exact: true })
})
/** The committed floor and the log of its raises. */
export type Baseline = typeof Baseline.Type
