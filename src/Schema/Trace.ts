/**
 * What a turn recorded: the tools that ran, the citations and whether each matched a surfaced item,
 * the outcome and any pending proposal. Graders read only this and the answer text.
 */
import { Schema } from "effect"
import { isRecord, routedBy } from "./Decode.js"

/** A citation in the answer; `path` and `quote` matches are surfaced, `unsurfaced` was recalled. */
export const Citation = Schema.Struct({
  path: Schema.String,
  quote: Schema.optionalWith(Schema.String, { exact: true }),
  match: Schema.Literal("path", "quote", "unsurfaced")
})
/** A citation in the answer. */
export type Citation = typeof Citation.Type

/**
 * One execution of a tool; it errored when `error` is a non-empty string. `unresolved: true` marks a call
 * the wire shows started but never resolved (no result, no error): an attempt, though nothing says how it ended.
 */
export const ToolExecution = Schema.Struct({
  tool: Schema.String,
  input: Schema.optionalWith(Schema.Unknown, { exact: true }),
  output: Schema.optionalWith(Schema.Unknown, { exact: true }),
  error: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  unresolved: Schema.optionalWith(Schema.Boolean, { exact: true }),
  durationMs: Schema.optionalWith(Schema.Number, { exact: true })
})
/** One execution of a tool. */
export type ToolExecution = typeof ToolExecution.Type

/** A change the agent proposed and left for a person to approve. */
export const Proposal = Schema.Struct({
  id: Schema.String,
  summary: Schema.optionalWith(Schema.String, { exact: true }),
  status: Schema.optionalWith(Schema.String, { exact: true }),
  actions: Schema.optionalWith(Schema.Array(Schema.Unknown), { exact: true })
})
/** A change the agent proposed and left for a person to approve. */
export type Proposal = typeof Proposal.Type

/** A token count: a whole number, zero or more. */
const TokenCount = Schema.Number.pipe(
  Schema.filter((n) => Number.isSafeInteger(n) && n >= 0, {
    message: () => "expected a whole number of tokens, 0 or more"
  })
)

/** The tokens a turn's model calls used, summed over the turn: what `within-budget` grades. */
export const Usage = Schema.Struct({ inputTokens: TokenCount, outputTokens: TokenCount })
/** The tokens a turn's model calls used. */
export type Usage = typeof Usage.Type

/**
 * Token counts summed into a usage: each pair's input and output count, where a count that is no whole
 * number of 0 or more is ignored and a side nothing counts is 0; none when no pair counts anything. Far
 * beyond any budget, a sum stops where JavaScript still holds it exactly.
 */
export const summedUsage = (counts: Iterable<readonly [unknown, unknown]>): Usage | undefined => {
  const count = (value: unknown) =>
    typeof value === "number" && Number.isSafeInteger(value) && value >= 0 ? value : undefined
  let inputTokens = 0
  let outputTokens = 0
  let counted = false
  for (const [input, output] of counts) {
    const i = count(input)
    const o = count(output)
    if (i === undefined && o === undefined) continue
    inputTokens = Math.min(inputTokens + (i ?? 0), Number.MAX_SAFE_INTEGER)
    outputTokens = Math.min(outputTokens + (o ?? 0), Number.MAX_SAFE_INTEGER)
    counted = true
  }
  return counted ? { inputTokens, outputTokens } : undefined
}

/** The trace one turn recorded. */
export const TurnTrace = Schema.Struct({
  turnId: Schema.String,
  surface: Schema.String,
  outcome: Schema.String,
  citations: Schema.Array(Citation),
  toolExecutions: Schema.Array(ToolExecution),
  proposal: Schema.NullOr(Proposal),
  usage: Schema.optionalWith(Usage, { exact: true })
})
/** The trace one turn recorded. */
export type TurnTrace = typeof TurnTrace.Type

/** A turn as the graders see it: the answer text and its trace. */
export interface Turn {
  readonly answer: string
  readonly trace: TurnTrace
}

/** A recorded turn, one file per case: `{"caseId", "question", "answer", "trace"}`. */
export const RecordedTurn = Schema.Struct({
  caseId: Schema.String,
  question: Schema.String,
  answer: Schema.String,
  trace: TurnTrace
})
/** A recorded turn, one file per case. */
export type RecordedTurn = typeof RecordedTurn.Type

/** One step of a recorded conversation: what the step did (`ask`, `approve` or `deny`), the answer and the trace. */
export const RecordedStep = Schema.Struct({
  ask: Schema.optionalWith(Schema.String, { exact: true }),
  approve: Schema.optionalWith(Schema.Literal(true), { exact: true }),
  deny: Schema.optionalWith(Schema.String, { exact: true }),
  answer: Schema.String,
  trace: TurnTrace
})
/** One step of a recorded conversation. */
export type RecordedStep = typeof RecordedStep.Type

