/**
 * The `ai-sdk` protocol: what a `useChat` app's chat route answers — the AI SDK's UI message stream
 * (v5, v6, v7), `data: {json}` frames ending in `data: [DONE]`. This module is the protocol's pure part:
 * the body the suite POSTs, the stream's frames, and the turn read from its chunks. Asking over HTTP is
 * the transport's job; docs/protocol.md says what each fact is read from. No chunk the library defines
 * carries the tokens the turn used (`finish` holds its reason and the app's own `messageMetadata`,
 * `finish-step` nothing), so a turn read here has no `usage`.
 */
import { Effect, Either, type ParseResult, Schema } from "effect"
import { identifiersIn, matchCitations, type StatedCitation } from "../../Evidence/Derive.js"
import { eventsOf } from "../../Runner/EventStream.js"
import { failure } from "../../Runner/Transport.js"
import { isRecord, problemsOf } from "../../Schema/Decode.js"
import { cannotTakeStep } from "../../Schema/Errors.js"
import { quoted } from "../../Schema/Shown.js"
import type { Proposal, ToolExecution } from "../../Schema/Trace.js"
import {
  type AskingIn,
  type AskTurn,
  type Converse,
  type Ongoing,
  type ProtocolClient,
  type Read,
  type ReadContext
} from "../Protocol.js"
import { fillTemplate, toolErrorText, turnOrFail } from "../Reading.js"
import { askForEvents } from "../Stream.js"
import { isToolPart, rebuildMessage, toolOfPart, type UIMessage, type UIPart, userMessage } from "./Message.js"

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

/** The turn's id: the answer message's id from the `start` chunk, else the chat's turn by count, `CHAT_ID:1`. */
export const aiSdkTurnId = (conversationId: string, messageId?: string, turn = 1): string =>
  messageId !== undefined && messageId !== "" ? messageId : `${conversationId}:${turn}`

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
// The chunk types the reader reads, each a schema of the fields the library's chunk schema requires (ai's
// `uiMessageChunkSchema`) and the optional ones the reader uses; other fields and types are left alone.

const text = Schema.String.annotations({ message: () => "is not a string" })
const flag = Schema.Boolean.annotations({ message: () => "is not a boolean" })
const list = Schema.Array(Schema.Unknown).annotations({ message: () => "is not an array" })
// A field set to `undefined` is one left out, as the library reads it.
const optional = <S extends Schema.Schema.Any>(schema: S) => Schema.optional(schema)

const chunkSchemas = {
  "start": Schema.Struct({ messageId: optional(text) }),
  "start-step": Schema.Struct({}),
  "text-delta": Schema.Struct({ id: text, delta: text }),
  "text-end": Schema.Struct({ id: text, citations: optional(list) }),
  "error": Schema.Struct({ errorText: text }),
  "abort": Schema.Struct({}),
  "finish": Schema.Struct({ finishReason: optional(text) }),
  "tool-input-start": Schema.Struct({ toolCallId: text, toolName: text }),
  "tool-input-available": Schema.Struct({ toolCallId: text, toolName: text }),
  "tool-input-error": Schema.Struct({ toolCallId: text, toolName: text, errorText: text }),
  "tool-output-available": Schema.Struct({ toolCallId: text }),
  "tool-output-error": Schema.Struct({ toolCallId: text, errorText: text }),
  "tool-output-denied": Schema.Struct({ toolCallId: text }),
  "tool-approval-request": Schema.Struct({ approvalId: text, toolCallId: text, isAutomatic: optional(flag) }),
  "tool-approval-response": Schema.Struct({ approvalId: text, approved: flag }),
  "source-url": Schema.Struct({ sourceId: text, url: text }),
  "source-document": Schema.Struct({ sourceId: text, mediaType: text, title: text })
}

type KnownType = keyof typeof chunkSchemas

/** A chunk of a type the reader reads, its fields checked. */
type Chunk = Record<string, unknown> & { readonly type: KnownType }

const isKnown = (type: string): type is KnownType => Object.hasOwn(chunkSchemas, type)

const entries = Object.entries(chunkSchemas) as Array<[KnownType, Schema.Schema<unknown>]>
// A stream is mostly chunks that are well formed: each is checked by its schema's guard, and decoded
// only when the guard fails, for the problem's words.
const conforms = Object.fromEntries(entries.map(([type, schema]) => [type, Schema.is(schema)])) as unknown as Readonly<
  Record<KnownType, (value: unknown) => boolean>
