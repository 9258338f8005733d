/**
 * How an agent run ended, where the AI SDK's spans record it. Neither an aborted stream nor the SDK's
 * own tool approval (`needsApproval`, `toolApproval`) leaves an event or a status of its own:
 *
 * - A run that finished records its finish reason on its root span (`gen_ai.response.finish_reasons`,
 *   `ai.response.finishReason`). A stream aborted mid-answer ends its spans without one (the AI SDK 7)
 *   or with `other`, a finish reason none of its model calls had (the AI SDK 6).
 * - A call waiting for approval is one the model made, listed in the root's record of the run, that no
 *   tool span ran and no model call was given a result for, in a run that finished on tool calls. The
 *   spans do not record the approval's id.
 * - A call a person approved runs at the start of the next run. LegacyOpenTelemetry gives that
 *   execution no span: it is read from the result the run's first model call was given.
 */
import { isRecord } from "../Schema/Decode.js"
import { firstLine, parseMaybeJson } from "./Attributes.js"
import type { Convention, ToolCall } from "./Conventions.js"
import type { Span } from "./Otlp.js"
import { isModelCall } from "./Usage.js"

/** A tool call the model made that waits for approval: it did not run. */
export interface WaitingCall {
  readonly tool: string
  readonly input?: unknown
  readonly callId: string
}

/** How a run ended, as its spans record it. */
export interface RunEnd {
  /** False when the root span records no finish: the run ended before it finished, as an aborted stream does. */
  readonly finished: boolean
  /** The calls the run left waiting for approval, in the order the model made them. */
  readonly waiting: ReadonlyArray<WaitingCall>
  /** Approved calls that ran in this run without a span of their own, read from the result a model call was given. */
  readonly approved: ReadonlyArray<ToolCall>
}

/** Reports a span's attribute that cannot be read. */
export type Report = (span: Span, attribute: string, message: string) => void

/** A JSON attribute's value: undefined when it is missing, reported when it is text that is not JSON. */
const json = (span: Span, key: string, report: Report): unknown => {
  const value = span.attributes.get(key)
  if (typeof value !== "string") return value ?? undefined
  try {
    return JSON.parse(value)
  } catch {
    report(span, key, "not valid JSON")
    return undefined
  }
}

/** The parts of messages: `parts` (GenAI) or a `content` list (the AI SDK). */
const partsOf = (messages: unknown): ReadonlyArray<Record<string, unknown>> =>
  Array.isArray(messages)
    ? messages.flatMap((m) => {
      const parts = isRecord(m) ? m["parts"] ?? m["content"] : undefined
      return Array.isArray(parts) ? parts.filter(isRecord) : []
    })
    : []

const stringField = (record: Record<string, unknown>, key: string): string | undefined =>
  typeof record[key] === "string" ? record[key] : undefined

/** A tool call the model made, in the root span's record of the run. */
interface MadeCall {
  readonly tool: string
  readonly input: unknown
  readonly callId: string
}

/** The spans of a run that are model calls: GenAI inference spans, the AI SDK's `doGenerate` and `doStream`. */
const modelCallsOf = (below: ReadonlyArray<Span>, convention: Convention): ReadonlyArray<Span> =>
  below.filter((s) => isModelCall(s, convention))

/** The conventions' names for the two things this module reads from each. */
const keys = {
  "gen-ai": {
    modelInput: "gen_ai.input.messages",
    call: { type: "tool_call", id: "id", name: "name", input: "arguments" },
    result: { type: "tool_call_response", id: "id" }
  },
  "ai-sdk": {
    modelInput: "ai.prompt.messages",
    call: { type: "tool-call", id: "toolCallId", name: "toolName", input: "input" },
    result: { type: "tool-result", id: "toolCallId" }
  }
} as const

const madeCall = (part: Record<string, unknown>, convention: "gen-ai" | "ai-sdk"): MadeCall | undefined => {
  const k = keys[convention].call
  const callId = stringField(part, k.id)
  const tool = stringField(part, k.name)
  if (callId === undefined || tool === undefined) return undefined
  const input = part[k.input]
  return { tool, callId, input: typeof input === "string" ? parseMaybeJson(input) : input }
}

