/**
 * AG-UI: the client posts a `RunAgentInput` (its own thread and run ids, the messages) and the answer
 * is an event stream of AG-UI events, each frame as `@ag-ui/encoder`'s `EventEncoder` writes it. The
 * agent is stateless: it keeps no thread, so there is nothing to read back or delete. A stand-in turn
 * maps onto the run as: each tool execution a tool call (`TOOL_CALL_START`/`ARGS`/`END`) and its
 * result (`TOOL_CALL_RESULT`, the output as JSON text); the answer a text message; a pending
 * proposal's gated actions tool calls with no result, and the run finishing with an `interrupt`
 * outcome, one `tool_call` interrupt per action (the proposal's id as the first's, its summary as
 * the message); a turn that ended in an error `RUN_ERROR` instead of `RUN_FINISHED`; the turn's token
 * usage as the run's end's `usage`, one `TokenUsage`. AG-UI has no error flag on a tool result: a
 * failed execution's result is its error text after `Error: `.
 */
import { isRecord } from "../../Schema/Decode.js"
import type { AssistantTurn, Decision } from "../../StandIn/Assistant.js"
import { decideWithFlaws, respondWithFlaws } from "../../StandIn/Flaws.js"
import {
  injure,
  notJson,
  padding,
  readJson,
  sendJson,
  sseFrame,
  type WireRequest,
  type WireResponse,
  writeStream,
  wrongShape
} from "../../StandIn/Http.js"
import type { Store } from "../../StandIn/Store.js"
import {
  answeredBy,
  deltas,
  type Handler,
  type Incoming,
  type MakeWire,
  pendingActions,
  type ServedSurface,
  surfacesOf
} from "../../StandIn/Wire.js"

/** One AG-UI event. */
export type AgUiEvent = { readonly type: string } & Readonly<Record<string, unknown>>

/** The headers an AG-UI event stream is answered with. */
export const agUiHeaders: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache"
}

/** The text a tool result carries: the output as JSON (text as it is), or the error after `Error: `. */
export const resultContent = (execution: AssistantTurn["toolExecutions"][number]): string =>
  typeof execution.error === "string" && execution.error !== ""
    ? `Error: ${execution.error}`
    : typeof execution.output === "string"
    ? execution.output
    : JSON.stringify(execution.output ?? null)

const toolCall = (toolCallId: string, toolCallName: string, input: unknown): ReadonlyArray<AgUiEvent> => [
  { type: "TOOL_CALL_START", toolCallId, toolCallName },
  { type: "TOOL_CALL_ARGS", toolCallId, delta: JSON.stringify(input ?? {}) },
  { type: "TOOL_CALL_END", toolCallId }
]

/** A stand-in turn as the events of one AG-UI run. */
export const agUiEvents = (turn: AssistantTurn, threadId: string, runId: string): ReadonlyArray<AgUiEvent> => {
  const calls = turn.toolExecutions.flatMap((execution, i): ReadonlyArray<AgUiEvent> => {
    const toolCallId = `${runId}-call-${i + 1}`
    return [
      ...toolCall(toolCallId, execution.tool, execution.input),
      {
        type: "TOOL_CALL_RESULT",
        messageId: `${runId}-result-${i + 1}`,
        toolCallId,
        content: resultContent(execution),
        role: "tool"
      }
    ]
  })
  const started: AgUiEvent = { type: "RUN_STARTED", threadId, runId }
  // AG-UI 1.0's TokenUsage, one entry for the stand-in's one model.
  const usage = turn.usage === undefined
    ? {}
    : { usage: [{ model: "stand-in", inputTokens: turn.usage.inputTokens, outputTokens: turn.usage.outputTokens }] }
  if (turn.outcome === "error") return [started, ...calls, { type: "RUN_ERROR", message: turn.answer, ...usage }]
  const messageId = `${runId}-text`
  const text: ReadonlyArray<AgUiEvent> = turn.answer === "" ? [] : [
    { type: "TEXT_MESSAGE_START", messageId, role: "assistant" },
    ...deltas(turn.answer).map((delta): AgUiEvent => ({ type: "TEXT_MESSAGE_CONTENT", messageId, delta })),
    { type: "TEXT_MESSAGE_END", messageId }
  ]
  const summary = turn.proposal?.summary
  const waiting = pendingActions(turn).map((action, i) => ({
    ...action,
    toolCallId: `${runId}-call-${turn.toolExecutions.length + i + 1}`
  }))
  const interrupts = waiting.map(({ approvalId, toolCallId }) => ({
    id: approvalId,
    reason: "tool_call",
    message: summary,
    toolCallId
  }))
  return [
    started,
    ...calls,
    ...text,
    ...waiting.flatMap(({ input, tool, toolCallId }) => toolCall(toolCallId, tool, input)),
    {
      type: "RUN_FINISHED",
      threadId,
      runId,
      outcome: interrupts.length === 0 ? { type: "success" } : { type: "interrupt", interrupts },
      ...usage
    }
  ]
}

