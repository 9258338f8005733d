/**
 * An AG-UI agent app on loopback, serving the protocol scenarios (test/support/scenarios.ts) at
 * `POST /api/agent`. It takes a `RunAgentInput` (checked with @ag-ui/core's own schema), runs an agent
 * loop over the conversation — a scripted model picks the scenario's next tool call from the messages so
 * far, the tool runs as a function, its result goes back into the messages — and streams every event
 * through @ag-ui/encoder's `EventEncoder`, as a framework adapter behind CopilotKit does. What it emits
 * follows AG-UI's own adapter for the AI SDK (integrations/vercel-ai-sdk, stream-handler.ts in the
 * ag-ui-protocol/ag-ui repository): a result is the tool's output as JSON text; a tool that throws has
 * its error message as the result's content, and its tool message in the closing `MESSAGES_SNAPSHOT`
 * carries the same text as `error`; a model failure is a `RUN_ERROR` with no snapshot. A gated call is
 * streamed and left without a result, and the run finishes with an interrupt outcome naming it, as AG-UI
 * 1.0's interrupts and Mastra's adapter do for a tool that needs approval. With `usage`, each model call
 * reports its tokens (usage.ts) as the AI SDK counts a call's, and the run's end carries AG-UI 1.0's
 * `usage`: the calls made into entries and summed per model by @ag-ui/core's own `tokenUsageFromAiSdkUsage`
 * and `aggregateTokenUsage` (the calls that choose tools and the one that answers are two models here,
 * so a run with tools has two entries).
 */
import type {
  AssistantMessage,
  Event,
  Interrupt,
  Message,
  RunAgentInput,
  RunFinishedOutcome,
  TokenUsage,
  ToolMessage
} from "@ag-ui/core"
import { aggregateTokenUsage, EventType, tokenUsageFromAiSdkUsage } from "@ag-ui/core"
import { RunAgentInputSchema } from "@ag-ui/core/schemas"
import { EventEncoder } from "@ag-ui/encoder"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { answerOf, type Scenario, scenarioFor } from "../scenarios.js"
import { modelCallUsage } from "./usage.js"

/** A request the app got: its body parsed when it is JSON, else the text. */
export interface AgUiRequest {
  readonly method: string
  readonly url: string
  readonly headers: IncomingMessage["headers"]
  readonly body: unknown
}

/** How the app runs. */
export interface AgUiAppOptions {
  /** A header every request must carry with this value; 401 otherwise. */
  readonly auth?: { readonly header: string; readonly value: string }
  /** Stream text and tool calls as `TEXT_MESSAGE_CHUNK` and `TOOL_CALL_CHUNK` events instead of start/content/end. */
  readonly chunks?: boolean
  /** Whether a run that finishes sends `MESSAGES_SNAPSHOT` before `RUN_FINISHED` (default true). */
  readonly snapshot?: boolean
  /** A clock that stamps every event's `timestamp` (milliseconds); events carry none without it. */
  readonly clock?: () => number
  /** Each model call reports its tokens, and the run's end carries their sum per model as its `usage`. */
  readonly usage?: boolean
}

/** A running app. */
export interface AgUiApp {
  readonly url: string
  readonly requests: ReadonlyArray<AgUiRequest>
  /** Every tool the agent ran, with its input, in order. */
  readonly ran: ReadonlyArray<{ readonly tool: string; readonly input: unknown }>
  readonly close: () => Promise<void>
}

/** What the scripted model does next. */
type Step =
  | { readonly kind: "call"; readonly tool: string; readonly input: Readonly<Record<string, string>> }
  | { readonly kind: "text"; readonly text: string }

/** A tool of the app: a function, and whether a person must approve a call before it runs. */
interface Tool {
  readonly needsApproval: (input: unknown) => boolean
  readonly execute: (input: unknown) => Promise<unknown>
}

const textOf = (content: Extract<Message, { role: "user" }>["content"]): string =>
  typeof content === "string" ? content : content.flatMap((part) => part.type === "text" ? [part.text] : []).join("")

