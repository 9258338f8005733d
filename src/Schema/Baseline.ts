/**
 * The committed floor: `{"floor": 0.0–1.0, "_comment"?: [lines…]}`. It only ever moves up, and each
 * raise is logged in `_comment`.
 */
import { Schema } from "effect"

/** The committed floor and the log of its raises. */
export const Baseline = Schema.Struct({
  floor: Schema.Number.pipe(
    Schema.filter((n) => Number.isFinite(n) && n >= 0 && n <= 1, {
      message: (issue) => `expected a floor between 0 and 1, got ${String(issue.actual)}`
    })
  ),
  _comment: Schema.optionalWith(Schema.Array(Schema.String), { exact: true })
})
/** The committed floor and the log of its raises. */
export type Baseline = typeof Baseline.Type