/**
 * What a `reused-id` fault adds to a run after its start: a call of `search_docs` and its result, then
 * the gated `deploy` started again under the same id, and its result — two calls a reader must not fold into one.
 */
export const reusedIdEvents = (runId: string): ReadonlyArray<AgUiEvent> => {
  const toolCallId = `${runId}-call-reused`
  const result = (content: string): AgUiEvent => ({
    type: "TOOL_CALL_RESULT",
    messageId: `${runId}-result-${content}`,
    toolCallId,
    content: JSON.stringify(content),
    role: "tool"
  })
  return [
    ...toolCall(toolCallId, "search_docs", { query: "refunds" }),
    result("searched"),
    ...toolCall(toolCallId, "deploy", { service: "checkout-web" }),
    result("deployed")
  ]
}

/**
 * A run's events less the result of its first tool call, as a `no-result` fault sends them: the call is
 * started, its arguments streamed and the call ended, and no `TOOL_CALL_RESULT` follows.
 */
export const withoutFirstResult = (events: ReadonlyArray<AgUiEvent>): ReadonlyArray<AgUiEvent> => {
  const first = events.findIndex((event) => event.type === "TOOL_CALL_RESULT")
  return first === -1 ? events : [...events.slice(0, first), ...events.slice(first + 1)]
}

/** The question a run asks, and its thread and run ids: the text of the input's last user message. */
export const runInputOf = (
  body: unknown
): { readonly threadId: string; readonly runId: string; readonly question: string } | undefined => {
  if (!isRecord(body) || typeof body["threadId"] !== "string" || typeof body["runId"] !== "string") return undefined
  if (body["threadId"] === "" || body["runId"] === "" || !Array.isArray(body["messages"])) return undefined
  const last = [...body["messages"]].reverse().find((m) => isRecord(m) && m["role"] === "user")
  const content = isRecord(last) ? last["content"] : undefined
  const question = typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.flatMap((p) => isRecord(p) && p["type"] === "text" && typeof p["text"] === "string" ? [p["text"]] : [])
      .join("")
    : undefined
  return question === undefined ? undefined : { threadId: body["threadId"], runId: body["runId"], question }
}

const usage =
  "expected a RunAgentInput {\"threadId\", \"runId\", \"messages\": [{\"id\", \"role\": \"user\", \"content\": QUESTION}], …}"

/** The user messages' texts of a run input's history, in order. */
const userTexts = (body: unknown): ReadonlyArray<string> =>
  isRecord(body) && Array.isArray(body["messages"])
    ? body["messages"].flatMap((m) =>
      isRecord(m) && m["role"] === "user" && typeof m["content"] === "string" ? [m["content"]] : []
    )
    : []

/** The tool calls of a history that no tool message answers, in order: `{id, tool}`. */
const unansweredCalls = (body: unknown): ReadonlyArray<{ readonly id: string; readonly tool: string }> => {
  const messages = isRecord(body) && Array.isArray(body["messages"]) ? body["messages"].filter(isRecord) : []
  const answered = new Set(messages.flatMap((m) => m["role"] === "tool" ? [m["toolCallId"]] : []))
  return messages.flatMap((m) => m["role"] === "assistant" && Array.isArray(m["toolCalls"]) ? m["toolCalls"] : [])
    .flatMap((call) => {
      if (!isRecord(call) || typeof call["id"] !== "string" || answered.has(call["id"])) return []
      const fn = call["function"]
      return [{ id: call["id"], tool: isRecord(fn) && typeof fn["name"] === "string" ? fn["name"] : "" }]
    })
}

/** The decision a run's `resume` carries: its first resolved entry's payload, `{"approved", "reason"?}`. */
export const resumeDecision = (
  body: unknown
): { readonly ids: ReadonlyArray<string>; readonly decision: Decision } | undefined => {
  const resume = isRecord(body) ? body["resume"] : undefined
  if (!Array.isArray(resume) || resume.length === 0) return undefined
  const entries = resume.filter(isRecord)
  const resolved = entries.find((e) => e["status"] === "resolved")
  const payload = resolved?.["payload"]
  const approved = isRecord(payload) && payload["approved"] === true
  const reason = isRecord(payload) && typeof payload["reason"] === "string" ? payload["reason"] : ""
  return {
    ids: entries.flatMap((e) => typeof e["interruptId"] === "string" ? [e["interruptId"]] : []),
    decision: approved ? { approved: true } : { approved: false, reason }
  }
}

/**
 * The events of a run that resumes a proposal's interrupts: each waiting call's result under its own id
 * when the decided turn ran it with the proposed input (nothing for a call it did not run), then what
 * else ran as calls of their own, and the answer.
 */