/** The scenario of the conversation's last user message. */
const scenarioOf = (messages: ReadonlyArray<Message>): Scenario | undefined => {
  const user = [...messages].reverse().find((m): m is Extract<Message, { role: "user" }> => m.role === "user")
  return user === undefined ? undefined : scenarioFor(textOf(user.content))
}

/**
 * The scripted model: from the messages so far it makes the scenario's next tool call (one per step,
 * counted by the tool results since the question), then answers — or fails, as a provider does.
 */
const model = (messages: ReadonlyArray<Message>): Step => {
  const scenario = scenarioOf(messages)
  if (scenario === undefined) return { kind: "text", text: "I can help with refunds, orders and shipping." }
  const lastUser = messages.map((m) => m.role).lastIndexOf("user")
  const results = messages.slice(lastUser + 1).filter((m) => m.role === "tool").length
  const call = scenario.calls[results]
  if (call !== undefined) return { kind: "call", tool: call.tool, input: call.input }
  if (scenario.fails !== undefined) throw new Error(scenario.fails)
  return { kind: "text", text: answerOf(scenario, decisionIn(scenario, messages.slice(lastUser + 1))) }
}

/** The decision a person made on the gated call, as the thread holds it: its tool message, an error when denied. */
const decisionIn = (scenario: Scenario, since: ReadonlyArray<Message>): "approved" | "denied" | undefined => {
  const gated = scenario.calls.find((call) => call.needsApproval === true)?.tool
  const callIds = since.flatMap((m) =>
    m.role === "assistant" ? (m.toolCalls ?? []).filter((c) => c.function.name === gated).map((c) => c.id) : []
  )
  const result = since.find((m): m is ToolMessage => m.role === "tool" && callIds.includes(m.toolCallId))
  return result === undefined ? undefined : result.error === undefined ? "approved" : "denied"
}

/** Where the app notes each tool it runs. */
type Ran = Array<{ readonly tool: string; readonly input: unknown }>

/** The scenario's tools as functions: each returns what the scenario says for its input, or throws its error. */
const toolsOf = (scenario: Scenario | undefined, ran: Ran): Readonly<Record<string, Tool>> => {
  const scripted = (tool: string, input: unknown) =>
    scenario?.calls.find((c) => c.tool === tool && JSON.stringify(c.input) === JSON.stringify(input))
  const tool = (name: string): Tool => ({
    needsApproval: (input) => scripted(name, input)?.needsApproval === true,
    execute: async (input) => {
      ran.push({ tool: name, input })
      const call = scripted(name, input)
      if (call === undefined) throw new Error(`${name}: nothing found for ${JSON.stringify(input)}`)
      if (call.error !== undefined) throw new Error(call.error)
      return call.output
    }
  })
  return { search_kb: tool("search_kb"), lookup_order: tool("lookup_order"), issue_refund: tool("issue_refund") }
}

/** Text cut in two, as a model streams it in pieces. */
const halves = (text: string): readonly [string, string] => {
  const cut = Math.ceil(text.length / 2)
  return [text.slice(0, cut), text.slice(cut)]
}

/** The text of a message as a model streams it: a word at a time. */
const words = (text: string): ReadonlyArray<string> => text.match(/\S+\s*|\s+/g) ?? []

