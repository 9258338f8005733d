/**
 * A real `useChat` app's chat route on loopback, for the `ai-sdk` protocol: `POST /api/chat` takes the
 * body `useChat` sends and answers with the AI SDK's own UI message stream — `streamText` over the
 * library's mock model and real `tool({...})` tools, turned into a response by the library (v7's
 * `toUIMessageStream` + `createUIMessageStreamResponse`, v6's and v5's `toUIMessageStreamResponse`). v5
 * has no `needsApproval`: a tool that needs a person is declared without `execute`, the v5 way to leave
 * its call to the client (the person confirms, the client runs it). The mock
 * model plays the scenario of the last user message (test/support/scenarios.ts): one tool call per
 * step, then the answer or the failure; the tools return, throw, or wait for approval as scripted.
 * Each model call reports its tokens (usage.ts), which the library's stream does not carry; with
 * `usageMetadata` the app sends their total as its own message metadata, as the AI SDK's docs show.
 * Chats are kept by the body's `id` until `DELETE /api/chat?id=ID`.
 */
import {
  convertToModelMessages,
  createUIMessageStreamResponse,
  isStepCount,
  streamText,
  tool,
  toUIMessageStream,
  type UIMessage
} from "ai"
import {
  convertToModelMessages as convertToModelMessages5,
  stepCountIs as stepCountIs5,
  streamText as streamText5,
  tool as tool5,
  type ToolSet as ToolSet5,
  type UIMessage as UIMessage5
} from "ai-v5"
import { MockLanguageModelV2 } from "ai-v5/test"
import {
  convertToModelMessages as convertToModelMessages6,
  stepCountIs as stepCountIs6,
  streamText as streamText6,
  tool as tool6,
  type UIMessage as UIMessage6
} from "ai-v6"
import { MockLanguageModelV3 } from "ai-v6/test"
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo } from "node:net"
import { Readable } from "node:stream"
import type { ReadableStream as NodeReadableStream } from "node:stream/web"
import { z } from "zod"
import { answerOf, type Scenario, type ScenarioCall, scenarioFor } from "../scenarios.js"
import { modelCallUsage } from "./usage.js"

/** How to start the app. */
export interface AiSdkAppOptions {
  /** The AI SDK major version whose stream the route answers with. */
  readonly version: 5 | 6 | 7
  /** A header every request must carry with this value, else 401. */
  readonly auth?: { readonly header: string; readonly value: string }
  /**
   * Send an error's own message to the client (`onError: (error) => error.message`), as an app that
   * shows its users what failed does; by default the library's own text (v6: "An error occurred.").
   */
  readonly errorMessages?: boolean
  /**
   * Send the turn's tokens as the answer's metadata on its `finish` chunk, as the AI SDK's docs show an
   * app doing (`messageMetadata: ({ part }) => part.type === "finish" ? { totalUsage: part.totalUsage } : undefined`):
   * the app's own metadata, in a shape it chooses.
   */
  readonly usageMetadata?: boolean
  /** Answer with the AI SDK's plain text stream (`toTextStreamResponse()`), as a route that streams text only does. */
  readonly textStream?: boolean
}

/** A request the app got. */
export interface AiSdkAppRequest {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>
  readonly body: string
}

/** A running app. */
export interface AiSdkApp {
  /** The origin, `http://127.0.0.1:PORT`. */
  readonly url: string
  /** The chats the app holds, by id. */
  readonly chats: ReadonlySet<string>
  /** Every request, in order. */
  readonly requests: ReadonlyArray<AiSdkAppRequest>
  /** Every tool the app's tools ran, with its input, in order. */
  readonly ran: ReadonlyArray<{ readonly tool: string; readonly input: unknown }>
  readonly close: () => Promise<void>
}

/** The message id of the answer in v7 (the app persists messages, so it names them); v6 apps leave it unset. */
export const answerMessageId = (chatId: string): string => `msg-${chatId}`

type ToolName = ScenarioCall["tool"]

/** The tools' input schemas, as the app declares them. */
const inputSchemas: Record<ToolName, z.ZodType<Readonly<Record<string, string>>>> = {
  search_kb: z.object({ query: z.string() }),
  lookup_order: z.object({ orderId: z.string() }),
  issue_refund: z.object({ orderId: z.string() })
}

