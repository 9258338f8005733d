/**
 * The AI SDK's UI message stream, as a `useChat` chat route answers (`streamText(…).toUIMessageStreamResponse()`):
 * the client posts `{id, messages, trigger}` with an id it chose for the chat, and the answer is an
 * event stream of UI message chunks ending in `data: [DONE]`. A stand-in turn maps onto it as
 * streamText lays a multi-step turn out: each tool execution a step of its own (its input, then its
 * output or its error, then a `source-url` per path its output surfaced), then a step with the answer
 * — citations with a quote stated on `text-end` — and, for a pending proposal, each gated action as a
 * tool call waiting for approval (`tool-approval-request`, the proposal's id as the approval's). A
 * turn that ended in an error sends an `error` chunk after its steps and no `finish`, as streamText
 * does when the model fails. Chats are deleted by the surface's delete route (TurnEval.ts serves it).
 */
import { isRecord } from "../../Schema/Decode.js"
import type { ToolExecution } from "../../Schema/Trace.js"
import type { AssistantTurn } from "../../StandIn/Assistant.js"
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
import type { StoredConversation } from "../../StandIn/Server.js"
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

/** One UI message chunk. */
export type UIMessageChunk = { readonly type: string } & Readonly<Record<string, unknown>>

/** The headers a UI message stream is answered with (the AI SDK's `UI_MESSAGE_STREAM_HEADERS`). */
export const uiMessageStreamHeaders: Readonly<Record<string, string>> = {
  "content-type": "text/event-stream",
  "cache-control": "no-cache",
  connection: "keep-alive",
  "x-vercel-ai-ui-message-stream": "v1",
  "x-accel-buffering": "no"
}

/** A path a tool's output surfaced, with the title beside it when there is one. */
interface Source {
  readonly path: string
  readonly title?: string
}

/** The objects with a text `path` anywhere in a tool's output: the items it surfaced. */
export const sourcesIn = (output: unknown): ReadonlyArray<Source> => {
  const found: Array<Source> = []
  const visit = (value: unknown, depth: number): void => {
    if (depth > 32) return
    if (Array.isArray(value)) return value.forEach((item) => visit(item, depth + 1))
    if (!isRecord(value)) return
    const { path, title } = value
    if (typeof path === "string" && path !== "") found.push(typeof title === "string" ? { path, title } : { path })
    for (const item of Object.values(value)) visit(item, depth + 1)
  }
  visit(output, 0)
  return found
}

/** The chunks of one tool execution's step. */
const executionStep = (
  execution: ToolExecution,
  toolCallId: string,
  sourceId: (n: number) => string,
  sources: { n: number }
) => {
  const input = execution.input ?? {}
  const ran: ReadonlyArray<UIMessageChunk> = typeof execution.error === "string" && execution.error !== ""
    ? [{ type: "tool-output-error", toolCallId, errorText: execution.error }]
    : [
      { type: "tool-output-available", toolCallId, output: execution.output ?? null },
      ...sourcesIn(execution.output).map((s): UIMessageChunk => ({
        type: "source-url",
        sourceId: sourceId(++sources.n),
        url: s.path,
        title: s.title
      }))
    ]
  return [
    { type: "start-step" },
    { type: "tool-input-start", toolCallId, toolName: execution.tool },
    { type: "tool-input-delta", toolCallId, inputTextDelta: JSON.stringify(input) },
    { type: "tool-input-available", toolCallId, toolName: execution.tool, input },
    ...ran,
    { type: "finish-step" }
  ]
}

