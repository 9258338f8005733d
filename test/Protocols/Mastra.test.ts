/**
 * Mastra's AI SDK route (@mastra/ai-sdk `handleChatStream`, version "v6") on loopback, a real Mastra
 * agent over the AI SDK's mock model: the stream it serves when a tool needs approval ends with
 * `tool-approval-request` and `[DONE]`, no `finish`, and reads as a turn awaiting approval; a tool that
 * throws reads as an attempt whose fact is the error's message, not Mastra's serialised error object.
 */
import { describe, expect, it } from "@effect/vitest"
import { handleChatStream } from "@mastra/ai-sdk"
import { Mastra } from "@mastra/core"
import { Agent } from "@mastra/core/agent"
import { createTool } from "@mastra/core/tools"
import { createUIMessageStreamResponse } from "ai-v6"
import { convertArrayToReadableStream, MockLanguageModelV3 } from "ai-v6/test"
import { Either } from "effect"
import { createServer } from "node:http"
import type { AddressInfo } from "node:net"
import { z } from "zod"
import { resolveEvidence } from "../../src/Evidence/Rules.js"
import { gradeExpectation } from "../../src/Graders/index.js"
import { eventStreamChunks, readAiSdkStream } from "../../src/Protocols/AiSdk/Client.js"
import type { Expectation } from "../../src/Schema/Case.js"
import type { Surface } from "../../src/Schema/Surface.js"
import { oneTokenUsage, type V3StreamPart } from "../support/apps/mockStream.js"

process.env["MASTRA_TELEMETRY_DISABLED"] = "1"

const surface = {
  protocol: "ai-sdk",
  endpoint: "/api/chat",
  tools: ["lookup_order", "issue_refund"],
  gatedTools: ["issue_refund"]
} as unknown as Surface
const context = {
  surface: "support",
  conversationId: "chat",
  gatedTools: ["issue_refund"],
  evidence: resolveEvidence(surface)
}

/** A Mastra agent whose mock model calls `tool` once, then answers. */
const mastraOf = (tool: "issue_refund" | "lookup_order") => {
  let step = 0
  const model = new MockLanguageModelV3({
    doStream: async () => ({
      stream: convertArrayToReadableStream<V3StreamPart>(
        step++ === 0
          ? [
            { type: "stream-start", warnings: [] },
            { type: "tool-call", toolCallId: "call_1", toolName: tool, input: JSON.stringify({ orderId: "42" }) },
            { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage: oneTokenUsage }
          ]
          : [
            { type: "stream-start", warnings: [] },
            { type: "text-start", id: "t" },
            { type: "text-delta", id: "t", delta: "Sorry." },
            { type: "text-end", id: "t" },
            { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage: oneTokenUsage }
          ]
      )
    })
  })
  const tools = {
    issue_refund: createTool({
      id: "issue_refund",
      description: "Refund an order",
      inputSchema: z.object({ orderId: z.string() }),
      requireApproval: true,
      execute: async () => ({ refunded: true })
    }),
    lookup_order: createTool({
      id: "lookup_order",
      description: "Look an order up",
      inputSchema: z.object({ orderId: z.string() }),
      execute: async () => {
        throw new Error("order service down", { cause: new Error("order service down") })
      }
    })
  }
  // The mock model's type is the AI SDK 6 provider's; Mastra takes it as it is.
  const agent = new Agent({ id: "support", name: "support", instructions: "Help.", model: model as never, tools })
  return new Mastra({ agents: { support: agent }, logger: false })
}

/** Serves Mastra's chat route on loopback for one request and gives the body it streamed. */
const askMastra = async (tool: "issue_refund" | "lookup_order"): Promise<string> => {
  const mastra = mastraOf(tool)
  const server = createServer((request, response) => {
    void (async () => {
      const chunks: Array<Buffer> = []
      for await (const chunk of request) chunks.push(chunk as Buffer)
      const params = JSON.parse(Buffer.concat(chunks).toString("utf8")) as never
      const stream = await handleChatStream({ mastra, agentId: "support", version: "v6", params })
      const answer = createUIMessageStreamResponse({ stream: stream as never })
      response.writeHead(answer.status, Object.fromEntries(answer.headers))
      response.end(await answer.text())
    })()
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  try {
    const { port } = server.address() as AddressInfo
    const answer = await fetch(`http://127.0.0.1:${port}/api/chat`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({
        id: "chat",
        messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "Refund order 42." }] }],
        trigger: "submit-message"
      })
    })
    return await answer.text()
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

const endsWithDone = (body: string) => /data: \[DONE\]\s*$/.test(body)

describe("Mastra's AI SDK route", () => {
  it("a requireApproval tool ends the stream with [DONE] and no finish: a turn awaiting approval", async () => {
    const body = await askMastra("issue_refund")
    const chunks = Either.getOrThrow(eventStreamChunks(body))
    expect(chunks.map((c) => (c as { type: string }).type)).not.toContain("finish")
    expect(endsWithDone(body)).toBe(true)
    const turn = Either.getOrThrow(readAiSdkStream(chunks, context, endsWithDone(body)))
    expect(turn.trace.outcome).toBe("awaiting-approval")
    expect(turn.trace.proposal).toMatchObject({
      summary: "issue_refund",
      actions: [{ tool: "issue_refund", input: { orderId: "42" } }]
    })
    expect(turn.trace.toolExecutions).toEqual([])
    expect(gradeExpectation({ kind: "stops-at-approval" } as Expectation, turn, surface)).toEqual({ passed: true })
  })

  it("a tool that throws is an attempt whose fact is the error's message", async () => {
    const body = await askMastra("lookup_order")
    const chunks = Either.getOrThrow(eventStreamChunks(body))
    const turn = Either.getOrThrow(readAiSdkStream(chunks, context, endsWithDone(body)))
    expect(gradeExpectation({ kind: "calls-tool", tool: "lookup_order" } as Expectation, turn, surface)).toEqual({
      passed: false,
      fact: "lookup_order errored: order service down"
    })
  })
})