const toolNames: ReadonlyArray<ToolName> = ["search_kb", "lookup_order", "issue_refund"]

/** What a tool does when it runs: the scenario's output, or its error thrown. */
/** Where the app notes each tool it runs. */
type Ran = Array<{ readonly tool: string; readonly input: unknown }>

const execute =
  (ran: Ran, name: ToolName, call: ScenarioCall | undefined) => async (input: unknown): Promise<unknown> => {
    ran.push({ tool: name, input })
    if (call === undefined) throw new Error("no call of this tool is scripted")
    if (call.error !== undefined) throw new Error(call.error)
    return call.output ?? null
  }

const callOf = (scenario: Scenario, name: ToolName) => scenario.calls.find((call) => call.tool === name)

const tools7 = (scenario: Scenario, ran: Ran) =>
  Object.fromEntries(toolNames.map((name) => [
    name,
    tool({
      description: `the ${name} tool`,
      inputSchema: inputSchemas[name],
      needsApproval: callOf(scenario, name)?.needsApproval === true,
      execute: execute(ran, name, callOf(scenario, name))
    })
  ]))

const tools6 = (scenario: Scenario, ran: Ran) =>
  Object.fromEntries(toolNames.map((name) => [
    name,
    tool6({
      description: `the ${name} tool`,
      inputSchema: inputSchemas[name],
      needsApproval: callOf(scenario, name)?.needsApproval === true,
      execute: execute(ran, name, callOf(scenario, name))
    })
  ]))

// v5 asks a person by leaving the tool without `execute`: its call is the client's to confirm and run.
const tools5 = (scenario: Scenario, ran: Ran): ToolSet5 =>
  Object.fromEntries(toolNames.map((name) => [
    name,
    callOf(scenario, name)?.needsApproval === true
      ? tool5({ description: `the ${name} tool`, inputSchema: inputSchemas[name] })
      : tool5({
        description: `the ${name} tool`,
        inputSchema: inputSchemas[name],
        execute: execute(ran, name, callOf(scenario, name))
      })
  ]))

/** The tokens the turn's `n`-th model call reports, in the mock models' shape. */
const usageOf = (n: number) => {
  const { inputTokens, outputTokens } = modelCallUsage(n)
  return {
    inputTokens: { total: inputTokens, noCache: inputTokens, cacheRead: 0, cacheWrite: 0 },
    outputTokens: { total: outputTokens, text: outputTokens, reasoning: 0 }
  }
}