/** A stand-in turn as UI message chunks, `messageId` the turn's id (the `start` chunk names it). */
export const uiMessageChunks = (turn: AssistantTurn, messageId: string): ReadonlyArray<UIMessageChunk> => {
  const sources = { n: 0 }
  const sourceId = (n: number) => `${messageId}-source-${n}`
  const steps = turn.toolExecutions.flatMap((execution, i) =>
    executionStep(execution, `${messageId}-call-${i + 1}`, sourceId, sources)
  )
  if (turn.outcome === "error") {
    return [{ type: "start", messageId }, ...steps, { type: "error", errorText: turn.answer }]
  }
  const textId = `${messageId}-text`
  const stated = turn.citations.flatMap((c, i) =>
    c.quote === undefined
      ? []
      : [{
        source: { type: "source", sourceType: "url", id: `${messageId}-cite-${i + 1}`, url: c.path },
        citedText: c.quote
      }]
  )
  const text: ReadonlyArray<UIMessageChunk> = turn.answer === "" ? [] : [
    { type: "text-start", id: textId },
    ...deltas(turn.answer).map((delta): UIMessageChunk => ({ type: "text-delta", id: textId, delta })),
    { type: "text-end", id: textId, ...(stated.length === 0 ? {} : { citations: stated }) }
  ]
  const waiting = pendingActions(turn).flatMap((action, i): ReadonlyArray<UIMessageChunk> => {
    const toolCallId = `${messageId}-call-${turn.toolExecutions.length + i + 1}`
    return [
      { type: "tool-input-start", toolCallId, toolName: action.tool },
      { type: "tool-input-delta", toolCallId, inputTextDelta: JSON.stringify(action.input) },
      { type: "tool-input-available", toolCallId, toolName: action.tool, input: action.input },
      { type: "tool-approval-request", approvalId: action.approvalId, toolCallId }
    ]
  })
  return [
    { type: "start", messageId },
    ...steps,
    { type: "start-step" },
    ...text,
    ...waiting,
    { type: "finish-step" },
    { type: "finish", finishReason: waiting.length > 0 ? "tool-calls" : "stop" }
  ]
}

/**
 * What a `reused-id` fault adds to a stream after its start: a step in which `search_docs` runs and the
 * gated `deploy` is then started again under its call's id and runs — two calls a reader must not fold into one.
 */
export const reusedIdChunks = (messageId: string): ReadonlyArray<UIMessageChunk> => {
  const toolCallId = `${messageId}-call-reused`
  const call = (toolName: string, input: unknown, output: unknown): ReadonlyArray<UIMessageChunk> => [
    { type: "tool-input-start", toolCallId, toolName },
    { type: "tool-input-available", toolCallId, toolName, input },
    { type: "tool-output-available", toolCallId, output }
  ]
  return [
    { type: "start-step" },
    ...call("search_docs", { query: "refunds" }, []),
    ...call("deploy", { service: "checkout-web" }, { deployed: true }),
    { type: "finish-step" }
  ]
}

/**
 * A stream's chunks less the result of its first tool call, as a `no-result` fault sends them: the call's
 * input streams and is available, and neither its output (or error) nor the sources it surfaced follow.
 */
export const withoutFirstResult = (chunks: ReadonlyArray<UIMessageChunk>): ReadonlyArray<UIMessageChunk> => {
  const first = chunks.findIndex((chunk) =>
    chunk.type === "tool-output-available" || chunk.type === "tool-output-error"
  )
  if (first === -1) return chunks
  let after = first + 1
  while (chunks[after]?.type === "source-url") after++
  return [...chunks.slice(0, first), ...chunks.slice(after)]
}

/** The UI message stream's frames for a turn: its chunks, then `[DONE]`; a stream fault changes the chunks. */
export const uiMessageFrames = (
  turn: AssistantTurn,
  messageId: string,
  fault?: "reused-id" | "no-result"
): ReadonlyArray<string> => {
  const [start, ...rest] = uiMessageChunks(turn, messageId)
  const chunks = fault === "reused-id"
    ? [start!, ...reusedIdChunks(messageId), ...rest]
    : fault === "no-result"
    ? withoutFirstResult([start!, ...rest])
    : [start!, ...rest]
  return [...chunks.map(sseFrame), sseFrame("[DONE]")]
}

/** The question a chat request asks: the text of its last user message (UI message parts, or plain content). */
export const questionOf = (body: unknown): string | undefined => {
  if (!isRecord(body) || !Array.isArray(body["messages"])) return undefined
  const last = [...body["messages"]].reverse().find((m) => isRecord(m) && m["role"] === "user")
  if (!isRecord(last)) return undefined
  if (typeof last["content"] === "string") return last["content"]
  if (!Array.isArray(last["parts"])) return undefined
  return last["parts"].flatMap((p) =>
    isRecord(p) && p["type"] === "text" && typeof p["text"] === "string" ? [p["text"]] : []
  ).join("")
}