/** The finish reasons a span records. */
const reasonsOf = (span: Span, convention: "gen-ai" | "ai-sdk"): ReadonlyArray<string> => {
  const value = span.attributes.get(
    convention === "gen-ai" ? "gen_ai.response.finish_reasons" : "ai.response.finishReason"
  )
  return typeof value === "string"
    ? [value]
    : Array.isArray(value)
    ? value.filter((v): v is string => typeof v === "string")
    : []
}

const onToolCalls = (reasons: ReadonlyArray<string>): boolean =>
  reasons.some((r) => ["tool-calls", "tool_calls", "tool_call"].includes(r))

/**
 * Whether the run finished: its root records a finish reason or its answer. The AI SDK 6 ends an
 * aborted stream's root with `other` for want of the stream's finish; a run that really finished for
 * another reason has a model call that says `other` too.
 */
const finishedRun = (root: Span, convention: "gen-ai" | "ai-sdk", modelCalls: ReadonlyArray<Span>): boolean => {
  const reasons = reasonsOf(root, convention)
  if (reasons.length === 0) {
    return root.attributes.has(convention === "gen-ai" ? "gen_ai.output.messages" : "ai.response.text")
  }
  if (convention === "gen-ai" || reasons[0] !== "other" || modelCalls.length === 0) return true
  return modelCalls.some((s) => reasonsOf(s, convention).includes("other"))
}

/** The results the model calls were given (of calls that ran or were denied), by call id. */
type GivenResults = ReadonlyMap<string, Record<string, unknown>>

/** The results the model calls were given, by call id. */
const givenResults = (
  modelCalls: ReadonlyArray<Span>,
  convention: "gen-ai" | "ai-sdk",
  report: Report
): GivenResults => {
  const k = keys[convention]
  const results = new Map<string, Record<string, unknown>>()
  for (const span of modelCalls) {
    for (const part of partsOf(json(span, k.modelInput, report))) {
      const id = part["type"] === k.result.type ? stringField(part, k.result.id) : undefined
      if (id !== undefined && !results.has(id)) results.set(id, part)
    }
  }
  return results
}

/** The calls the root's record of the run lists, each once: GenAI's output messages, the AI SDK's `ai.response.toolCalls`. */
const madeCalls = (root: Span, convention: "gen-ai" | "ai-sdk", report: Report) => {
  const calls = new Map<string, MadeCall>()
  const answered = new Set<string>()
  const parts = convention === "gen-ai"
    ? partsOf(parseMaybeJson(root.attributes.get("gen_ai.output.messages")))
    : (() => {
      const listed = json(root, "ai.response.toolCalls", report)
      return Array.isArray(listed) ? listed.filter(isRecord).map((c) => ({ type: "tool-call", ...c })) : []
    })()
  for (const part of parts) {
    if (part["type"] === keys[convention].result.type) {
      const id = stringField(part, keys[convention].result.id)
      if (id !== undefined) answered.add(id)
    }
    if (part["type"] !== keys[convention].call.type) continue
    const call = madeCall(part, convention)
    if (call !== undefined && !calls.has(call.callId)) calls.set(call.callId, call)
  }
  return { calls: [...calls.values()], answered }
}

/** A tool result as the AI SDK gives it to the model (`{type, value}`), as an execution's output or error; none when denied. */
const outcomeOf = (output: unknown): { output?: unknown; error: string | null } | undefined => {
  if (!isRecord(output)) return { output, error: null }
  const value = output["value"]
  switch (output["type"]) {
    case "execution-denied":
      return undefined
    case "error-text": {
      // The AI SDK 7 gives the model an error's toString(), `Error: message`; a span's exception.message
      // has no class name, so it is dropped here too.
      const line = typeof value === "string" ? firstLine(value).replace(/^(?:[A-Za-z_$][\w$]*)?Error: /, "") : ""
      return { error: line === "" ? "error" : line }
    }
    case "error-json":
      return { error: JSON.stringify(value) ?? "error" }
    default:
      return value === undefined ? { error: null } : { output: value, error: null }
  }
}