/** The recorded turns of a conversation case, one file per case: `{"caseId", "turns": [RecordedStep…]}`, in order. */
export const RecordedConversation = Schema.Struct({ caseId: Schema.String, turns: Schema.Array(RecordedStep) })
/** The recorded turns of a conversation case. */
export type RecordedConversation = typeof RecordedConversation.Type

/** A recording of either kind, told apart by whether it holds `turns`. */
export const Recording = routedBy<RecordedTurn | RecordedConversation, unknown>(
  (value) =>
    ("turns" in value ? RecordedConversation : RecordedTurn) as Schema.Schema<
      RecordedTurn | RecordedConversation,
      unknown
    >,
  Schema.Union(RecordedTurn, RecordedConversation) as unknown as Schema.Schema<
    RecordedTurn | RecordedConversation,
    unknown
  >,
  "expected a recorded turn: an object"
)

/** A call the wire shows started and never resolved: an attempt with no result and no error. */
export const unresolved = (execution: ToolExecution): boolean => execution.unresolved === true

/** What a call's result was not shown for, as a fact names it. */
export const noResult = "no result on the wire"

/**
 * A tool execution did not succeed when its `error` is a non-empty string, or when the wire never
 * resolved it: either way nothing it returned can be taken as its result.
 */
export const errored = (execution: ToolExecution): boolean =>
  (typeof execution.error === "string" && execution.error.length > 0) || unresolved(execution)

/** A citation is surfaced when it matched a surfaced item by path or by quote. */
export const surfaced = (citation: Citation): boolean => citation.match !== "unsurfaced"

// ---------------------------------------------------------------------------------------------------
// A fast check for the hot path (grading thousands of recordings): the same rules as the schemas
// above, written out, so that a valid recording costs no schema walk. It may reject what the schemas
// accept (that value is then decoded by them), never the reverse; a property test holds it to that.

const optionalString = (record: Record<string, unknown>, key: string): boolean =>
  !(key in record) || typeof record[key] === "string"

const isCitation = (value: unknown): boolean =>
  isRecord(value) && typeof value["path"] === "string" && optionalString(value, "quote") &&
  (value["match"] === "path" || value["match"] === "quote" || value["match"] === "unsurfaced")

const isToolExecution = (value: unknown): boolean =>
  isRecord(value) && typeof value["tool"] === "string" &&
  (!("error" in value) || value["error"] === null || typeof value["error"] === "string") &&
  (!("unresolved" in value) || typeof value["unresolved"] === "boolean") &&
  (!("durationMs" in value) || typeof value["durationMs"] === "number")

const isProposal = (value: unknown): boolean =>
  value === null ||
  (isRecord(value) && typeof value["id"] === "string" && optionalString(value, "summary") &&
    optionalString(value, "status") && (!("actions" in value) || Array.isArray(value["actions"])))

const isTokenCount = (value: unknown): boolean => typeof value === "number" && Number.isSafeInteger(value) && value >= 0

const isUsage = (value: unknown): boolean =>
  isRecord(value) && isTokenCount(value["inputTokens"]) && isTokenCount(value["outputTokens"])

/** Whether a value is a TurnTrace, checked without the schema. */
export const isTurnTrace = (value: unknown): value is TurnTrace =>
  isRecord(value) && typeof value["turnId"] === "string" && typeof value["surface"] === "string" &&
  typeof value["outcome"] === "string" && "proposal" in value && isProposal(value["proposal"]) &&
  (!("usage" in value) || isUsage(value["usage"])) &&
  Array.isArray(value["citations"]) && value["citations"].every(isCitation) &&
  Array.isArray(value["toolExecutions"]) && value["toolExecutions"].every(isToolExecution)

/** Whether a value is a RecordedTurn, checked without the schema. */
export const isRecordedTurn = (value: unknown): value is RecordedTurn =>
  isRecord(value) && typeof value["caseId"] === "string" && typeof value["question"] === "string" &&
  typeof value["answer"] === "string" && isTurnTrace(value["trace"])

/** `isTurnTrace` as a fast decoder: a trace is used as it is. */
export const fastTurnTrace = (value: unknown): TurnTrace | undefined => isTurnTrace(value) ? value : undefined

/** `isRecordedTurn` as a fast decoder: a recording is used as it is. */
export const fastRecordedTurn = (value: unknown): RecordedTurn | undefined => isRecordedTurn(value) ? value : undefined

const isRecordedStep = (value: unknown): boolean =>
  isRecord(value) && typeof value["answer"] === "string" && isTurnTrace(value["trace"]) &&
  (!("ask" in value) || typeof value["ask"] === "string") && (!("approve" in value) || value["approve"] === true) &&
  (!("deny" in value) || typeof value["deny"] === "string")

/** A recording of either kind checked without the schema: used as it is. */
export const fastRecording = (value: unknown): RecordedTurn | RecordedConversation | undefined =>
  isRecord(value) && "turns" in value
    ? typeof value["caseId"] === "string" && Array.isArray(value["turns"]) && value["turns"].every(isRecordedStep)
      ? value as RecordedConversation
      : undefined
    : fastRecordedTurn(value)