/** The events of one run, as the agent produces them. */
async function* runAgent(input: RunAgentInput, options: AgUiAppOptions, ran: Ran): AsyncGenerator<Event> {
  const { threadId, runId } = input
  const tools = toolsOf(scenarioOf(input.messages), ran)
  const messages: Array<Message> = [...input.messages]
  // What each model call reported, and what the run's end says of them.
  const calls: Array<TokenUsage> = []
  const counted = (n: number, step: Step) => {
    if (options.usage !== true) return
    const { inputTokens, outputTokens } = modelCallUsage(n)
    const model = step.kind === "call" ? "scripted-tools" : "scripted-answer"
    const entry = tokenUsageFromAiSdkUsage(
      { inputTokens, outputTokens, totalTokens: inputTokens + outputTokens },
      { provider: "scripted", model }
    )
    if (entry !== undefined) calls.push(entry)
  }
  const usage = () => calls.length === 0 ? {} : { usage: aggregateTokenUsage(calls) }
  const finish = function*(outcome: RunFinishedOutcome): Generator<Event> {
    if (options.snapshot !== false) yield { type: EventType.MESSAGES_SNAPSHOT, messages }
    yield { type: EventType.RUN_FINISHED, threadId, runId, outcome, ...usage() }
  }
  yield { type: EventType.RUN_STARTED, threadId, runId }
  yield* resumed(input, tools, messages)
  for (let n = 1;; n++) {
    const stepName = `step-${n}`
    const messageId = `${runId}-message-${n}`
    yield { type: EventType.STEP_STARTED, stepName }
    let step: Step
    try {
      step = model(messages)
    } catch (error) {
      // A call that fails reports no tokens; the run's error carries what the calls before it used.
      const message = error instanceof Error ? error.message : String(error)
      yield { type: EventType.RUN_ERROR, message, code: "stream_error", ...usage() }
      return
    }
    counted(n, step)
    if (step.kind === "text") {
      const pieces = words(step.text)
      if (options.chunks === true) {
        for (const [i, delta] of pieces.entries()) {
          yield i === 0
            ? { type: EventType.TEXT_MESSAGE_CHUNK, messageId, role: "assistant", delta }
            : { type: EventType.TEXT_MESSAGE_CHUNK, delta }
        }
      } else {
        yield { type: EventType.TEXT_MESSAGE_START, messageId, role: "assistant" }
        for (const delta of pieces) yield { type: EventType.TEXT_MESSAGE_CONTENT, messageId, delta }
        yield { type: EventType.TEXT_MESSAGE_END, messageId }
      }
      messages.push({ id: messageId, role: "assistant", content: step.text } satisfies AssistantMessage)
      yield { type: EventType.STEP_FINISHED, stepName }
      yield* finish({ type: "success" })
      return
    }

    const toolCallId = `${runId}-call-${n}`
    const args = JSON.stringify(step.input)
    const [first, rest] = halves(args)
    if (options.chunks === true) {
      yield {
        type: EventType.TOOL_CALL_CHUNK,
        toolCallId,
        toolCallName: step.tool,
        parentMessageId: messageId,
        delta: first
      }
      yield { type: EventType.TOOL_CALL_CHUNK, delta: rest }
    } else {
      yield { type: EventType.TOOL_CALL_START, toolCallId, toolCallName: step.tool, parentMessageId: messageId }
      yield { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: first }
      yield { type: EventType.TOOL_CALL_ARGS, toolCallId, delta: rest }
      yield { type: EventType.TOOL_CALL_END, toolCallId }
    }
    messages.push(
      {
        id: messageId,
        role: "assistant",
        toolCalls: [{ id: toolCallId, type: "function", function: { name: step.tool, arguments: args } }]
      } satisfies AssistantMessage
    )

    const tool = tools[step.tool]!
    if (tool.needsApproval(step.input)) {
      const interrupt: Interrupt = {
        id: `${toolCallId}-approval`,
        reason: "tool_approval",
        message: `Approve ${step.tool} ${args}?`,
        toolCallId,
        responseSchema: { type: "object", properties: { approved: { type: "boolean" } }, required: ["approved"] }
      }
      yield { type: EventType.STEP_FINISHED, stepName }
      yield* finish({ type: "interrupt", interrupts: [interrupt] })
      return
    }
    const resultId = `${runId}-result-${n}`
    let content: string
    let error: string | undefined
    try {
      content = JSON.stringify(await tool.execute(step.input))
    } catch (thrown) {
      error = thrown instanceof Error ? thrown.message : String(thrown)
      content = error
    }
    messages.push(
      {
        id: resultId,
        role: "tool",
        toolCallId,
        content,
        ...(error === undefined ? {} : { error })
      } satisfies ToolMessage
    )
    yield { type: EventType.TOOL_CALL_RESULT, messageId: resultId, toolCallId, content, role: "tool" }
    yield { type: EventType.STEP_FINISHED, stepName }
  }
}

