/**
 * The committed floor: `{"cases"?: FILE, "floor": 0.0–1.0, "repeat"?: K, "_comment"?: [lines…],
 * "history"?: [moves…]}`. It only ever moves up, and each raise is logged twice: a line for people in
 * `_comment`, and an entry for programs (a report that charts the floor) in `history`. `repeat` is the
 * K of the `--repeat` runs it was set by (absent: 1); runs with another K are neither held to it nor
 * move it. `cases` is the golden set it belongs to, relative to the baseline's folder (absent: the
 * default cases file there); runs of another set are neither held to it nor move it.
 */
import { Schema } from "effect"
import { plural } from "../Words.js"

/** A rate from 0 to 1, as a floor is. */
const Rate = Schema.Number.pipe(
  Schema.filter((n) => Number.isFinite(n) && n >= 0 && n <= 1, {
    message: (issue) => `expected a floor between 0 and 1, got ${String(issue.actual)}`
  })
)

/** A count of cases. */
const Count = Schema.Int.pipe(Schema.nonNegative())

/** One move of the floor, as the ratchet logs it: when, from what (`null` when it was first set), to what, by which run. */
export const FloorChange = Schema.Struct({
  date: Schema.String.pipe(
    Schema.pattern(/^\d{4}-\d{2}-\d{2}$/, {
      message: (issue) => `expected a date as YYYY-MM-DD, got ${JSON.stringify(issue.actual)}`
    })
  ),
  from: Schema.NullOr(Rate),
  to: Rate,
  passed: Count,
  total: Count
}).pipe(
  Schema.filter((change) =>
    change.passed <= change.total ||
    {
      path: ["passed"],
      message: `expected at most the run's total of ${plural(change.total, "case")}, got ${change.passed}`
    }
  )
)
/** One move of the floor. */
export type FloorChange = typeof FloorChange.Type

/** The committed floor and the log of its raises. */
export const Baseline = Schema.Struct({
  /** The cases file of the golden set the floor belongs to, relative to the baseline's folder. */
  cases: Schema.optionalWith(
    Schema.String.pipe(Schema.filter((path) => path.trim() !== "" && !path.includes("\0"), {
      message: (issue) =>
        `expected the path of a cases file, relative to the baseline's folder, got ${JSON.stringify(issue.actual)}`
    })),
    { exact: true }
  ),
  floor: Rate,
  repeat: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)), { exact: true }),
  _comment: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  /** The floor's moves, oldest first, as the ratchet writes them beside the `_comment` lines. */
  history: Schema.optionalWith(Schema.Array(FloorChange), { exact: true })
})
/** The committed floor and the log of its raises. */
export type Baseline = typeof Baseline.Type
