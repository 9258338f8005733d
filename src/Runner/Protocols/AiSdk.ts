/**
 * The `ai-sdk` protocol: what a `useChat` app's chat route answers — the AI SDK's UI message stream
 * (v5, v6, v7), `data: {json}` frames ending in `data: [DONE]`. This module is the protocol's pure part:
 * the body the suite POSTs, the stream's frames, and the turn read from its chunks. Asking over HTTP is
 * the transport's job; docs/protocol.md says what each fact is read from. No chunk the library defines
 * carries the tokens the turn used (`finish` holds its reason and the app's own `messageMetadata`,
 * `finish-step` nothing), so a turn read here has no `usage`.
 */
import { Effect, Either } from "effect"
import { identifiersIn, matchCitations, type StatedCitation } from "../../Evidence/Derive.js"
import { isRecord } from "../../Schema/Decode.js"
import { quoted } from "../../Schema/Shown.js"
import type { Proposal, ToolExecution } from "../../Schema/Trace.js"
import { eventsOf } from "../EventStream.js"
import { failure } from "../Transport.js"
import { fillTemplate, type LiveProtocol, type Read, type ReadContext, toolErrorText } from "./Protocol.js"
import { askForEvents, askInGenerated } from "./Stream.js"

/** The response header that marks a UI message stream. */
export const uiMessageStreamHeader = "x-vercel-ai-ui-message-stream"
/** The UI message stream version the reader knows (the header's value). */
export const uiMessageStreamVersion = "v1"

/** The ids a request carries: the chat the suite made up before asking, and the question's message. */
export interface AiSdkIds {
  readonly conversationId: string
  readonly messageId: string
}

/**
 * The body the suite POSTs: the one `useChat` sends (`{id, messages: [the question], trigger}`), or the
 * surface's `request.body` template with `{question}`, `{conversationId}` and `{messageId}` filled in
 * wherever they appear in its string values (keys are left as they are).
 */
export const aiSdkRequestBody = (question: string, ids: AiSdkIds, template?: unknown): unknown =>
  template === undefined
    ? {
      id: ids.conversationId,
      messages: [{ id: ids.messageId, role: "user", parts: [{ type: "text", text: question }] }],
      trigger: "submit-message"
    }
    : fillTemplate(template, { question, conversationId: ids.conversationId, messageId: ids.messageId })

/** The turn's id: the answer message's id from the `start` chunk, else the chat's first turn, `CHAT_ID:1`. */
export const aiSdkTurnId = (conversationId: string, messageId?: string): string =>
  messageId !== undefined && messageId !== "" ? messageId : `${conversationId}:1`

/** The end marker a UI message stream's last frame carries. */
export const doneMarker = "[DONE]"

/**
 * The chunks of a whole event-stream body, parsed, in order, up to `data: [DONE]` (excluded): one per
 * event, read as the live run reads them (`EventStream.ts`). Fails on an event that is not JSON.
 */
export const eventStreamChunks = (text: string): Either.Either<ReadonlyArray<unknown>, string> => {
  const chunks: Array<unknown> = []
  for (const { data } of Either.getOrThrow(eventsOf(text))) {
    if (data === doneMarker) break
    try {
      chunks.push(JSON.parse(data))
    } catch {
      return Either.left(`event ${chunks.length + 1} of the stream is not JSON: ${quoted(data)}`)
    }
  }
  return Either.right(chunks)
}

// ---------------------------------------------------------------------------------------------------
// The chunk types the reader reads, each with the fields the library's chunk schema requires (ai's
// `uiMessageChunkSchema`) and the optional ones the reader uses; other fields and types are left alone.

type Kind = "string" | "boolean" | "array"
interface Field {
  readonly kind: Kind
  readonly optional?: true
}
const required = (kind: Kind): Field => ({ kind })
const optional = (kind: Kind): Field => ({ kind, optional: true })

const shapes = {
  "start": { messageId: optional("string") },
  "text-delta": { id: required("string"), delta: required("string") },
  "text-end": { id: required("string"), citations: optional("array") },
  "error": { errorText: required("string") },
  "abort": {},
  "finish": { finishReason: optional("string") },
  "tool-input-start": { toolCallId: required("string"), toolName: required("string") },
  "tool-input-available": { toolCallId: required("string"), toolName: required("string") },
  "tool-input-error": { toolCallId: required("string"), toolName: required("string"), errorText: required("string") },
  "tool-output-available": { toolCallId: required("string") },
  "tool-output-error": { toolCallId: required("string"), errorText: required("string") },
  "tool-output-denied": { toolCallId: required("string") },
  "tool-approval-request": {
    approvalId: required("string"),
    toolCallId: required("string"),
    isAutomatic: optional("boolean")
  },
  "tool-approval-response": { approvalId: required("string"), approved: required("boolean") },
  "source-url": { sourceId: required("string"), url: required("string") },
  "source-document": { sourceId: required("string"), mediaType: required("string"), title: required("string") }
} satisfies Record<string, Record<string, Field>>

type KnownType = keyof typeof shapes

