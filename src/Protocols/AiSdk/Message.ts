/**
 * The chat's UI messages, as `useChat` keeps them: an assistant message is rebuilt from its UI message
 * stream as the AI SDK's own reader (`processUIMessageStream`, which `useChat` and `readUIMessageStream`
 * run) builds it, so that the list the suite posts back is the one the app's `useChat` would post. Where
 * v6 and v7 differ, the rebuild follows v7 (a `tool-input-error` keeps its input as `input`; text and
 * reasoning parts stay open across a `finish-step`); the chunk types only v7 streams rebuild as v7 does.
 * The rebuild is pure: a message in, a continued copy out.
 */
import { isRecord } from "../../Schema/Decode.js"
import { quoted } from "../../Schema/Shown.js"

/** A UI message part: `{type, …}`, as the library lays it out. */
export type UIPart = { type: string } & Record<string, unknown>

/** A UI message, as `useChat` keeps it. */
export interface UIMessage {
  id: string
  readonly role: "user" | "assistant"
  metadata?: unknown
  parts: Array<UIPart>
}

/** The user message of a question. */
export const userMessage = (id: string, question: string): UIMessage => ({
  id,
  role: "user",
  parts: [{ type: "text", text: question }]
})

/** Whether a part is a tool call's: `tool-NAME` or `dynamic-tool`. */
export const isToolPart = (part: UIPart): boolean => part.type.startsWith("tool-") || part.type === "dynamic-tool"

/** The tool a tool part calls. */
export const toolOfPart = (part: UIPart): string =>
  part.type === "dynamic-tool" ? String(part["toolName"]) : part.type.slice("tool-".length)

/** Merges metadata as the library does: objects key by key, deeply; anything else replaced. */
const merged = (base: unknown, overrides: unknown): unknown => {
  if (!isRecord(base) || !isRecord(overrides)) return overrides
  const result: Record<string, unknown> = { ...base }
  for (const [key, value] of Object.entries(overrides)) {
    result[key] = isRecord(value) && isRecord(result[key]) && !Array.isArray(value)
      ? merged(result[key], value)
      : value
  }
  return result
}

/** Why a stream cannot be rebuilt into a message, in the library's words. */
const missing = (what: string, id: unknown) => `${what} ${quoted(String(id))} was never started`

interface State {
  readonly message: UIMessage
  /**
   * Step starts taken since the reader last gave out the message: the library's reader gives the
   * message out on every chunk but a step's start or end (and a start or finish that changes nothing),
   * so step starts at its end are not in the message it gives last.
   */
  unshown: number
  text: Map<string, UIPart>
  reasoning: Map<string, UIPart>
  readonly partial: Map<
    string,
    { text: string; readonly tool: string; readonly dynamic: boolean; readonly meta: UIPart }
  >
}

const currentStep = (message: UIMessage): Array<UIPart> => {
  let start = message.parts.length - 1
  while (start >= 0 && message.parts[start]!.type !== "step-start") start--
  return message.parts.slice(start + 1)
}

/** The tool part of a call: in the current step, else the latest anywhere in the message. */
const invocation = (message: UIMessage, toolCallId: unknown): UIPart | undefined =>
  currentStep(message).find((p) => isToolPart(p) && p["toolCallId"] === toolCallId) ??
    [...message.parts].reverse().find((p) => isToolPart(p) && p["toolCallId"] === toolCallId)

/** The fields of a tool part's update, as the library's `updateToolPart` takes them. */
interface Update {
  readonly toolCallId: unknown
  readonly toolName: string
  readonly dynamic: boolean
  readonly state: string
  readonly input?: unknown
  readonly output?: unknown
  readonly errorText?: unknown
  readonly rawInput?: unknown
  readonly inputEncoding?: unknown
  readonly preliminary?: unknown
  readonly providerExecuted?: unknown
  readonly providerMetadata?: unknown
  readonly title?: unknown
  readonly toolMetadata?: unknown
}

const isResult = (state: string) => state === "output-available" || state === "output-error"

