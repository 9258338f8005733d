/**
 * The field types the files of the contract share, and the checks the fast decoders write out for
 * them: a non-blank string, the `drafted` mark of an expectation, a whole number, a list of names.
 */
import { Schema } from "effect"

/** Whether a value is a string with at least one non-blank character. */
export const isNonBlank = (value: unknown): value is string => typeof value === "string" && value.trim().length > 0

/** A string with at least one non-blank character. */
export const NonBlankString = Schema.String.pipe(
  Schema.filter((s) => isNonBlank(s), { message: () => "expected a non-empty string" })
)

/**
 * Marks an expectation `eval propose` drafted from a rated turn, saying why ("violated by turn t: …",
 * "held by turn t"); deleting the mark accepts the draft. It never changes how the expectation grades.
 */
export const drafted = Schema.optionalWith(NonBlankString, { exact: true })

/** Whether a value is a whole number of at least `least`. */
export const isWholeNumber = (value: unknown, least: number): value is number =>
  typeof value === "number" && Number.isSafeInteger(value) && value >= least

/** A whole number of at least `least`, with what it counts in the message. */
export const WholeNumber = (least: number, what: string) =>
  Schema.Number.pipe(
    Schema.filter((n) => isWholeNumber(n, least), {
      message: () => `expected a whole number of ${what}, ${least} or more`
    })
  )

/** A list of at least `least` non-blank names: a list of `plural`, with the message for too few. */
export const Names = (least: number, plural: string, tooFew: string) =>
  Schema.Array(NonBlankString).annotations({ identifier: `a list of ${plural}` }).pipe(
    Schema.minItems(least, { message: () => tooFew })
  )

/** Whether a value is a list of at least `least` non-blank names. */
export const isNames = (value: unknown, least: number): value is ReadonlyArray<string> =>
  Array.isArray(value) && value.length >= least && value.every(isNonBlank)

/** Whether a record has no keys but `allowed`. */
export const onlyKeys = (record: Record<string, unknown>, allowed: ReadonlyArray<string>): boolean =>
  Object.keys(record).every((key) => allowed.includes(key))