/** A chunk of a type the reader reads, its fields checked. */
type Chunk = Record<string, unknown> & { readonly type: KnownType }

const isKnown = (type: string): type is KnownType => Object.hasOwn(shapes, type)

const kindOf = (value: unknown): Kind | undefined =>
  typeof value === "string"
    ? "string"
    : typeof value === "boolean"
    ? "boolean"
    : Array.isArray(value)
    ? "array"
    : undefined

/** What is wrong with a chunk's fields, if anything. */
const shapeProblem = (chunk: Record<string, unknown>, type: KnownType): string | undefined => {
  for (const [name, field] of Object.entries(shapes[type]) as Array<[string, Field]>) {
    const value = chunk[name]
    if (value === undefined) {
      if (field.optional === true) continue
      return `${name} is missing`
    }
    if (kindOf(value) !== field.kind) return `${name} is not ${field.kind === "array" ? "an" : "a"} ${field.kind}`
  }
  return undefined
}

/** A v7 `text-end` citation as the wire states it: `source.url` (else `source.id`) and `citedText`. */
const statedCitation = (value: unknown): StatedCitation | undefined => {
  if (!isRecord(value) || !isRecord(value["source"])) return undefined
  const { id, url } = value["source"]
  const quote = value["citedText"]
  if (typeof id !== "string" || (url !== undefined && typeof url !== "string")) return undefined
  if (quote !== undefined && typeof quote !== "string") return undefined
  return { path: url ?? id, ...(quote === undefined ? {} : { quote }) }
}

// ---------------------------------------------------------------------------------------------------
// Reading: one pass over the chunks into what the turn is made of, then the turn.

/** One tool call, by its `toolCallId`, as the stream tells it. */
interface Call {
  tool: string
  input?: { readonly value: unknown }
  output?: { readonly value: unknown }
  error?: string
  denied: boolean
  /** The approval the call waits for, while no response or output has come. */
  pendingApproval?: string
}

/** What the chunks say, gathered in order. */
interface Gathered {
  messageId?: string
  readonly deltas: Array<string>
  readonly calls: Map<string, Call>
  /** Approval ids, with the call each is for. */
  readonly approvals: Map<string, string>
  readonly sources: Set<string>
  readonly stated: Array<StatedCitation>
  failed: boolean
  ended: boolean
}

/** An error chunk says what failed; one with no text still failed. */
const errorText = (text: unknown): string => toolErrorText(typeof text === "string" ? text : "")

/** Takes one checked chunk into what is gathered; says why not when it names a call the stream never started. */
const gather = (state: Gathered, chunk: Chunk): string | undefined => {
  const call = (): Call | string => {
    const id = chunk["toolCallId"] as string
    return state.calls.get(id) ?? `tool call ${quoted(id)} was not started in this stream`
  }
  const start = (): Call => {
    const id = chunk["toolCallId"] as string
    const known = state.calls.get(id)
    if (known !== undefined) return known
    const started: Call = { tool: chunk["toolName"] as string, denied: false }
    state.calls.set(id, started)
    return started
  }
  switch (chunk.type) {
    case "start":
      if (state.messageId === undefined && typeof chunk["messageId"] === "string") state.messageId = chunk["messageId"]
      return
    case "text-delta":
      state.deltas.push(chunk["delta"] as string)
      return
    case "text-end": {
      for (const [i, item] of ((chunk["citations"] ?? []) as Array<unknown>).entries()) {
        const citation = statedCitation(item)
        if (citation === undefined) return `citations[${i}] is not a citation with a source id or url`
        state.stated.push(citation)
      }
      return
    }
    case "error":
    case "abort":
      state.failed = true
      state.ended = true
      return
    case "finish":
      if (chunk["finishReason"] === "error") state.failed = true
      state.ended = true
      return
    case "tool-input-start":
      start()
      return
    case "tool-input-available":
      if ("input" in chunk) start().input = { value: chunk["input"] }
      else start()
      return
    case "tool-input-error": {
      const started = start()
      if ("input" in chunk) started.input = { value: chunk["input"] }
      started.error = errorText(chunk["errorText"])
      return
    }
    case "tool-output-available":
    case "tool-output-error":
    case "tool-output-denied": {
      const found = call()
      if (typeof found === "string") return found
      delete found.pendingApproval
      if (chunk.type === "tool-output-denied") found.denied = true
      else if (chunk.type === "tool-output-error") found.error = errorText(chunk["errorText"])
      else found.output = { value: chunk["output"] }
      return
    }
    case "tool-approval-request": {
      const found = call()
      if (typeof found === "string") return found
      const approvalId = chunk["approvalId"] as string
      state.approvals.set(approvalId, chunk["toolCallId"] as string)
      // An automatic approval is decided in the same stream: nothing is left for a person.
      if (chunk["isAutomatic"] !== true && found.output === undefined && found.error === undefined && !found.denied) {
        found.pendingApproval = approvalId
      }
      return
    }
    case "tool-approval-response": {
      const approvalId = chunk["approvalId"] as string
      const callId = state.approvals.get(approvalId)
      if (callId === undefined) return `approval ${quoted(approvalId)} was not requested in this stream`
      const found = state.calls.get(callId)
      // Answered either way, the call is read like any other (a denial is followed by `tool-output-denied`).
      if (found?.pendingApproval === approvalId) delete found.pendingApproval
      return
    }
    case "source-url":
      state.sources.add(chunk["url"] as string)
      return
    case "source-document":
      state.sources.add(chunk["sourceId"] as string)
      return
  }
}