const updateTool = (state: State, update: Update, existing?: UIPart): void => {
  const part = existing ??
    currentStep(state.message).find((p) =>
      (update.dynamic ? p.type === "dynamic-tool" : p.type.startsWith("tool-")) && p["toolCallId"] === update.toolCallId
    )
  const metadataKey = isResult(update.state) ? "resultProviderMetadata" : "callProviderMetadata"
  if (part !== undefined) {
    part["state"] = update.state
    if (update.dynamic) part["toolName"] = update.toolName
    else part.type = `tool-${update.toolName}`
    part["input"] = update.input
    part["output"] = update.output
    part["errorText"] = update.errorText
    part["rawInput"] = update.rawInput
    if (update.inputEncoding != null) part["inputEncoding"] = update.inputEncoding
    else delete part["inputEncoding"]
    part["preliminary"] = update.preliminary
    if (update.title !== undefined) part["title"] = update.title
    if (update.toolMetadata !== undefined) part["toolMetadata"] = update.toolMetadata
    part["providerExecuted"] = update.providerExecuted ?? part["providerExecuted"]
    if (update.providerMetadata != null) part[metadataKey] = update.providerMetadata
    return
  }
  state.message.parts.push({
    type: update.dynamic ? "dynamic-tool" : `tool-${update.toolName}`,
    ...(update.dynamic ? { toolName: update.toolName } : {}),
    toolCallId: update.toolCallId,
    state: update.state,
    title: update.title,
    ...(update.toolMetadata !== undefined ? { toolMetadata: update.toolMetadata } : {}),
    input: update.input,
    ...(update.inputEncoding != null ? { inputEncoding: update.inputEncoding } : {}),
    output: update.output,
    rawInput: update.rawInput,
    errorText: update.errorText,
    providerExecuted: update.providerExecuted,
    preliminary: update.preliminary,
    ...(update.providerMetadata != null ? { [metadataKey]: update.providerMetadata } : {})
  })
}

/** What a chunk's `dynamic`, tool name and metadata fields say, for an update. */
const callFields = (chunk: UIPart) => ({
  toolCallId: chunk["toolCallId"],
  toolName: String(chunk["toolName"]),
  dynamic: chunk["dynamic"] === true,
  providerExecuted: chunk["providerExecuted"],
  providerMetadata: chunk["providerMetadata"],
  title: chunk["title"],
  toolMetadata: chunk["toolMetadata"]
})

/** A tool part's own fields carried into a result's update. */
const partFields = (part: UIPart, chunk: UIPart) => ({
  toolCallId: chunk["toolCallId"],
  toolName: toolOfPart(part),
  dynamic: part.type === "dynamic-tool",
  input: part["input"],
  providerExecuted: chunk["providerExecuted"],
  providerMetadata: chunk["providerMetadata"],
  title: part["title"],
  toolMetadata: chunk["toolMetadata"] ?? part["toolMetadata"]
})

