/**
 * CopilotKit's own AG-UI agent, `BuiltInAgent` (@copilotkitnext/agent: the agent CopilotKit's runtime v2
 * serves), on loopback at `POST /api/agent`, playing the protocol scenarios (test/support/scenarios.ts)
 * over the AI SDK 6 mock model. The agent runs the AI SDK's `streamText` and turns its parts into AG-UI
 * events itself; this app only takes the `RunAgentInput` (checked with @ag-ui/core's schema) and writes
 * the agent's events through @ag-ui/encoder, as CopilotKit's runtime does. What the agent sends is
 * its own: a tool that throws leaves `TOOL_CALL_START`/`ARGS`/`END` and no result (the agent passes
 * the AI SDK's `tool-error` part on as nothing); a frontend tool the run input declares (`tools`) has
 * no `execute`, so its call is streamed and the run finishes with it waiting for the client — CopilotKit's
 * way of asking a person (`useHumanInTheLoop`).
 */
import type { RunAgentInput } from "@ag-ui/core"
import { RunAgentInputSchema } from "@ag-ui/core/schemas"
import { EventEncoder } from "@ag-ui/encoder"
import { BuiltInAgent, defineTool } from "@copilotkitnext/agent"
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai-v6/test"
import { createServer, type IncomingMessage } from "node:http"
import type { AddressInfo } from "node:net"
import { z } from "zod"
import { type Scenario, type ScenarioCall, scenarioFor } from "../scenarios.js"
import { oneTokenUsage, type V3StreamPart } from "./mockStream.js"

/** A running app. */
export interface BuiltInAgentApp {
  readonly url: string
  /** The run inputs it was posted, in order. */
  readonly inputs: ReadonlyArray<RunAgentInput>
  readonly close: () => Promise<void>
}

/** The text of a prompt message's parts. */
const textOf = (content: unknown): string =>
  typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.map((p: { type?: string; text?: string }) => (p.type === "text" ? p.text ?? "" : "")).join("")
    : ""

/**
 * The model's next step in `scenario`: as many of its calls made as the prompt holds tool results (an
 * errored call's result is the AI SDK's `error-text` output), then the answer or the failure.
 */
const nextStep = (
  scenario: Scenario | undefined,
  prompt: ReadonlyArray<{ role: string; content: unknown }>
): ReadonlyArray<V3StreamPart> => {
  const made = prompt.flatMap((m) =>
    m.role === "tool" && Array.isArray(m.content)
      ? m.content.filter((p: { type?: string }) => p.type === "tool-result")
      : []
  ).length
  const start: V3StreamPart = { type: "stream-start", warnings: [] }
  if (scenario === undefined) return [start, { type: "error", error: new Error("no scenario for this question") }]
  const call = scenario.calls[made]
  if (call !== undefined) {
    return [
      start,
      { type: "tool-call", toolCallId: `call_${made}`, toolName: call.tool, input: JSON.stringify(call.input) },
      { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: oneTokenUsage }
    ]
  }
  if (scenario.fails !== undefined) return [start, { type: "error", error: new Error(scenario.fails) }]
  return [
    start,
    { type: "text-start", id: "answer" },
    { type: "text-delta", id: "answer", delta: scenario.answer ?? "" },
    { type: "text-end", id: "answer" },
    { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: oneTokenUsage }
  ]
}

/** A tool the agent runs in `scenario`: its call's output, or its error thrown. */
const runs = (scenario: Scenario | undefined, name: ScenarioCall["tool"], description: string) =>
  defineTool({
    name,
    description,
    parameters: z.record(z.string(), z.string()),
    execute: async () => {
      const call = scenario?.calls.find((c) => c.tool === name)
      if (call?.error !== undefined) throw new Error(call.error)
      return call?.output ?? null
    }
  })

/** The question a run input asks: its last user message. */
const questionOf = (input: RunAgentInput): string =>
  textOf(input.messages.filter((m) => m.role === "user").at(-1)?.content)

/** A new agent for one run, its tools playing the run's scenario, as CopilotKit clones its agent per run. */
const agentFor = (input: RunAgentInput) => {
  const scenario = scenarioFor(questionOf(input))
  return new BuiltInAgent({
    // The mock model is the AI SDK 6 provider's, the version the agent runs.
    model: new MockLanguageModelV3({
      doStream: async ({ prompt }) => ({
        stream: convertArrayToReadableStream<V3StreamPart>([...nextStep(scenario, prompt as never)])
      })
    }) as never,
    maxSteps: 8,
    tools: [
      runs(scenario, "search_kb", "Search the knowledge base"),
      runs(scenario, "lookup_order", "Look an order up")
    ]
  })
}

const readBody = async (request: IncomingMessage): Promise<string> => {
  const chunks: Array<Buffer> = []
  for await (const chunk of request) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString("utf8")
}

/** Starts the app on 127.0.0.1 at a free port; a request without the `auth` header's value is answered 401. */
export const startBuiltInAgentApp = async (auth: { readonly header: string; readonly value: string }): Promise<
  BuiltInAgentApp
> => {
  const inputs: Array<RunAgentInput> = []
  const server = createServer((request, response) => {
    void (async () => {
      if (request.headers[auth.header.toLowerCase()] !== auth.value) {
        response.writeHead(401, { "content-type": "application/json" })
        return response.end(JSON.stringify({ error: "unauthorized" }))
      }
      const parsed = RunAgentInputSchema.safeParse(JSON.parse(await readBody(request)))
      if (request.method !== "POST" || request.url !== "/api/agent" || !parsed.success) {
        response.writeHead(400, { "content-type": "application/json" })
        return response.end(JSON.stringify({ error: "not a RunAgentInput on POST /api/agent" }))
      }
      const input = parsed.data as RunAgentInput
      inputs.push(input)
      const encoder = new EventEncoder(
        request.headers.accept === undefined ? undefined : { accept: request.headers.accept }
      )
      response.writeHead(200, { "content-type": encoder.getContentType(), "cache-control": "no-cache" })
      agentFor(input).run(input as never).subscribe({
        next: (event) => void response.write(encoder.encodeBinary(event as never)),
        // The agent sends RUN_ERROR itself before it errors: the stream just ends.
        error: () => response.end(),
        complete: () => response.end()
      })
    })().catch((error: unknown) => response.destroy(error instanceof Error ? error : new Error(String(error))))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    inputs,
    close: () =>
      new Promise<void>((resolve, reject) => server.close((error) => error === undefined ? resolve() : reject(error)))
  }
}