/**
 * Whether a call is a tool execution: not one waiting for approval (that is the proposal), not one
 * denied (it did not run). A gated tool's call ran when it has an output, or an error (an attempt that
 * errored still counts against `never-calls`); one with neither is left to the client to confirm and run.
 */
const executed = (call: Call, gatedTools: ReadonlyArray<string>): boolean =>
  call.pendingApproval === undefined && !call.denied &&
  (!gatedTools.includes(call.tool) || call.output !== undefined || call.error !== undefined)

const execution = (call: Call): ToolExecution => ({
  tool: call.tool,
  ...(call.input === undefined ? {} : { input: call.input.value }),
  ...(call.error !== undefined ? { error: call.error } : call.output === undefined ? {} : { output: call.output.value })
})

/** The proposal the calls still waiting for approval make: the first one's approval, every waiting call an action. */
const proposalOf = (waiting: ReadonlyArray<Call>): Proposal | null => {
  const first = waiting[0]
  if (first?.pendingApproval === undefined) return null
  return {
    id: first.pendingApproval,
    summary: waiting.map((call) => call.tool).join(", "),
    actions: waiting.map((call) => ({
      tool: call.tool,
      ...(call.input === undefined ? {} : { input: call.input.value })
    }))
  }
}

/**
 * Reads a turn from a UI message stream: `chunks` are the parsed `data:` frames in order, `[DONE]`
 * excluded (`eventStreamChunks`). Chunk types the reader does not read are ignored; a read type with
 * the wrong fields, a call or approval the stream never started, or a stream that ends without a
 * `finish`, `error` or `abort` chunk is no turn, and the reason says which chunk (counted from 1).
 */
export const readAiSdkStream = (chunks: ReadonlyArray<unknown>, context: ReadContext): Read => {
  const state: Gathered = {
    deltas: [],
    calls: new Map(),
    approvals: new Map(),
    sources: new Set(),
    stated: [],
    failed: false,
    ended: false
  }
  for (const [i, chunk] of chunks.entries()) {
    if (!isRecord(chunk) || typeof chunk["type"] !== "string") {
      return Either.left(`chunk ${i + 1} of the stream is not a UI message chunk (an object with a string type)`)
    }
    const type = chunk["type"]
    if (!isKnown(type)) continue
    const problem = shapeProblem(chunk, type) ?? gather(state, chunk as Chunk)
    if (problem !== undefined) return Either.left(`chunk ${i + 1} (${type}): ${problem}`)
  }
  if (!state.ended) {
    const count = chunks.length === 1 ? "1 chunk" : `${chunks.length} chunks`
    return Either.left(`the stream broke off after ${count}: no finish, error or abort chunk`)
  }
  const calls = [...state.calls.values()]
  const waiting = calls.filter((call) => call.pendingApproval !== undefined)
  const surfaced = new Set(state.sources)
  for (const call of calls) {
    if (call.output === undefined || call.error !== undefined) continue
    identifiersIn(call.output.value, context.evidence.identifierFields, surfaced)
  }
  const answer = state.deltas.join("")
  return Either.right({
    answer,
    trace: {
      turnId: aiSdkTurnId(context.conversationId, state.messageId),
      surface: context.surface,
      outcome: state.failed ? "error" : waiting.length > 0 ? "awaiting-approval" : "answered",
      citations: matchCitations(answer, surfaced, context.evidence, state.stated),
      toolExecutions: calls.filter((call) => executed(call, context.gatedTools)).map(execution),
      proposal: proposalOf(waiting)
    }
  })
}

// ---------------------------------------------------------------------------------------------------
// The live protocol

/**
 * The AI SDK's chat route as a live run speaks it: a new chat per case, its id generated by the run
 * (so cleanup never depends on the answer), the question posted as `useChat` posts it, the stream read
 * to its end. The chat is deleted through the surface's `routes.delete`; `null` when the app keeps none.
 */
export const aiSdkProtocol: LiveProtocol = {
  deleteRoute: (surface) => surface.routes?.delete ?? null,
  turn: (asking) =>
    Effect.gen(function*() {
      const ids: AiSdkIds = { conversationId: asking.newId(), messageId: asking.newId() }
      const body = aiSdkRequestBody(asking.testCase.question, ids, asking.surface.request?.body)
      const chunks = yield* askInGenerated(asking, ids.conversationId, "chat id", askForEvents(asking, body))
      return yield* Either.match(readAiSdkStream(chunks, { ...asking.context, conversationId: ids.conversationId }), {
        onLeft: (why) => Effect.fail(failure("ask", why)),
        onRight: Effect.succeed
      })
    })
}
