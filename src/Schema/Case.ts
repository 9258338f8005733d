/**
 * The golden set: one question per case, for one surface, and the expectations its turn must meet.
 * Version 1 of the cases-file contract (docs/contract.md).
 */
import { Schema } from "effect"
import { Expectation, fastExpectation } from "../Graders/Kinds.js"
import { isRecord } from "./Decode.js"
import { isNonBlank, NonBlankString, onlyKeys } from "./Fields.js"

export { Expectation, ExpectationKind, expectationKinds, type ExpectationOf } from "../Graders/Kinds.js"
export { NonBlankString } from "./Fields.js"

const isCaseId = (value: string): boolean => /^[a-z0-9][a-z0-9._-]*$/.test(value) && value.length <= 128

/** A case id: it names a recorded-turn file, so it can never carry a path separator or start with a dot. */
export const CaseId = Schema.String.pipe(
  Schema.filter(
    (s) =>
      isCaseId(s) ||
      `expected a case id: lower-case letters, digits, ".", "_" or "-", starting with a letter or digit, at most 128 characters; got ${
        JSON.stringify(s.slice(0, 140))
      }`
  )
)

/** One golden-set case. */
export const Case = Schema.Struct({
  id: CaseId,
  surface: NonBlankString,
  question: NonBlankString,
  guards: NonBlankString,
  expect: Schema.Array(Expectation).pipe(
    Schema.minItems(1, { message: () => "expected at least one expectation" })
  ),
  tags: Schema.optionalWith(Schema.Array(NonBlankString), { exact: true })
})
/** One golden-set case. */
export type Case = typeof Case.Type

/** The cases file: `{"version": 1, "cases": [Case…]}`. */
export const CasesFile = Schema.Struct({
  version: Schema.Literal(1),
  cases: Schema.Array(Case).pipe(Schema.minItems(1, { message: () => "expected at least one case" }))
})
/** The cases file: `{"version": 1, "cases": [Case…]}`. */
export type CasesFile = typeof CasesFile.Type

// ---------------------------------------------------------------------------------------------------
// A fast decoder for the hot path (a golden set of thousands of cases): the same rules as the schemas
// above, written out, with the same defaults filled in. It may give up on what the schemas accept
// (they then decode it, with their precise problems), never accept what they reject; a property test
// holds it to that and to decoding to the same value.

const fastCase = (value: unknown): Case | undefined => {
  if (!isRecord(value) || !onlyKeys(value, ["id", "surface", "question", "guards", "expect", "tags"])) return undefined
  const { expect, guards, id, question, surface, tags } = value
  if (typeof id !== "string" || !isCaseId(id)) return undefined
  if (!isNonBlank(surface) || !isNonBlank(question) || !isNonBlank(guards)) return undefined
  if (!Array.isArray(expect) || expect.length === 0) return undefined
  if ("tags" in value && !(Array.isArray(tags) && tags.every(isNonBlank))) return undefined
  const expectations: Array<Expectation> = []
  for (const e of expect) {
    const decoded = fastExpectation(e)
    if (decoded === undefined) return undefined
    expectations.push(decoded)
  }
  const decoded = { id, surface, question, guards, expect: expectations }
  return "tags" in value ? { ...decoded, tags: tags as ReadonlyArray<string> } : decoded
}

/** Decodes a cases file without the schema when it is valid; `undefined` leaves it to the schema. */
export const fastCasesFile = (value: unknown): CasesFile | undefined => {
  if (!isRecord(value) || !onlyKeys(value, ["version", "cases"]) || value["version"] !== 1) return undefined
  const cases = value["cases"]
  if (!Array.isArray(cases) || cases.length === 0) return undefined
  const decoded: Array<Case> = []
  for (const c of cases) {
    const one = fastCase(c)
    if (one === undefined) return undefined
    decoded.push(one)
  }
  return { version: 1, cases: decoded }
}