const usage = "expected a JSON body {\"id\": CHAT_ID, \"messages\": [{\"role\": \"user\", \"parts\": " +
  "[{\"type\": \"text\", \"text\": QUESTION}]}]}"

/** A call the chat's client answered an approval of: a tool part set to `approval-responded`. */
interface AnsweredCall {
  readonly toolCallId: string
  readonly tool: string
  readonly input: unknown
  readonly approvalId: string
  readonly approved: boolean
  readonly reason?: string
}

/**
 * The calls a chat request answers approvals of, as `addToolApprovalResponse` leaves them: the tool
 * parts of a last message from the assistant set to `approval-responded`; none when the last message is
 * the user's (a question).
 */
export const answeredCalls = (body: unknown): ReadonlyArray<AnsweredCall> | undefined => {
  if (!isRecord(body) || !Array.isArray(body["messages"])) return undefined
  const last: unknown = body["messages"].at(-1)
  if (!isRecord(last) || last["role"] !== "assistant" || !Array.isArray(last["parts"])) return undefined
  return last["parts"].flatMap((part): ReadonlyArray<AnsweredCall> => {
    if (!isRecord(part) || part["state"] !== "approval-responded" || typeof part["type"] !== "string") return []
    const approval = part["approval"]
    if (!isRecord(approval) || typeof approval["id"] !== "string" || typeof approval["approved"] !== "boolean") {
      return []
    }
    if (typeof part["toolCallId"] !== "string" || !part["type"].startsWith("tool-")) return []
    return [{
      toolCallId: part["toolCallId"],
      tool: part["type"].slice("tool-".length),
      input: part["input"],
      approvalId: approval["id"],
      approved: approval["approved"],
      ...(typeof approval["reason"] === "string" ? { reason: approval["reason"] } : {})
    }]
  })
}

/** The id of the assistant message a decision continues: the request's last message's. */
const continuedId = (body: unknown): string => {
  const last: unknown = isRecord(body) && Array.isArray(body["messages"]) ? body["messages"].at(-1) : undefined
  return isRecord(last) && typeof last["id"] === "string" ? last["id"] : ""
}

/**
 * The stream that answers a decision, as streamText lays it out once the client answered its approvals:
 * the message it continues named again (`start`), each answered call's output (or error) under its own
 * call id when the decided turn ran it with the proposed input — `tool-output-denied` for a denied call
 * that did not run — then the turn's other executions as steps of their own, and the answer's step.
 */
export const decisionChunks = (
  turn: AssistantTurn,
  calls: ReadonlyArray<AnsweredCall>,
  messageId: string,
  seed: string
): ReadonlyArray<UIMessageChunk> => {
  const { answered, left } = answeredBy(turn, calls)
  const results = answered.flatMap(([call, execution]): ReadonlyArray<UIMessageChunk> => {
    if (execution === undefined) {
      return call.approved ? [] : [{ type: "tool-output-denied", toolCallId: call.toolCallId }]
    }
    return typeof execution.error === "string" && execution.error !== ""
      ? [{ type: "tool-output-error", toolCallId: call.toolCallId, errorText: execution.error }]
      : [{ type: "tool-output-available", toolCallId: call.toolCallId, output: execution.output ?? null }]
  })
  const [, ...rest] = uiMessageChunks({ ...turn, toolExecutions: left }, seed)
  return [{ type: "start", messageId }, ...results, ...rest]
}

