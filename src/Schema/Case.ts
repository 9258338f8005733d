/**
 * The golden set: one question per case, for one surface, and the expectations its turn must meet.
 * Version 1 of the cases-file contract (docs/contract.md).
 */
import { Schema } from "effect"
import { Expectation, fastExpectation } from "../Graders/Kinds.js"
import { isRecord, routedBy } from "./Decode.js"
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

const Expectations = Schema.Array(Expectation).pipe(
  Schema.minItems(1, { message: () => "expected at least one expectation" })
)

/** A case of one question: the question and the expectations its turn must meet. */
export const QuestionCase = Schema.Struct({
  id: CaseId,
  surface: NonBlankString,
  question: NonBlankString,
  guards: NonBlankString,
  expect: Expectations,
  tags: Schema.optionalWith(Schema.Array(NonBlankString), { exact: true })
})
/** A case of one question. */
export type QuestionCase = typeof QuestionCase.Type

/** A step that asks: a user message in the conversation so far. */
export const AskStep = Schema.Struct({ ask: NonBlankString, expect: Expectations })
/** A step that approves the proposal the turn before left. */
export const ApproveStep = Schema.Struct({
  approve: Schema.Literal(true).annotations({ message: () => "expected true (to deny, write \"deny\": REASON)" }),
  expect: Expectations
})
/** A step that denies the proposal the turn before left, with the reason a person gives. */
export const DenyStep = Schema.Struct({ deny: NonBlankString, expect: Expectations })

/** A step of a conversation. */
export type Step = typeof AskStep.Type | typeof ApproveStep.Type | typeof DenyStep.Type

/** What a step does: `ask`, `approve` or `deny`. */
export type StepKind = "ask" | "approve" | "deny"

/** What a step does, without its expectations: the text asked, an approval, or the reason denied. */
export type StepAction = { readonly ask: string } | { readonly approve: true } | { readonly deny: string }

/** A step's action, as a recording and a draft write it. */
export const stepAction = (step: Step): StepAction =>
  "ask" in step ? { ask: step.ask } : "approve" in step ? { approve: true } : { deny: step.deny }

/** What a step does. */
export const stepKind = (step: Step): StepKind => "ask" in step ? "ask" : "approve" in step ? "approve" : "deny"

/**
 * A step of a conversation: routed by the key it holds (`ask`, `approve` or `deny`), so that a problem
 * names that step's own fields, not every shape a step could have.
 */
export const Step = routedBy<Step, unknown>(
  (value) =>
    ("ask" in value ? AskStep : "approve" in value ? ApproveStep : "deny" in value ? DenyStep : undefined) as
      | Schema.Schema<Step, unknown>
      | undefined,
  Schema.Union(AskStep, ApproveStep, DenyStep) as unknown as Schema.Schema<Step, unknown>,
  `expected a step: {"ask": TEXT, "expect": […]}, {"approve": true, "expect": […]} or {"deny": REASON, "expect": […]}`
)

/** A case of several turns in one conversation: follow-up questions, and answers to the proposals left. */
export const ConversationCase = Schema.Struct({
  id: CaseId,
  surface: NonBlankString,
  guards: NonBlankString,
  turns: Schema.Array(Step).pipe(Schema.minItems(1, { message: () => "expected at least one step" })),
  tags: Schema.optionalWith(Schema.Array(NonBlankString), { exact: true })
})
/** A case of several turns in one conversation. */
export type ConversationCase = typeof ConversationCase.Type

/**
 * One golden-set case: one question (`question` + `expect`) or a conversation (`turns`). Which it is
 * goes by whether it holds `turns`, so that a problem names that shape's own fields.
 */
export const Case = routedBy<QuestionCase | ConversationCase, unknown>(
  (value) =>
    ("turns" in value ? ConversationCase : QuestionCase) as Schema.Schema<QuestionCase | ConversationCase, unknown>,
  Schema.Union(QuestionCase, ConversationCase) as unknown as Schema.Schema<QuestionCase | ConversationCase, unknown>,
  "expected a case: an object"
)
/** One golden-set case. */
export type Case = QuestionCase | ConversationCase