>
const decoders = Object.fromEntries(
  entries.map(([type, schema]) => [type, Schema.decodeUnknownEither(schema)])
) as Readonly<Record<KnownType, (value: unknown) => Either.Either<unknown, ParseResult.ParseError>>>

/** What is wrong with a chunk's fields, if anything: the first field its schema refuses. */
const shapeProblem = (chunk: Record<string, unknown>, type: KnownType): string | undefined => {
  // Most of a stream is text deltas: checked by hand, exactly as their schema checks them.
  if (type === "text-delta" && typeof chunk["id"] === "string" && typeof chunk["delta"] === "string") return undefined
  if (conforms[type](chunk)) return undefined
  return Either.match(decoders[type](chunk), {
    onRight: () => undefined,
    onLeft: (error) => {
      const first = problemsOf(error)[0]
      if (first === undefined) return "not readable"
      const name = first.path.replace(/^\$\.?/, "")
      return `${name} ${first.message === "missing" ? "is missing" : first.message}`
    }
  })
}

/** A v7 `text-end` citation as the wire states it: `source.url` (else `source.id`) and `citedText`. */
const statedCitation = (value: unknown): StatedCitation | undefined => {
  if (!isRecord(value) || !isRecord(value["source"])) return undefined
  const { id, url } = value["source"]
  const quote = value["citedText"]
  if (typeof id !== "string" || (url !== undefined && typeof url !== "string")) return undefined
  if (quote !== undefined && typeof quote !== "string") return undefined
  return { path: url ?? id, quote }
}

// ---------------------------------------------------------------------------------------------------
// Reading: one pass over the chunks into what the turn is made of, then the turn.

/** One tool call, as the stream tells it. */
interface Call {
  readonly id: string
  readonly tool: string
  /** The step it was started in: a `toolCallId` names one call per step, as the library's own reader keys them. */
  readonly step: number
  /** Whether its input is whole (`tool-input-available` or `tool-input-error` came), not still streaming. */
  inputDone: boolean
  input?: { readonly value: unknown }
  output?: { readonly value: unknown }
  error?: string
  denied: boolean
  /** Whether an approval was asked for it: answered or not, the call then waits for no client. */
  asked: boolean
  /** The approval the call waits for, while no response or output has come. */
  pendingApproval?: string
  /**
   * Whether the call was made in an earlier turn of the message this stream continues (the turn an
   * approval answers): it is this turn's execution only when this stream carries its output or error.
   */
  readonly earlier?: true
}

/** What the chunks say, gathered in order. */
interface Gathered {
  messageId?: string
  readonly deltas: Array<string>
  /** Every call, in the order they started. */
  readonly calls: Array<Call>
  /** The latest call of each `toolCallId`: the one its output, error or approval is for. */
  readonly latest: Map<string, Call>
  /** The step the stream is in, counted by `start-step` chunks. */
  step: number
  /** Approval ids, with the call each is for. */
  readonly approvals: Map<string, Call>
  readonly sources: Set<string>
  readonly stated: Array<StatedCitation>
  failed: boolean
  ended: boolean
}

/** An error chunk says what failed; one with no text still failed. */
const errorText = (text: unknown): string => toolErrorText(typeof text === "string" ? text : "")

/**
 * The call a `tool-input-*` chunk is part of: a new one, or the one its `toolCallId` started in this step
 * whose input is still streaming. The same id in a later step is another call (providers number calls
 * per step, `call_0` in each). A call started again in its step, or given another tool name, would make
 * two calls one — the library's reader then keeps the first's place and the last's tool and input — so
 * it is no turn: the reason names the id and both tools.
 */
const started = (state: Gathered, chunk: Chunk): Call | string => {
  const id = chunk["toolCallId"] as string
  const tool = chunk["toolName"] as string
  const known = state.latest.get(id)
  if (known !== undefined && known.step === state.step) {
    const again = chunk.type === "tool-input-start" || known.inputDone
    if (known.tool !== tool || again) {
      return `tool call ${quoted(id)} was ${again ? "started again" : "renamed"} (${quoted(known.tool)}, then ${
        quoted(tool)
      })`
    }
    return known
  }
  const call: Call = { id, tool, step: state.step, inputDone: false, denied: false, asked: false }
  state.calls.push(call)
  state.latest.set(id, call)
  return call
}