/**
 * The approved calls that ran in this run without a span (LegacyOpenTelemetry): the root's prompt holds
 * the approval (a `tool-approval-request` and its `tool-approval-response` with `approved: true`) and the
 * call, and a model call of the run was given its result.
 */
const approvedWithoutSpan = (
  root: Span,
  ran: ReadonlySet<string>,
  given: () => GivenResults
): ReadonlyArray<ToolCall> => {
  const raw = root.attributes.get("ai.prompt")
  // Most runs answer no approval: their prompt, often large, is not parsed a second time.
  if (typeof raw === "string" && !raw.includes("tool-approval-response")) return []
  const prompt = parseMaybeJson(raw)
  const messages = isRecord(prompt)
    ? (Array.isArray(prompt["messages"]) ? prompt["messages"] : prompt["prompt"])
    : undefined
  const parts = partsOf(messages)
  const approvals = new Set(
    parts.filter((p) => p["type"] === "tool-approval-response" && p["approved"] === true)
      .flatMap((p) => stringField(p, "approvalId") ?? [])
  )
  if (approvals.size === 0) return []
  const resultedBefore = new Set(
    parts.filter((p) => p["type"] === "tool-result").flatMap((p) => stringField(p, "toolCallId") ?? [])
  )
  const callIds = parts
    .filter((p) => p["type"] === "tool-approval-request" && approvals.has(stringField(p, "approvalId") ?? ""))
    .flatMap((p) => stringField(p, "toolCallId") ?? [])
    .filter((id) => !ran.has(id) && !resultedBefore.has(id))
  if (callIds.length === 0) return []
  const results = given()
  return callIds.flatMap((callId) => {
    const call = parts.flatMap((p) => p["type"] === "tool-call" ? madeCall(p, "ai-sdk") ?? [] : []).find((c) =>
      c.callId === callId
    )
    const result = results.get(callId)
    const outcome = result === undefined ? undefined : outcomeOf(result["output"])
    const tool = call?.tool ?? (result === undefined ? undefined : stringField(result, "toolName"))
    if (outcome === undefined || tool === undefined) return []
    return [{
      tool,
      ...(call?.input === undefined ? {} : { input: call.input }),
      ...("output" in outcome ? { output: outcome.output } : {}),
      error: outcome.error,
      callId,
      start: root.start
    }]
  })
}

/** How a run ended: `root` is its root span, `below` its spans, `ran` the tool executions its tool spans record. */
export const runEndOf = (
  root: Span,
  convention: Convention,
  below: ReadonlyArray<Span>,
  ran: ReadonlyArray<ToolCall>,
  report: Report
): RunEnd => {
  if (convention === "openinference") return { finished: true, waiting: [], approved: [] }
  const modelCalls = modelCallsOf(below, convention)
  // The model calls' prompts are large: read them once, and only when a rule needs them.
  let results: GivenResults | undefined
  const given = () => (results ??= givenResults(modelCalls, convention, report))
  const ranIds = new Set(ran.map((c) => c.callId))
  const approved = convention === "ai-sdk" ? approvedWithoutSpan(root, ranIds, given) : []
  for (const call of approved) ranIds.add(call.callId)
  const finished = finishedRun(root, convention, modelCalls)
  if (!finished || !onToolCalls(reasonsOf(root, convention))) return { finished, waiting: [], approved }
  const made = madeCalls(root, convention, report)
  const unrun = made.calls.filter((c) => !ranIds.has(c.callId) && !made.answered.has(c.callId))
  if (unrun.length === 0) return { finished, waiting: [], approved }
  const waiting = unrun.filter((c) => !given().has(c.callId)).map(({ callId, input, tool }) => ({
    tool,
    ...(input === undefined ? {} : { input }),
    callId
  }))
  return { finished, waiting, approved }
}