/** Whether a case is a conversation of several steps. */
export const isConversation = (testCase: Case): testCase is ConversationCase => "turns" in testCase

/** A case's steps: a question case is one ask. */
export const stepsOf = (testCase: Case): ReadonlyArray<Step> =>
  isConversation(testCase) ? testCase.turns : [{ ask: testCase.question, expect: testCase.expect }]

/** The question a case opens with: its question, or its first step's. */
export const openingQuestion = (testCase: Case): string => {
  const [first] = stepsOf(testCase)
  return first !== undefined && "ask" in first ? first.ask : ""
}

/** Every expectation of a case, over all its steps. */
export const expectationsOf = (testCase: Case): ReadonlyArray<Expectation> =>
  isConversation(testCase) ? testCase.turns.flatMap((s) => s.expect) : testCase.expect

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

/** A non-empty list each of whose values `decode` reads, read; `undefined` when it is none or one is not read. */
const fastList = <A>(values: unknown, decode: (value: unknown) => A | undefined): Array<A> | undefined => {
  if (!Array.isArray(values) || values.length === 0) return undefined
  const decoded: Array<A> = []
  for (const value of values) {
    const one = decode(value)
    if (one === undefined) return undefined
    decoded.push(one)
  }
  return decoded
}

const fastExpectations = (expect: unknown): Array<Expectation> | undefined => fastList(expect, fastExpectation)

const fastStep = (value: unknown): Step | undefined => {
  if (!isRecord(value)) return undefined
  const expect = fastExpectations(value["expect"])
  if (expect === undefined) return undefined
  if (onlyKeys(value, ["ask", "expect"]) && isNonBlank(value["ask"])) return { ask: value["ask"], expect }
  if (onlyKeys(value, ["approve", "expect"]) && value["approve"] === true) return { approve: true, expect }
  if (onlyKeys(value, ["deny", "expect"]) && isNonBlank(value["deny"])) return { deny: value["deny"], expect }
  return undefined
}

const fastCase = (value: unknown): Case | undefined => {
  if (!isRecord(value)) return undefined
  const conversation = "turns" in value
  const keys = conversation
    ? ["id", "surface", "guards", "turns", "tags"]
    : ["id", "surface", "question", "guards", "expect", "tags"]
  if (!onlyKeys(value, keys)) return undefined
  const { guards, id, surface, tags } = value
  if (typeof id !== "string" || !isCaseId(id)) return undefined
  if (!isNonBlank(surface) || !isNonBlank(guards)) return undefined
  if ("tags" in value && !(Array.isArray(tags) && tags.every(isNonBlank))) return undefined
  const tagged = "tags" in value ? { tags: tags as ReadonlyArray<string> } : {}
  if (conversation) {
    const turns = fastList(value["turns"], fastStep)
    return turns === undefined ? undefined : { id, surface, guards, turns, ...tagged }
  }
  const question = value["question"]
  const expect = fastExpectations(value["expect"])
  if (!isNonBlank(question) || expect === undefined) return undefined
  return { id, surface, question, guards, expect, ...tagged }
}

/** Decodes a cases file without the schema when it is valid; `undefined` leaves it to the schema. */
export const fastCasesFile = (value: unknown): CasesFile | undefined => {
  if (!isRecord(value) || !onlyKeys(value, ["version", "cases"]) || value["version"] !== 1) return undefined
  const cases = fastList(value["cases"], fastCase)
  return cases === undefined ? undefined : { version: 1, cases }
}

/** The cases of one question among `cases`, in order. */
export const questionCases = (cases: ReadonlyArray<Case>): ReadonlyArray<QuestionCase> =>
  cases.filter((c): c is QuestionCase => !isConversation(c))