export const resumedEvents = (
  turn: AssistantTurn,
  waiting: ReadonlyArray<{ readonly id: string; readonly tool: string; readonly input: unknown }>,
  threadId: string,
  runId: string
): ReadonlyArray<AgUiEvent> => {
  const { answered, left } = answeredBy(turn, waiting)
  const results = answered.flatMap(([call, execution], i): ReadonlyArray<AgUiEvent> =>
    execution === undefined ? [] : [{
      type: "TOOL_CALL_RESULT",
      messageId: `${runId}-resumed-${i + 1}`,
      toolCallId: call.id,
      content: resultContent(execution),
      role: "tool"
    }]
  )
  const [started, ...rest] = agUiEvents({ ...turn, toolExecutions: left }, threadId, runId)
  return [started!, ...results, ...rest]
}

/**
 * A run that answers the interrupts the thread's last turn ended on: the proposal that turn left (the
 * stand-in is stateless, as an AG-UI agent is: it answers the history's question again to know it),
 * decided as the resume entry says, its waiting calls taken from the history in order.
 */
const handleResume = (
  store: Store,
  response: WireResponse,
  body: unknown,
  input: { readonly threadId: string; readonly runId: string; readonly question: string },
  surface: ServedSurface,
  resumed: { readonly ids: ReadonlyArray<string>; readonly decision: Decision }
) => {
  const asked = userTexts(body)
  const before = respondWithFlaws(surface.name, input.question, asked.slice(0, -1))
  const pending = pendingActions(before)
  if (pending.length === 0 || resumed.ids.some((id) => !pending.some((a) => a.approvalId === id))) {
    return sendJson(response, 409, { error: "the resume answers no interrupt of this thread" })
  }
  const calls = unansweredCalls(body)
  const waiting = pending.flatMap((action, i) => {
    const call = calls[i]
    return call === undefined ? [] : [{ id: call.id, tool: action.tool, input: action.input }]
  })
  const decided = decideWithFlaws(before.proposal!, resumed.decision, store.options.miscarriage)
  const events = resumedEvents(decided, waiting, input.threadId, input.runId)
  return writeStream(response, agUiHeaders, events.map(sseFrame))
}

const handleRun = async (store: Store, request: WireRequest, response: WireResponse, surface: ServedSurface) => {
  const body = await readJson(request)
  const input = runInputOf(body)
  if (input === undefined || input.question.trim() === "") return sendJson(response, 400, { error: usage })
  const resumed = resumeDecision(body)
  if (resumed !== undefined) return handleResume(store, response, body, input, surface, resumed)
  const fault = store.faultFor("ask", input.question)
  if (fault?.kind === "wrong-shape") return writeStream(response, agUiHeaders, [sseFrame(wrongShape)])
  if (fault?.kind === "not-json") return notJson(response)
  if (
    fault !== undefined && fault.kind !== "reset" && fault.kind !== "huge" && fault.kind !== "opened" &&
    fault.kind !== "id" && fault.kind !== "reused-id" && fault.kind !== "no-result"
  ) {
    return injure(response, "ask", fault, request.url, {})
  }
  // A question after earlier ones in the history is a follow-up, answered in view of them.
  const earlier = userTexts(body).slice(0, -1)
  const turn = earlier.length > 0
    ? respondWithFlaws(surface.name, input.question, earlier)
    : store.answer(surface.name, input.question, store.nextAsk(input.question))
  const [started, ...rest] = agUiEvents(turn, input.threadId, input.runId)
  const events = fault?.kind === "reused-id"
    ? [started!, ...reusedIdEvents(input.runId), ...rest]
    : fault?.kind === "no-result"
    ? withoutFirstResult([started!, ...rest])
    : [started!, ...rest]
  const frames = events.map(sseFrame)
  return writeStream(response, agUiHeaders, frames, {
    ...(fault?.kind === "reset" ? { cut: 2 } : {}),
    ...(fault?.kind === "huge"
      ? { huge: sseFrame({ type: "CUSTOM", name: "padding", value: padding(fault) }), tail: 1 }
      : {})
  })
}

/** The AG-UI agent endpoint. */
export const make: MakeWire = (context) => {
  const own = surfacesOf(context, "ag-ui")
  const endpoints = new Map(own.map((s) => [context.prefix + (s.surface.endpoint ?? ""), s] as const))
  return {
    route: ({ method, request, response, target }: Incoming): Handler | undefined => {
      const surface = method === "POST" ? endpoints.get(target.path) : undefined
      if (surface === undefined) return undefined
      return () =>
        context.store.guard(request, response, "ask", () => handleRun(context.store, request, response, surface))
    },
    serves: own.map((s) =>
      `POST ${context.prefix}${s.surface.endpoint ?? ""}  run ${s.name} (AG-UI events; stateless, nothing to delete)`
    )
  }
}
