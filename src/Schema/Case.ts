/**
 * The golden set: one question per case, for one surface, and the expectations its turn must meet.
 * Version 1 of the cases-file contract (docs/contract.md).
 */
import { Schema } from "effect"
import { isRecord } from "./Decode.js"

const isNonBlank = (value: unknown): value is string => typeof value === "string" && value.trim().length > 0
const isCaseId = (value: string): boolean => /^[a-z0-9][a-z0-9._-]*$/.test(value) && value.length <= 128

/** A string with at least one non-blank character. */
export const NonBlankString = Schema.String.pipe(
  Schema.filter((s) => isNonBlank(s), { message: () => "expected a non-empty string" })
)

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

/**
 * Marks an expectation `eval propose` drafted from a rated turn, saying why ("violated by turn t: …",
 * "held by turn t"); deleting the mark accepts the draft. It never changes how the expectation grades.
 */
const drafted = Schema.optionalWith(NonBlankString, { exact: true })

/** Every citation matched an item the assistant surfaced. */
export const CitesOnlySurfaced = Schema.Struct({ kind: Schema.Literal("cites-only-surfaced"), drafted })
/** A surfaced citation with exactly this path exists. */
export const Cites = Schema.Struct({ kind: Schema.Literal("cites"), path: NonBlankString, drafted })
/** The turn cites nothing. */
export const NoCitations = Schema.Struct({ kind: Schema.Literal("no-citations"), drafted })
/** The tool ran at least once without error. */
export const CallsTool = Schema.Struct({ kind: Schema.Literal("calls-tool"), tool: NonBlankString, drafted })
/** At least one tool ran without error. */
export const CallsAnyTool = Schema.Struct({ kind: Schema.Literal("calls-any-tool"), drafted })
/** The tool was never executed, not even in an attempt that errored. */
export const NeverCalls = Schema.Struct({ kind: Schema.Literal("never-calls"), tool: NonBlankString, drafted })

const textCheck = <K extends string>(kind: K) =>
  Schema.Struct({
    kind: Schema.Literal(kind),
    text: Schema.String.pipe(Schema.minLength(1, { message: () => "expected a non-empty text to look for" })),
    ignoreCase: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    drafted
  })
/** The answer contains the text. */
export const AnswerIncludes = textCheck("answer-includes")
/** The answer does not contain the text. */
export const AnswerExcludes = textCheck("answer-excludes")
/** The turn left a proposal, ended awaiting approval, and no gated tool ran without error. */
export const StopsAtApproval = Schema.Struct({ kind: Schema.Literal("stops-at-approval"), drafted })
/** The turn's outcome equals `is`. */
export const Outcome = Schema.Struct({ kind: Schema.Literal("outcome"), is: NonBlankString, drafted })

/** One fact a turn must show; `kind` selects the grader. */
export const Expectation = Schema.Union(
  CitesOnlySurfaced,
  Cites,
  NoCitations,
  CallsTool,
  CallsAnyTool,
  NeverCalls,
  AnswerIncludes,
  AnswerExcludes,
  StopsAtApproval,
  Outcome
)
/** One fact a turn must show; `kind` selects the grader. */
export type Expectation = typeof Expectation.Type
/** The name of an expectation kind. */
export type ExpectationKind = Expectation["kind"]

/** The name of an expectation kind, as results carry it. */
export const ExpectationKind = Schema.Literal(
  "cites-only-surfaced",
  "cites",
  "no-citations",
  "calls-tool",
  "calls-any-tool",
  "never-calls",
  "answer-includes",
  "answer-excludes",
  "stops-at-approval",
  "outcome"
)

/** Every expectation kind, in the order the contract lists them. */
export const expectationKinds: ReadonlyArray<ExpectationKind> = ExpectationKind.literals

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

const onlyKeys = (record: Record<string, unknown>, allowed: ReadonlyArray<string>): boolean =>
  Object.keys(record).every((key) => allowed.includes(key))

/** The optional `drafted` mark, or `undefined` when it is present but not a non-blank string. */
const fastDrafted = (value: Record<string, unknown>): { readonly drafted?: string } | undefined => {
  if (!("drafted" in value)) return {}
  const mark = value["drafted"]
  return isNonBlank(mark) ? { drafted: mark } : undefined
}

const fastExpectation = (value: unknown): Expectation | undefined => {
  if (!isRecord(value)) return undefined
  const mark = fastDrafted(value)
  if (mark === undefined) return undefined
  switch (value["kind"]) {
    case "cites-only-surfaced":
    case "no-citations":
    case "calls-any-tool":
    case "stops-at-approval":
      return onlyKeys(value, ["kind", "drafted"]) ? { kind: value["kind"], ...mark } : undefined
    case "cites":
      return onlyKeys(value, ["kind", "path", "drafted"]) && isNonBlank(value["path"])
        ? { kind: "cites", path: value["path"], ...mark }
        : undefined
    case "calls-tool":
    case "never-calls":
      return onlyKeys(value, ["kind", "tool", "drafted"]) && isNonBlank(value["tool"])
        ? { kind: value["kind"], tool: value["tool"], ...mark }
        : undefined
    case "outcome":
      return onlyKeys(value, ["kind", "is", "drafted"]) && isNonBlank(value["is"])
        ? { kind: "outcome", is: value["is"], ...mark }
        : undefined
    case "answer-includes":
    case "answer-excludes": {
      const { ignoreCase = false, text } = value
      return onlyKeys(value, ["kind", "text", "ignoreCase", "drafted"]) && typeof text === "string" && text.length > 0 &&
          typeof ignoreCase === "boolean"
        ? { kind: value["kind"], text, ignoreCase, ...mark }
        : undefined
    }
    default:
      return undefined
  }
}

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