/** Takes one checked chunk into what is gathered; says why not when it names a call the stream never started. */
const gather = (state: Gathered, chunk: Chunk): string | undefined => {
  const call = (): Call | string => {
    const id = chunk["toolCallId"] as string
    return state.latest.get(id) ?? `tool call ${quoted(id)} was not started in this stream`
  }
  switch (chunk.type) {
    case "start":
      if (state.messageId === undefined && typeof chunk["messageId"] === "string") state.messageId = chunk["messageId"]
      return
    case "start-step":
      state.step++
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
    case "tool-input-available":
    case "tool-input-error": {
      const found = started(state, chunk)
      if (typeof found === "string") return found
      if (chunk.type === "tool-input-start") return
      found.inputDone = true
      if ("input" in chunk) found.input = { value: chunk["input"] }
      if (chunk.type === "tool-input-error") found.error = errorText(chunk["errorText"])
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
      state.approvals.set(approvalId, found)
      found.asked = true
      // An automatic approval is decided in the same stream: nothing is left for a person.
      if (chunk["isAutomatic"] !== true && found.output === undefined && found.error === undefined && !found.denied) {
        found.pendingApproval = approvalId
      }
      return
    }
    case "tool-approval-response": {
      const approvalId = chunk["approvalId"] as string
      const found = state.approvals.get(approvalId)
      if (found === undefined) return `approval ${quoted(approvalId)} was not requested in this stream`
      // Answered either way, the call is read like any other (a denial is followed by `tool-output-denied`).
      if (found.pendingApproval === approvalId) delete found.pendingApproval
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

/** A call the stream started and never resolved: no output, no error, no denial, no approval asked. */
const unresolvedCall = (call: Call): boolean =>
  call.pendingApproval === undefined && !call.denied && call.output === undefined && call.error === undefined

/**
 * Whether a call waits for the person at the end of the turn: one waiting for approval, or — in a turn
 * that did not fail — a gated tool's call left unresolved with no approval asked, which the client is to
 * confirm and run (a tool without `execute`, the AI SDK 5 way to ask a person). An approved call with no
 * result is an attempt: it may have run.
 */
const waits = (call: Call, gatedTools: ReadonlyArray<string>, failed: boolean): boolean =>
  call.pendingApproval !== undefined ||
  (!failed && call.earlier === undefined && !call.asked && unresolvedCall(call) && gatedTools.includes(call.tool))

/** Whether a call ran in this turn: not denied, not waiting, and, if made earlier, answered in this stream. */
const ranHere = (call: Call, waiting: ReadonlyArray<Call>): boolean =>
  !call.denied && !waiting.includes(call) &&
  (call.earlier === undefined || call.output !== undefined || call.error !== undefined)

const execution = (call: Call): ToolExecution => ({
  tool: call.tool,
  ...(call.input === undefined ? {} : { input: call.input.value }),
  ...(call.error !== undefined
    ? { error: call.error }
    : call.output !== undefined
    ? { output: call.output.value }
    : { unresolved: true })
})

/**
 * The proposal the waiting calls make: the first one's approval (its call id, for a call the client is
 * to run), every waiting call an action.
 */
const proposalOf = (waiting: ReadonlyArray<Call>): Proposal | null => {
  const first = waiting[0]
  if (first === undefined) return null
  return {
    id: first.pendingApproval ?? first.id,
    summary: waiting.map((call) => call.tool).join(", "),
    actions: waiting.map((call) => ({
      tool: call.tool,
      ...(call.input === undefined ? {} : { input: call.input.value })
    }))
  }
}

/** The calls of the message a stream continues, as the stream's reader starts from them. */
const earlierCalls = (state: Gathered, continued: UIMessage): void => {
  for (const part of continued.parts) {
    if (!isToolPart(part) || typeof part["toolCallId"] !== "string") continue
    const call: Call = {
      id: part["toolCallId"],
      tool: toolOfPart(part),
      step: -1,
      inputDone: true,
      ...(part["input"] === undefined ? {} : { input: { value: part["input"] } }),
      denied: false,
      asked: isRecord(part["approval"]),
      earlier: true
    }
    state.calls.push(call)
    state.latest.set(call.id, call)
    const approval = part["approval"]
    if (isRecord(approval) && typeof approval["id"] === "string") state.approvals.set(approval["id"], call)
  }
}

/**
 * Reads a turn from a UI message stream: `chunks` are the parsed `data:` frames in order, `[DONE]`
 * excluded (`eventStreamChunks`); `done` says whether the stream ended with `data: [DONE]`, which ends a
 * turn as a `finish` does (Mastra ends a stream that suspends for approval so, with no `finish`). Chunk
 * types the reader does not read are ignored; a read type with the wrong fields, a call or approval the
 * stream never started, a call started again, or a stream that ends without a `finish`, `error` or
 * `abort` chunk or `[DONE]` is no turn, and the reason says which chunk (counted from 1).
 *
 * A stream that continues an assistant message (`continued`, the message an approval answers) is read
 * as the turn after the decision: its answer is the text streamed now, and its executions are the calls
 * it makes and the earlier calls whose output or error it carries (a denied call is none); `turn` counts
 * the chat's turns, for the turn id of a stream that names no new message.
 */
export const readAiSdkStream = (
  chunks: ReadonlyArray<unknown>,
  context: ReadContext,
  done = false,
  continued?: UIMessage,
  turn = 1
): Read => {
  const state: Gathered = {
    deltas: [],
    calls: [],
    latest: new Map(),
    step: 0,
    approvals: new Map(),
    sources: new Set(),
    stated: [],
    failed: false,
    ended: false
  }
  if (continued !== undefined) earlierCalls(state, continued)
  for (const [i, chunk] of chunks.entries()) {
    if (!isRecord(chunk) || typeof chunk["type"] !== "string") {
      return Either.left(`chunk ${i + 1} of the stream is not a UI message chunk (an object with a string type)`)
    }
    const type = chunk["type"]
    if (!isKnown(type)) continue
    const problem = shapeProblem(chunk, type) ?? gather(state, chunk as Chunk)
    if (problem !== undefined) return Either.left(`chunk ${i + 1} (${type}): ${problem}`)
  }
  if (!state.ended && !done) {
    const count = chunks.length === 1 ? "1 chunk" : `${chunks.length} chunks`
    return Either.left(`the stream broke off after ${count}: no finish, error or abort chunk`)
  }
  const calls = state.calls
  const waiting = calls.filter((call) => waits(call, context.gatedTools, state.failed))
  const surfaced = new Set(state.sources)
  for (const call of calls) {
    if (call.output === undefined || call.error !== undefined) continue
    identifiersIn(call.output.value, context.evidence.identifierFields, surfaced)
  }
  const answer = state.deltas.join("")
  return Either.right({
    answer,
    trace: {
      turnId: aiSdkTurnId(context.conversationId, state.messageId, turn),
      surface: context.surface,
      outcome: state.failed ? "error" : waiting.length > 0 ? "awaiting-approval" : "answered",
      citations: matchCitations(answer, surfaced, context.evidence, state.stated),
      toolExecutions: calls.filter((call) => ranHere(call, waiting)).map(execution),
      proposal: proposalOf(waiting)
    }
  })
}

// ---------------------------------------------------------------------------------------------------
// The live protocol

/**
 * What a chat route's answer that is no event stream most likely is: plain text is the AI SDK's text
 * stream (`toTextStreamResponse()`), which carries the answer's text alone.
 */
const notAUiMessageStream = (contentType: string): string | undefined =>
  /^text\/plain\b/i.test(contentType)
    ? "the route answers the AI SDK's text stream (toTextStreamResponse()), which carries no tool calls or " +
      "sources; answer with toUIMessageStreamResponse()"
    : undefined

/** Asks for a chat route's UI message stream. */
const askForChunks = (asking: AskingIn, body: unknown) =>
  askForEvents(asking, body, "text/event-stream", notAUiMessageStream)

/**
 * A turn on the AI SDK's chat route: the question posted in the run's chat as `useChat` posts it, the
 * stream read to its end.
 */
export const aiSdkTurn: AskTurn<AskingIn> = (asking) =>
  Effect.gen(function*() {
    const ids: AiSdkIds = { conversationId: asking.conversationId, messageId: asking.newId() }
    const body = aiSdkRequestBody(asking.question, ids, asking.surface.request?.body)
    const stream = yield* askForChunks(asking, body)
    const context = { ...asking.context, conversationId: ids.conversationId }
    return yield* turnOrFail(readAiSdkStream(stream.frames, context, stream.done))
  })

/** The chat as `useChat` keeps it: its messages so far, and the turn ids given. */
interface Chat {
  readonly messages: Array<UIMessage>
  readonly turnIds: Set<string>
}

/**
 * The tool parts of the chat's last message that wait for an approval: what a decision answers, as
 * `addToolApprovalResponse` answers each. A proposal whose calls wait for the client to run them (a
 * tool without `execute`, AI SDK 5's way to ask a person) has none: there is no approval to answer.
 */
const awaitingApproval = (message: UIMessage | undefined): ReadonlyArray<UIPart> =>
  message?.role !== "assistant"
    ? []
    : message.parts.filter((part) => isToolPart(part) && part["state"] === "approval-requested")

/** Why a step cannot be taken in this chat: no request is made. */
const cannot = (detail: string) => Effect.fail(cannotTakeStep(detail))

/** Why a decision cannot be posted in this chat. */
const noApproval = (proposal: Proposal): string =>
  `the proposal (${proposal.summary}) asks no approval of the chat: its calls wait for the client to run them, ` +
  "as AI SDK 5 asks a person (a tool without execute); answering a proposal needs AI SDK 6 or later " +
  "(needsApproval, addToolApprovalResponse)"

/**
 * A conversation on the AI SDK's chat route, kept as `useChat` keeps it: every request posts the chat's
 * whole message list, and each answer's stream is rebuilt into its assistant message as the library's
 * reader rebuilds it (Message.ts). A follow-up is a user message added and posted
 * (`{id, messages, trigger: "submit-message"}`); a decision sets each tool part waiting for approval
 * to `approval-responded` with `approval: {id, approved, reason}` and posts the list again with the
 * message's id (`messageId`), as `addToolApprovalResponse` and `sendAutomaticallyWhen` do: the app then
 * runs or skips the calls and its stream continues that message, read as the turn after the decision.
 * A surface with a `request.body` template posts its own body for each follow-up (the app keeps the
 * history) and cannot carry a decision.
 */
export const aiSdkConverse: Converse<AskingIn> = (asking) =>
  Effect.gen(function*() {
    const template = asking.surface.request?.body
    const context = { ...asking.context, conversationId: asking.conversationId }
    const chat: Chat = { messages: [], turnIds: new Set() }
    /** Posts `body`, reads its stream as the chat's next turn, and keeps the message it rebuilds. */
    const exchange = (body: unknown, continued: UIMessage | undefined) =>
      Effect.gen(function*() {
        const stream = yield* askForChunks(asking, body)
        const count = chat.turnIds.size + 1
        const turn = yield* turnOrFail(readAiSdkStream(stream.frames, context, stream.done, continued, count))
        const message = rebuildMessage(stream.frames, continued, asking.newId())
        if (typeof message === "string") return yield* Effect.fail(failure("ask", message))
        if (continued === undefined) chat.messages.push(message)
        else chat.messages[chat.messages.length - 1] = message
        // A stream that continues a message names it again: the turn is the chat's next all the same.
        const turnId = chat.turnIds.has(turn.trace.turnId) ? `${asking.conversationId}:${count}` : turn.trace.turnId
        chat.turnIds.add(turnId)
        return turnId === turn.trace.turnId ? turn : { ...turn, trace: { ...turn.trace, turnId } }
      })
    /** A question posted as `useChat` posts it: the user message added to the list. */
    const ask = (question: string) => {
      const messageId = asking.newId()
      if (template !== undefined) {
        return exchange(
          aiSdkRequestBody(question, { conversationId: asking.conversationId, messageId }, template),
          undefined
        )
      }
      chat.messages.push(userMessage(messageId, question))
      return exchange(
        { id: asking.conversationId, messages: chat.messages, trigger: "submit-message" },
        undefined
      )
    }
    const first = yield* ask(asking.question)
    const conversation: Ongoing = {
      next: (step) => {
        if (step.kind === "ask") return ask(step.question)
        if (template !== undefined) {
          return cannot(
            "the surface's request.body template carries a question, not a decision: a decision posts the " +
              "chat's messages as useChat does (leave request.body out)"
          )
        }
        const last = chat.messages.at(-1)
        const waiting = awaitingApproval(last)
        if (last === undefined || waiting.length === 0) return cannot(noApproval(step.proposal))
        const answered: UIMessage = {
          ...last,
          parts: last.parts.map((part) =>
            waiting.includes(part)
              ? {
                ...part,
                state: "approval-responded",
                approval: {
                  ...(part["approval"] as object),
                  approved: step.approved,
                  ...(step.approved ? {} : { reason: step.reason ?? "" })
                }
              }
              : part
          )
        }
        chat.messages[chat.messages.length - 1] = answered
        return exchange(
          { id: asking.conversationId, messages: chat.messages, trigger: "submit-message", messageId: answered.id },
          answered
        )
      }
    }
    return [first, conversation] as const
  })

/** The client a live run asks this protocol's surfaces through. */
export const client: ProtocolClient<{ readonly by: "suite"; readonly what: string }> = {
  turn: aiSdkTurn,
  converse: aiSdkConverse,
  deleteRoute: (surface) => surface.routes?.delete ?? null
}
