/**
 * The golden set: one question per case, for one surface, and the expectations its turn must meet.
 * Version 1 of the cases-file contract (docs/contract.md).
 */
import { Schema } from "effect"

/** A string with at least one non-blank character. */
export const NonBlankString = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "expected a non-empty string" })
)

/** A case id: it names a recorded-turn file, so it can never carry a path separator or start with a dot. */
export const CaseId = Schema.String.pipe(
  Schema.filter(
    (s) =>
      /^[a-z0-9][a-z0-9._-]*$/.test(s) && s.length <= 128 ||
      `expected a case id: lower-case letters, digits, ".", "_" or "-", starting with a letter or digit, at most 128 characters; got ${
        JSON.stringify(s.slice(0, 140))
      }`
  )
)

/** Every citation matched an item the assistant surfaced. */
export const CitesOnlySurfaced = Schema.Struct({ kind: Schema.Literal("cites-only-surfaced") })
/** A surfaced citation with exactly this path exists. */
export const Cites = Schema.Struct({ kind: Schema.Literal("cites"), path: NonBlankString })
/** The turn cites nothing. */
export const NoCitations = Schema.Struct({ kind: Schema.Literal("no-citations") })
/** The tool ran at least once without error. */
export const CallsTool = Schema.Struct({ kind: Schema.Literal("calls-tool"), tool: NonBlankString })
/** At least one tool ran without error. */
export const CallsAnyTool = Schema.Struct({ kind: Schema.Literal("calls-any-tool") })
/** The tool was never executed, not even in an attempt that errored. */
export const NeverCalls = Schema.Struct({ kind: Schema.Literal("never-calls"), tool: NonBlankString })

const textCheck = <K extends string>(kind: K) =>
  Schema.Struct({
    kind: Schema.Literal(kind),
    text: Schema.String.pipe(Schema.minLength(1, { message: () => "expected a non-empty text to look for" })),
    ignoreCase: Schema.optionalWith(Schema.Boolean, { default: () => false })
  })
/** The answer contains the text. */
export const AnswerIncludes = textCheck("answer-includes")
/** The answer does not contain the text. */
export const AnswerExcludes = textCheck("answer-excludes")
/** The turn left a proposal, ended awaiting approval, and no gated tool ran without error. */
export const StopsAtApproval = Schema.Struct({ kind: Schema.Literal("stops-at-approval") })
/** The turn's outcome equals `is`. */
export const Outcome = Schema.Struct({ kind: Schema.Literal("outcome"), is: NonBlankString })

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