const handleChat = async (
  store: Store,
  request: WireRequest,
  response: WireResponse,
  account: string,
  surface: ServedSurface
) => {
  const body = await readJson(request)
  const chatId = isRecord(body) ? body["id"] : undefined
  const calls = answeredCalls(body)
  const question = calls === undefined ? questionOf(body) : undefined
  if (
    typeof chatId !== "string" || chatId === "" ||
    (calls === undefined && (question === undefined || question.trim() === ""))
  ) {
    return sendJson(response, 400, { error: usage })
  }
  const fault = store.faultFor("ask", question ?? "")
  if (fault?.kind === "wrong-shape") {
    // A stream that is not one of UI message chunks: what the client must refuse to read as a turn.
    return writeStream(response, uiMessageStreamHeaders, [sseFrame(wrongShape), sseFrame("[DONE]")])
  }
  if (fault?.kind === "not-json") return notJson(response)
  if (
    fault !== undefined && fault.kind !== "reset" && fault.kind !== "huge" && fault.kind !== "opened" &&
    fault.kind !== "id" && fault.kind !== "reused-id" && fault.kind !== "no-result"
  ) {
    return injure(response, "ask", fault, request.url, {})
  }
  const existing = store.conversation(account, chatId)
  if (calls !== undefined) return answerDecision(store, response, existing, calls, continuedId(body))
  // A chat id is the client's: another account's chat by that id is not this account's to answer in.
  if (existing === undefined && store.isTaken(chatId)) return sendJson(response, 404, { error: "not found" })
  if (existing === undefined && store.atCap(account)) {
    return sendJson(response, 429, { error: `conversation cap reached (${store.maxConversations} open)` })
  }
  // A question in a chat the stand-in holds is a follow-up, answered in view of the chat so far.
  const conversation = existing === undefined
    ? store.openAs(account, "ai-sdk", chatId, { surface: surface.name, question: question!, turnId: store.newTurnId() })
    : store.followUp(existing, question!)
  if (fault?.kind === "opened") return sendJson(response, fault.status, { error: `injected HTTP ${fault.status}` })
  const streamFault = fault?.kind === "reused-id" || fault?.kind === "no-result" ? fault.kind : undefined
  const frames = uiMessageFrames(store.turnOf(conversation), conversation.turnId, streamFault)
  return writeStream(response, uiMessageStreamHeaders, frames, {
    ...(fault?.kind === "reset" ? { cut: 3 } : {}),
    ...(fault?.kind === "huge"
      ? { huge: sseFrame({ type: "data-padding", data: padding(fault), transient: true }), tail: 2 }
      : {})
  })
}

/**
 * A chat request that answers the approvals of the chat's pending proposal: the decision (the first
 * answered call's; `addToolApprovalResponse` answers each) carried out, and the stream that continues
 * the answered message. Approvals of no pending proposal are refused (409).
 */
const answerDecision = (
  store: Store,
  response: WireResponse,
  conversation: StoredConversation | undefined,
  calls: ReadonlyArray<AnsweredCall>,
  messageId: string
) => {
  if (conversation === undefined) return sendJson(response, 404, { error: "no such chat" })
  const pending = new Set(pendingActions(store.turnOf(conversation)).map((action) => action.approvalId))
  const first = calls[0]
  if (first === undefined || calls.some((call) => !pending.has(call.approvalId))) {
    return sendJson(response, 409, { error: "no pending approval of this chat is answered" })
  }
  const decided = store.decide(
    conversation,
    first.approved ? { approved: true } : { approved: false, reason: first.reason ?? "" }
  )
  if (decided === undefined) return sendJson(response, 409, { error: "the proposal is not pending" })
  const chunks = decisionChunks(store.turnOf(decided), calls, messageId, decided.turnId)
  return writeStream(response, uiMessageStreamHeaders, [...chunks.map(sseFrame), sseFrame("[DONE]")])
}

/** The AI SDK's chat route. */
export const make: MakeWire = (context) => {
  const own = surfacesOf(context, "ai-sdk")
  const endpoints = new Map(own.map((s) => [context.prefix + (s.surface.endpoint ?? ""), s] as const))
  return {
    route: ({ method, request, response, target }: Incoming): Handler | undefined => {
      const surface = method === "POST" ? endpoints.get(target.path) : undefined
      if (surface === undefined) return undefined
      return () =>
        context.store.guard(
          request,
          response,
          "ask",
          (account) => handleChat(context.store, request, response, account, surface)
        )
    },
    serves: own.map((s) =>
      `POST ${context.prefix}${s.surface.endpoint ?? ""}  chat with ${s.name} (the AI SDK's UI message stream)`
    )
  }
}