/** The input a tool call's streamed text says so far: its JSON when whole, else nothing yet. */
const partialInput = (text: string, encoding: unknown): unknown => {
  if (encoding === "text") return text
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** The chunk types that always change the message (and so are given out with it). */
const changing = new Set([
  "text-start",
  "text-delta",
  "text-end",
  "reasoning-start",
  "reasoning-delta",
  "reasoning-end",
  "custom",
  "file",
  "reasoning-file",
  "source-url",
  "source-document",
  "tool-input-start",
  "tool-input-delta",
  "tool-input-available",
  "tool-input-error",
  "tool-approval-request",
  "tool-approval-response",
  "tool-output-denied",
  "tool-output-available",
  "tool-output-error",
  "steering-message"
])

/** Whether the library's reader gives the message out after this chunk. */
const shows = (chunk: UIPart, before: number): boolean => {
  switch (chunk.type) {
    case "start-step":
    case "finish-step":
    case "error":
      return false
    case "start":
      return chunk["messageId"] != null || chunk["messageMetadata"] != null
    case "finish":
    case "message-metadata":
      return chunk["messageMetadata"] != null
    case "reset-step":
      return before > 0
    default:
      return chunk.type.startsWith("data-") ? chunk["transient"] !== true : changing.has(chunk.type)
  }
}

/** Takes one chunk into the message; says why not when it names a part or call the stream never started. */
const apply = (state: State, chunk: UIPart): string | undefined => {
  const { message } = state
  switch (chunk.type) {
    case "text-start":
    case "reasoning-start": {
      const reasoning = chunk.type === "reasoning-start"
      const part: UIPart = reasoning
        ? {
          type: "reasoning",
          id: chunk["id"],
          text: "",
          providerMetadata: chunk["providerMetadata"],
          state: "streaming"
        }
        : { type: "text", text: "", providerMetadata: chunk["providerMetadata"], state: "streaming" }
      ;(reasoning ? state.reasoning : state.text).set(String(chunk["id"]), part)
      message.parts.push(part)
      return
    }
    case "text-delta":
    case "text-end":
    case "reasoning-delta":
    case "reasoning-end": {
      const reasoning = chunk.type.startsWith("reasoning")
      const open = reasoning ? state.reasoning : state.text
      const part = open.get(String(chunk["id"]))
      if (part === undefined) return missing(reasoning ? "reasoning part" : "text part", chunk["id"])
      if (chunk.type.endsWith("-delta")) part["text"] = String(part["text"]) + String(chunk["delta"])
      else {
        part["state"] = "done"
        if (chunk.type === "text-end" && chunk["citations"] != null) part["citations"] = chunk["citations"]
        open.delete(String(chunk["id"]))
      }
      part["providerMetadata"] = chunk["providerMetadata"] ?? part["providerMetadata"]
      return
    }
    case "custom":
      message.parts.push({ type: "custom", kind: chunk["kind"], providerMetadata: chunk["providerMetadata"] })
      return
    case "file":
    case "reasoning-file":
      message.parts.push({
        type: chunk.type,
        mediaType: chunk["mediaType"],
        url: chunk["url"],
        ...(chunk["providerMetadata"] != null ? { providerMetadata: chunk["providerMetadata"] } : {})
      })
      return
    case "source-url":
      message.parts.push({
        type: "source-url",
        sourceId: chunk["sourceId"],
        url: chunk["url"],
        title: chunk["title"],
        providerMetadata: chunk["providerMetadata"]
      })
      return
    case "source-document":
      message.parts.push({
        type: "source-document",
        sourceId: chunk["sourceId"],
        mediaType: chunk["mediaType"],
        title: chunk["title"],
        filename: chunk["filename"],
        providerMetadata: chunk["providerMetadata"]
      })
      return
    case "tool-input-start": {
      const fields = callFields(chunk)
      state.partial.set(String(chunk["toolCallId"]), {
        text: "",
        tool: fields.toolName,
        dynamic: fields.dynamic,
        meta: chunk
      })
      updateTool(state, {
        ...fields,
        state: "input-streaming",
        inputEncoding: chunk["inputEncoding"],
        input: undefined
      })
      return
    }
    case "tool-input-delta": {
      const partial = state.partial.get(String(chunk["toolCallId"]))
      if (partial === undefined) return missing("tool call", chunk["toolCallId"])
      partial.text += String(chunk["inputTextDelta"])
      updateTool(state, {
        toolCallId: chunk["toolCallId"],
        toolName: partial.tool,
        dynamic: partial.dynamic,
        state: "input-streaming",
        inputEncoding: partial.meta["inputEncoding"],
        input: partialInput(partial.text, partial.meta["inputEncoding"]),
        rawInput: partial.text,
        title: partial.meta["title"],
        toolMetadata: partial.meta["toolMetadata"]
      })
      return
    }
    case "tool-input-available":
      updateTool(state, { ...callFields(chunk), state: "input-available", input: chunk["input"] })
      return
    case "tool-input-error": {
      const existing = currentStep(message).find((p) => isToolPart(p) && p["toolCallId"] === chunk["toolCallId"])
      const dynamic = existing !== undefined ? existing.type === "dynamic-tool" : chunk["dynamic"] === true
      const { title: _title, ...fields } = callFields(chunk)
      updateTool(state, {
        ...fields,
        dynamic,
        state: "output-error",
        input: chunk["input"],
        errorText: chunk["errorText"]
      })
      return
    }
    case "tool-approval-request": {
      const part = invocation(message, chunk["toolCallId"])
      if (part === undefined) return missing("tool call", chunk["toolCallId"])
      part["state"] = "approval-requested"
      part["approval"] = {
        id: chunk["approvalId"],
        ...(chunk["approvalDescriptor"] != null ? { descriptor: chunk["approvalDescriptor"] } : {}),
        ...(Object.hasOwn(chunk, "inputSchemaInput") ? { inputSchemaInput: chunk["inputSchemaInput"] } : {}),
        ...(chunk["reason"] != null ? { requestReason: chunk["reason"] } : {}),
        ...(chunk["isAutomatic"] === true ? { isAutomatic: true } : {}),
        ...(chunk["signature"] != null ? { signature: chunk["signature"] } : {})
      }
      return
    }
    case "tool-approval-response": {
      const part = message.parts.find((p) =>
        isToolPart(p) && isRecord(p["approval"]) && p["approval"]["id"] === chunk["approvalId"]
      )
      if (part === undefined) return missing("approval", chunk["approvalId"])
      part["state"] = "approval-responded"
      part["approval"] = {
        ...(part["approval"] as object),
        id: chunk["approvalId"],
        approved: chunk["approved"],
        ...(chunk["reason"] != null ? { reason: chunk["reason"] } : {})
      }
      if (chunk["providerExecuted"] != null) part["providerExecuted"] = chunk["providerExecuted"]
      if (chunk["providerMetadata"] != null) part["callProviderMetadata"] = chunk["providerMetadata"]
      return
    }
    case "tool-output-denied":
    case "tool-output-available":
    case "tool-output-error": {
      const part = invocation(message, chunk["toolCallId"])
      if (part === undefined) return missing("tool call", chunk["toolCallId"])
      if (chunk.type === "tool-output-denied") {
        part["state"] = "output-denied"
        return
      }
      if (chunk.type === "tool-output-available") {
        updateTool(state, {
          ...partFields(part, chunk),
          state: "output-available",
          output: chunk["output"],
          preliminary: chunk["preliminary"]
        }, part)
        return
      }
      updateTool(state, {
        ...partFields(part, chunk),
        state: "output-error",
        ...(part.type === "dynamic-tool" ? {} : { rawInput: part["rawInput"] }),
        errorText: chunk["errorText"]
      }, part)
      return
    }
    case "steering-message":
      message.parts.push({ type: "steering-message", id: chunk["id"], parts: chunk["parts"] })
      return
    case "start-step":
      message.parts.push({ type: "step-start" })
      return
    case "reset-step": {
      const step = currentStep(message)
      state.text = new Map()
      state.reasoning = new Map()
      state.partial.clear()
      message.parts.splice(message.parts.length - step.length, step.length)
      return
    }
    case "start":
      if (chunk["messageId"] != null) message.id = String(chunk["messageId"])
      if (chunk["messageMetadata"] != null) message.metadata = merged(message.metadata, chunk["messageMetadata"])
      return
    case "finish":
    case "message-metadata":
      if (chunk["messageMetadata"] != null) message.metadata = merged(message.metadata, chunk["messageMetadata"])
      return
    default:
      if (chunk.type.startsWith("data-") && chunk["transient"] !== true) {
        const existing = chunk["id"] != null
          ? message.parts.find((p) => p.type === chunk.type && p["id"] === chunk["id"])
          : undefined
        if (existing !== undefined) existing["data"] = chunk["data"]
        else message.parts.push({ ...chunk })
      }
  }
}

/**
 * The assistant message a stream makes: `last` continued when it is an assistant message (the message an
 * approval answers), else a new one named `id` (the start chunk may rename it). `last` is left as it is.
 * Chunks that are not objects with a type are passed over (the turn's reader refuses them); a chunk that
 * names a part or call the message does not hold is no message, and the reason says which chunk.
 */
export const rebuildMessage = (
  chunks: ReadonlyArray<unknown>,
  last: UIMessage | undefined,
  id: string
): UIMessage | string => {
  const message: UIMessage = last?.role === "assistant"
    ? structuredClone(last)
    : { id, role: "assistant", metadata: undefined, parts: [] }
  const state: State = { message, unshown: 0, text: new Map(), reasoning: new Map(), partial: new Map() }
  // A call whose input was still streaming when the message was last sent goes on streaming.
  for (const part of currentStep(message)) {
    if (!isToolPart(part) || part["state"] !== "input-streaming") continue
    state.partial.set(String(part["toolCallId"]), {
      text: typeof part["rawInput"] === "string" ? part["rawInput"] : "",
      tool: toolOfPart(part),
      dynamic: part.type === "dynamic-tool",
      meta: part
    })
  }
  for (const [i, chunk] of chunks.entries()) {
    if (!isRecord(chunk) || typeof chunk["type"] !== "string") continue
    const before = chunk["type"] === "reset-step" ? currentStep(message).length : 0
    const problem = apply(state, chunk as UIPart)
    if (problem !== undefined) return `chunk ${i + 1} (${chunk["type"]}): ${problem}`
    if (chunk["type"] === "start-step") state.unshown++
    else if (shows(chunk as UIPart, before)) state.unshown = 0
  }
  message.parts.splice(message.parts.length - state.unshown, state.unshown)
  return message
}
