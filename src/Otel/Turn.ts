/**
 * A read turn made into the trace the graders read, by its surface's rules: the surfaced items are the
 * identifiers in successful tool results and retrieved documents; the citations are the matches of the
 * surface's citation pattern and prefixes in the answer, each `path` when it equals a surfaced item
 * and `unsurfaced` otherwise; the outcome is `error`, `awaiting-approval` (with the proposal) or
 * `answered`; the usage is the read turn's, when its spans counted tokens. Pure.
 */
import { Either } from "effect"
import { identifiersIn, matchCitations, proposalOfResult } from "../Evidence/Derive.js"
import type { ResolvedEvidence } from "../Evidence/Rules.js"
import type { Proposal, ToolExecution, Turn } from "../Schema/Trace.js"
import type { ReadTurn, ToolCall } from "./Conventions.js"

/** Every identifier the turn surfaced: in successful tool results, and in retrieved documents (id, metadata). */
export const surfacedItems = (turn: ReadTurn, fields: ReadonlyArray<string>): Set<string> => {
  const items = new Set<string>()
  for (const call of turn.toolCalls) {
    if (call.error === null && call.output !== undefined) identifiersIn(call.output, fields, items)
  }
  for (const document of turn.retrieved) {
    if (document.id !== undefined && document.id.trim() !== "") items.add(document.id)
    if (document.metadata !== undefined) identifiersIn(document.metadata, fields, items)
  }
  return items
}

/**
 * The proposal tool execution the turn ended on: a successful one among the tool executions that
 * started last (executions that start at the same instant are all last).
 */
const endedOnProposal = (
  calls: ReadonlyArray<ToolCall>,
  proposalTools: ReadonlyArray<string>
): ToolCall | undefined => {
  if (calls.length === 0 || proposalTools.length === 0) return undefined
  const latest = calls.reduce((max, c) => c.start > max ? c.start : max, calls[0]!.start)
  return calls.filter((c) => c.start === latest && c.error === null && proposalTools.includes(c.tool)).at(-1)
}

/** The turn id of a read turn: its trace id and root span id. */
export const turnIdOf = (turn: Pick<ReadTurn, "traceId" | "spanId">): string => `${turn.traceId}:${turn.spanId}`

/**
 * The proposal the calls waiting for approval make: the first call's id (the spans do not record the
 * approval's id), every waiting tool in the summary, each call an action.
 */
const waitingProposal = (waiting: ReadTurn["waiting"]): Proposal | null => {
  const first = waiting[0]
  if (first === undefined) return null
  return {
    id: first.callId,
    summary: waiting.map((call) => call.tool).join(", "),
    actions: waiting.map((call) => ({ tool: call.tool, ...(call.input === undefined ? {} : { input: call.input }) }))
  }
}

/**
 * The graders' turn for a read turn of `surface`, by the surface's rules. The outcome is `error` for a
 * run that failed or never finished (an aborted stream); `awaiting-approval` for one that left calls
 * waiting for approval (their proposal) or ended on a proposal tool; else `answered`. An answer the
 * span tree does not record is empty for a turn that is not answered; for an answered one it is a
 * problem, told as the attribute that is missing (an answer-excludes check must never pass on an
 * unrecorded answer).
 */
export const toTurn = (read: ReadTurn, surface: string, rules: ResolvedEvidence): Either.Either<Turn, string> => {
  const completed = !read.failed && read.finished
  const waiting = completed ? waitingProposal(read.waiting) : null
  const proposalCall = completed && waiting === null ? endedOnProposal(read.toolCalls, rules.proposalTools) : undefined
  const proposal = waiting ??
    (proposalCall === undefined ? null : proposalOfResult(proposalCall.callId, proposalCall.output))
  const outcome = !completed ? "error" : proposal !== null ? "awaiting-approval" : "answered"
  if (read.answer === undefined && outcome === "answered") {
    return Either.left(`${read.answerAttribute}: missing: it records the answer (are outputs recorded?)`)
  }
  const answer = read.answer ?? ""
  const surfaced = surfacedItems(read, rules.identifierFields)
  const citations = matchCitations(answer, surfaced, rules)
  const toolExecutions: Array<ToolExecution> = read.toolCalls.map((call) => ({
    tool: call.tool,
    ...(call.input === undefined ? {} : { input: call.input }),
    ...(call.output === undefined ? {} : { output: call.output }),
    error: call.error,
    ...(call.durationMs === undefined ? {} : { durationMs: call.durationMs })
  }))
  return Either.right({
    answer,
    trace: {
      turnId: turnIdOf(read),
      surface,
      outcome,
      citations,
      toolExecutions,
      proposal,
      ...(read.usage === undefined ? {} : { usage: read.usage })
    }
  })
}
