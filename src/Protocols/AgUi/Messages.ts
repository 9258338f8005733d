/**
 * An AG-UI thread's messages, as a client keeps them between runs: the history a run was sent, then
 * what the run added — the agent's `MESSAGES_SNAPSHOT` when it sends one (the agent's own word on the
 * whole thread), else the run's events applied as @ag-ui/client applies them: a text message per
 * `TEXT_MESSAGE_START` (or first chunk), a tool call added to the assistant message its
 * `parentMessageId` names (a new assistant message when none holds it), a tool message per
 * `TOOL_CALL_RESULT`. Pure: the events are the parsed SSE frames.
 */
import { isRecord } from "../../Schema/Decode.js"

/** A message of the thread, in AG-UI's shape (`{id, role, content?, toolCalls?, toolCallId?}`). */
export type AgUiMessage = { readonly id: string; readonly role: string } & Readonly<Record<string, unknown>>

/** A tool call of an assistant message. */
interface ToolCall {
  readonly id: string
  readonly type: "function"
  readonly function: { readonly name: string; arguments: string }
}

const text = (value: unknown): string => typeof value === "string" ? value : ""

/** The messages of a snapshot that are messages (an object with a string id and role). */
const messagesIn = (list: unknown): Array<AgUiMessage> =>
  Array.isArray(list)
    ? list.filter((m): m is AgUiMessage => isRecord(m) && typeof m["id"] === "string" && typeof m["role"] === "string")
      .map((m) => structuredClone(m))
    : []

/** The thread's messages after a run: `before` (what the run was sent), then what the run's events add. */
export const threadAfter = (before: ReadonlyArray<AgUiMessage>, events: ReadonlyArray<unknown>): Array<AgUiMessage> => {
  let messages: Array<Record<string, unknown> & AgUiMessage> = before.map((m) => structuredClone(m))
  const calls = new Map<string, ToolCall>()
  let openText: string | undefined
  let openCall: string | undefined
  const textMessage = (id: string, role: unknown) => {
    if (!messages.some((m) => m.id === id)) {
      messages.push({ id, role: typeof role === "string" ? role : "assistant", content: "" })
    }
    openText = id
  }
  const append = (id: string, delta: unknown) => {
    const message = messages.find((m) => m.id === id)
    if (message !== undefined) (message as Record<string, unknown>)["content"] = text(message["content"]) + text(delta)
  }
  const startCall = (id: string, name: unknown, parent: unknown) => {
    const call: ToolCall = { id, type: "function", function: { name: text(name), arguments: "" } }
    calls.set(id, call)
    openCall = id
    const holder = typeof parent === "string"
      ? messages.find((m) => m.id === parent && m.role === "assistant")
      : undefined
    if (holder === undefined) {
      messages.push({ id: typeof parent === "string" ? parent : id, role: "assistant", toolCalls: [call] })
      return
    }
    const held = holder as Record<string, unknown>
    held["toolCalls"] = [...(Array.isArray(held["toolCalls"]) ? held["toolCalls"] : []), call]
  }
  for (const event of events) {
    if (!isRecord(event)) continue
    const { type } = event
    if (type !== "TEXT_MESSAGE_CHUNK") openText = type === "TEXT_MESSAGE_CONTENT" ? openText : undefined
    if (type !== "TOOL_CALL_CHUNK" && type !== "TOOL_CALL_ARGS") openCall = undefined
    switch (type) {
      case "TEXT_MESSAGE_START":
        textMessage(text(event["messageId"]), event["role"])
        break
      case "TEXT_MESSAGE_CONTENT":
        append(text(event["messageId"]), event["delta"])
        break
      case "TEXT_MESSAGE_CHUNK": {
        const id = typeof event["messageId"] === "string" ? event["messageId"] : openText
        if (id === undefined) break
        if (id !== openText) textMessage(id, event["role"])
        append(id, event["delta"])
        break
      }
      case "TOOL_CALL_START":
        startCall(text(event["toolCallId"]), event["toolCallName"], event["parentMessageId"])
        break
      case "TOOL_CALL_ARGS": {
        const call = calls.get(text(event["toolCallId"]))
        if (call !== undefined) call.function.arguments += text(event["delta"])
        break
      }
      case "TOOL_CALL_CHUNK": {
        const id = typeof event["toolCallId"] === "string" ? event["toolCallId"] : openCall
        if (id === undefined) break
        if (id !== openCall) startCall(id, event["toolCallName"], event["parentMessageId"])
        const call = calls.get(id)
        if (call !== undefined) call.function.arguments += text(event["delta"])
        break
      }
      case "TOOL_CALL_RESULT":
        messages.push({
          id: text(event["messageId"]),
          role: "tool",
          toolCallId: text(event["toolCallId"]),
          content: event["content"]
        })
        break
      case "MESSAGES_SNAPSHOT":
        messages = messagesIn(event["messages"])
        calls.clear()
        break
    }
  }
  return messages
}

/** The interrupts the run ended waiting on: its `RUN_FINISHED` outcome's, `[{id, toolCallId?}]`. */
export const interruptsOf = (
  events: ReadonlyArray<unknown>
): ReadonlyArray<{ readonly id: string; readonly toolCallId?: string }> => {
  const finished = [...events].reverse().find((e) => isRecord(e) && e["type"] === "RUN_FINISHED")
  const outcome = isRecord(finished) ? finished["outcome"] : undefined
  const interrupts = isRecord(outcome) && outcome["type"] === "interrupt" ? outcome["interrupts"] : undefined
  return Array.isArray(interrupts)
    ? interrupts.flatMap((i) =>
      isRecord(i) && typeof i["id"] === "string"
        ? [{ id: i["id"], ...(typeof i["toolCallId"] === "string" ? { toolCallId: i["toolCallId"] } : {}) }]
        : []
    )
    : []
}