/**
 * A run that resumes: each resume entry answers the interrupt of a call the thread left waiting. The
 * call runs when the entry is resolved with `{"approved": true}`; otherwise it is answered as a
 * human-in-the-loop middleware answers a rejection, a tool message whose `error` is the reason.
 */
async function* resumed(input: RunAgentInput, tools: Readonly<Record<string, Tool>>, messages: Array<Message>) {
  const answered = new Set(messages.flatMap((m) => m.role === "tool" ? [m.toolCallId] : []))
  const waiting = messages.flatMap((m) => m.role === "assistant" ? m.toolCalls ?? [] : [])
    .filter((call) => !answered.has(call.id))
  for (const entry of input.resume ?? []) {
    const call = waiting.find((c) => `${c.id}-approval` === entry.interruptId)
    if (call === undefined) continue
    const payload: unknown = entry.payload
    const approved = entry.status === "resolved" && typeof payload === "object" && payload !== null &&
      (payload as { approved?: unknown }).approved === true
    let content: string
    let error: string | undefined
    if (approved) {
      try {
        content = JSON.stringify(await tools[call.function.name]!.execute(JSON.parse(call.function.arguments)))
      } catch (thrown) {
        error = thrown instanceof Error ? thrown.message : String(thrown)
        content = error
      }
    } else {
      const reason = typeof payload === "object" && payload !== null
        ? (payload as { reason?: unknown }).reason
        : undefined
      error = typeof reason === "string" && reason !== "" ? reason : `${call.function.name} was not approved`
      content = error
    }
    const resultId = `${input.runId}-resumed-${call.id}`
    messages.push(
      { id: resultId, role: "tool", toolCallId: call.id, content, ...(error === undefined ? {} : { error }) }
    )
    yield { type: EventType.TOOL_CALL_RESULT, messageId: resultId, toolCallId: call.id, content, role: "tool" } as Event
  }
}

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}

const parsed = (text: string): unknown => {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}

/** Starts the app on 127.0.0.1 at a free port. */
export const startAgUiApp = async (options: AgUiAppOptions = {}): Promise<AgUiApp> => {
  const requests: Array<AgUiRequest> = []
  const ran: Ran = []
  const server = createServer((request, response) => {
    void (async () => {
      const text = await readBody(request)
      const body = parsed(text)
      requests.push({ method: request.method ?? "", url: request.url ?? "", headers: request.headers, body })
      const json = (status: number, value: unknown) => {
        response.writeHead(status, { "content-type": "application/json" })
        response.end(JSON.stringify(value))
      }
      if (options.auth !== undefined && request.headers[options.auth.header.toLowerCase()] !== options.auth.value) {
        return json(401, { error: "unauthorized" })
      }
      if (new URL(request.url ?? "/", "http://127.0.0.1").pathname !== "/api/agent") {
        return json(404, { error: "not found" })
      }
      if (request.method !== "POST") return json(405, { error: "method not allowed" })
      const input = RunAgentInputSchema.safeParse(body)
      if (!input.success) return json(400, { error: "not a RunAgentInput", issues: input.error.issues })
      const encoder = new EventEncoder(
        request.headers.accept === undefined ? undefined : { accept: request.headers.accept }
      )
      response.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache" })
      for await (const event of runAgent(input.data as RunAgentInput, options, ran)) {
        const stamped = options.clock === undefined ? event : { ...event, timestamp: options.clock() }
        response.write(encoder.encodeBinary(stamped))
      }
      response.end()
    })().catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)))
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    ran,
    close: () =>
      new Promise<void>((resolve, reject) => server.close((error) => error === undefined ? resolve() : reject(error)))
  }
}