/** The parts the mock models stream: those both the v6 and the v7 model interfaces define alike. */
type StreamPart =
  | { readonly type: "stream-start"; readonly warnings: Array<never> }
  | { readonly type: "tool-input-start"; readonly id: string; readonly toolName: string }
  | { readonly type: "tool-input-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "tool-input-end"; readonly id: string }
  | { readonly type: "tool-call"; readonly toolCallId: string; readonly toolName: string; readonly input: string }
  | { readonly type: "text-start"; readonly id: string }
  | { readonly type: "text-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "text-end"; readonly id: string }
  | { readonly type: "error"; readonly error: unknown }
  | {
    readonly type: "finish"
    readonly finishReason: { readonly unified: "stop" | "tool-calls"; readonly raw: string }
    readonly usage: ReturnType<typeof usageOf>
  }

/** The messages of the prompt since its last user message: the turn under way (a follow-up starts afresh). */
const sinceQuestion = <M extends { readonly role: string }>(prompt: ReadonlyArray<M>): ReadonlyArray<M> =>
  prompt.slice(prompt.map((m) => m.role).lastIndexOf("user") + 1)

/** The tool calls the turn under way already holds: the model's next step is the one after them. */
const callsMade = (prompt: ReadonlyArray<{ role: string; content: unknown }>): number =>
  sinceQuestion(prompt).filter((m) => m.role === "assistant" && Array.isArray(m.content))
    .flatMap((m) => m.content as Array<{ type?: unknown }>)
    .filter((part) => part.type === "tool-call").length

/**
 * The decision a person made on the turn's waiting call, as the prompt carries it: a denial is the
 * call's tool result; an approval, the tool's own result (the app ran it), which the model reaches only
 * once its calls, the one that waited last, are all made.
 */
const decisionIn = (
  scenario: Scenario,
  prompt: ReadonlyArray<{ role: string; content: unknown }>
): "approved" | "denied" | undefined => {
  const results = sinceQuestion(prompt).filter((m) => m.role === "tool" && Array.isArray(m.content))
    .flatMap((m) => m.content as Array<{ type?: unknown; output?: { type?: unknown } }>)
    .filter((p) => p.type === "tool-result")
  if (results.some((p) => p.output?.type === "execution-denied")) return "denied"
  return scenario.calls.at(-1)?.needsApproval === true && results.length >= scenario.calls.length
    ? "approved"
    : undefined
}

/** The answer in the pieces a model streams it in: a word and its following space at a time. */
const answerDeltas = (answer: string): ReadonlyArray<string> => answer.match(/\S+\s*/g) ?? []

/**
 * The stream parts of the model's next step: the scenario's next call, else its failure (a provider
 * error part, as a provider reports an overloaded API mid-stream), else its answer.
 */
const stepParts = (
  scenario: Scenario,
  made: number,
  decided?: "approved" | "denied"
): Array<StreamPart> => {
  const call = scenario.calls[made]
  if (call !== undefined) {
    return [
      { type: "stream-start", warnings: [] },
      // A provider streams the call's input before the call itself.
      { type: "tool-input-start", id: `call_${made + 1}`, toolName: call.tool },
      { type: "tool-input-delta", id: `call_${made + 1}`, delta: JSON.stringify(call.input) },
      { type: "tool-input-end", id: `call_${made + 1}` },
      { type: "tool-call", toolCallId: `call_${made + 1}`, toolName: call.tool, input: JSON.stringify(call.input) },
      { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: usageOf(made + 1) }
    ]
  }
  if (scenario.fails !== undefined) {
    return [{ type: "stream-start", warnings: [] }, { type: "error", error: new Error(scenario.fails) }]
  }
  const id = `text_${made + 1}`
  return [
    { type: "stream-start", warnings: [] },
    { type: "text-start", id },
    ...answerDeltas(answerOf(scenario, decided)).map((delta): StreamPart => ({ type: "text-delta", id, delta })),
    { type: "text-end", id },
    { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: usageOf(made + 1) }
  ]
}

const model7 = (scenario: Scenario) =>
  new MockLanguageModelV4({
    doStream: async ({ prompt }) => ({
      stream: convertArrayToReadableStream(stepParts(scenario, callsMade(prompt), decisionIn(scenario, prompt)))
    })
  })

// The v2 model interface's `finish` takes a plain reason and flat token counts; its other parts are alike.
const model5 = (scenario: Scenario) =>
  new MockLanguageModelV2({
    doStream: async ({ prompt }) => ({
      stream: convertArrayToReadableStream(
        stepParts(scenario, callsMade(prompt), decisionIn(scenario, prompt)).map((part) =>
          part.type === "finish"
            ? {
              type: "finish" as const,
              finishReason: part.finishReason.unified,
              usage: {
                inputTokens: part.usage.inputTokens.total,
                outputTokens: part.usage.outputTokens.total,
                totalTokens: part.usage.inputTokens.total + part.usage.outputTokens.total
              }
            }
            : part
        )
      )
    })
  })

const model6 = (scenario: Scenario) =>
  new MockLanguageModelV3({
    doStream: async ({ prompt }) => ({
      stream: convertArrayToReadableStream(stepParts(scenario, callsMade(prompt), decisionIn(scenario, prompt)))
    })
  })

/** The steps a scenario may take: one per call and the answer, and one more so a runaway loop shows. */
const maxSteps = (scenario: Scenario) => scenario.calls.length + 2

/** The model's failure reaches the client as the stream's error chunk; the app logs nothing of it. */
const quiet = () => {}

/** The chat route's answer, as the app's route handler returns it. */
/** An error's own message, for the client. */
const messageOf = (error: unknown): string => error instanceof Error ? error.message : String(error)

/** The app's own metadata on the answer's `finish` chunk: the turn's total usage, as the AI SDK's docs show. */
const usageMetadata = ({ part }: { readonly part: { readonly type: string } }) =>
  part.type === "finish" && "totalUsage" in part ? { totalUsage: part.totalUsage } : undefined

const answer = async (
  version: 5 | 6 | 7,
  chatId: string,
  messages: Array<UIMessage>,
  scenario: Scenario,
  options: AiSdkAppOptions,
  ran: Ran
): Promise<Response> => {
  const errorMessages = options.errorMessages === true
  const metadata = options.usageMetadata === true ? { messageMetadata: usageMetadata } : {}
  if (version === 7) {
    const tools = tools7(scenario, ran)
    const result = streamText({
      model: model7(scenario),
      messages: await convertToModelMessages(messages, { tools }),
      tools,
      stopWhen: isStepCount(maxSteps(scenario)),
      onError: quiet
    })
    return createUIMessageStreamResponse({
      stream: toUIMessageStream({
        stream: result.stream,
        tools,
        originalMessages: messages,
        generateMessageId: () => answerMessageId(chatId),
        ...(errorMessages ? { onError: messageOf } : {}),
        ...metadata
      })
    })
  }
  if (version === 5) {
    const tools = tools5(scenario, ran)
    const result = streamText5({
      model: model5(scenario),
      messages: convertToModelMessages5(messages as Array<UIMessage5>, { tools }),
      tools,
      stopWhen: stepCountIs5(maxSteps(scenario)),
      onError: quiet
    })
    return result.toUIMessageStreamResponse({ ...(errorMessages ? { onError: messageOf } : {}), ...metadata })
  }
  const tools = tools6(scenario, ran)
  const result = streamText6({
    model: model6(scenario),
    messages: await convertToModelMessages6(messages as Array<UIMessage6>, { tools }),
    tools,
    stopWhen: stepCountIs6(maxSteps(scenario)),
    onError: quiet
  })
  if (options.textStream === true) return result.toTextStreamResponse()
  return result.toUIMessageStreamResponse({ ...(errorMessages ? { onError: messageOf } : {}), ...metadata })
}

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}

const send = (response: ServerResponse, status: number, text: string) => {
  response.writeHead(status, { "content-type": "text/plain; charset=utf-8" }).end(text)
}

/** The text of the last user message of a `useChat` body, if it has one. */
const lastUserText = (messages: ReadonlyArray<UIMessage>): string | undefined => {
  const last = messages.filter((m) => m.role === "user").at(-1)
  return last?.parts.flatMap((p) => (p.type === "text" ? [p.text] : [])).join("")
}

/** Starts the app on 127.0.0.1 at a free port. */
export const startAiSdkApp = async (options: AiSdkAppOptions): Promise<AiSdkApp> => {
  const chats = new Set<string>()
  const requests: Array<AiSdkAppRequest> = []
  const ran: Ran = []

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const body = await readBody(request)
    requests.push({ method: request.method ?? "", url: request.url ?? "", headers: { ...request.headers }, body })
    if (options.auth !== undefined && request.headers[options.auth.header.toLowerCase()] !== options.auth.value) {
      return send(response, 401, "unauthorized")
    }
    const url = new URL(request.url ?? "/", "http://127.0.0.1")
    if (url.pathname !== "/api/chat") return send(response, 404, "not found")
    if (request.method === "DELETE") {
      const id = url.searchParams.get("id") ?? ""
      return chats.delete(id) ? send(response, 200, "deleted") : send(response, 404, "no such chat")
    }
    if (request.method !== "POST") return send(response, 405, "method not allowed")
    let parsed: { id?: unknown; messages?: unknown }
    try {
      parsed = JSON.parse(body) as typeof parsed
    } catch {
      return send(response, 400, "the body is not JSON")
    }
    if (typeof parsed.id !== "string" || !Array.isArray(parsed.messages)) {
      return send(response, 400, "expected {id, messages}")
    }
    const messages = parsed.messages as Array<UIMessage>
    const scenario = scenarioFor(lastUserText(messages) ?? "")
    if (scenario === undefined) return send(response, 400, "no scenario for this question")
    chats.add(parsed.id)
    const answered = await answer(options.version, parsed.id, messages, scenario, options, ran)
    response.writeHead(answered.status, Object.fromEntries(answered.headers))
    if (answered.body === null) return response.end()
    Readable.fromWeb(answered.body as NodeReadableStream<Uint8Array>).pipe(response)
  }

  const server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (!response.headersSent) send(response, 500, error instanceof Error ? error.message : String(error))
      else response.destroy()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    chats,
    requests,
    ran,
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error === undefined ? resolve() : reject(error)))
      })
  }
}
