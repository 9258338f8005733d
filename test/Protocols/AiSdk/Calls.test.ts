/**
 * How the `ai-sdk` reader tells one tool call from another, and what it makes of a call the stream never
 * resolves: a `toolCallId` started again (or renamed) in its step is no turn, the same id in a later
 * step is another call (the library's own `readUIMessageStream` keys them so), a started call with no
 * result is an attempt, a gated one left for the client is the proposal, and `[DONE]` ends a turn.
 */
import { describe, expect, it } from "@effect/vitest"
import { isStepCount, readUIMessageStream, streamText, tool, toUIMessageStream, type UIMessageChunk } from "ai"
import { convertArrayToReadableStream, MockLanguageModelV4 } from "ai/test"
import { Either } from "effect"
import { z } from "zod"
import { resolveEvidence } from "../../../src/Evidence/Rules.js"
import { gradeExpectation } from "../../../src/Graders/index.js"
import { readAiSdkStream } from "../../../src/Protocols/AiSdk/Client.js"
import type { ReadContext } from "../../../src/Protocols/Protocol.js"
import type { Expectation } from "../../../src/Schema/Case.js"
import type { Surface } from "../../../src/Schema/Surface.js"
import type { Turn } from "../../../src/Schema/Trace.js"

const surface = {
  protocol: "ai-sdk",
  endpoint: "/api/chat",
  tools: ["search_kb", "lookup_order", "issue_refund"],
  gatedTools: ["issue_refund"]
} as unknown as Surface

const context: ReadContext = {
  surface: "support",
  conversationId: "chat",
  gatedTools: ["issue_refund"],
  evidence: resolveEvidence(surface)
}

const read = (chunks: ReadonlyArray<unknown>, done = false): Turn =>
  Either.getOrThrow(readAiSdkStream(chunks, context, done))
const reason = (chunks: ReadonlyArray<unknown>, done = false): string =>
  Either.getOrThrow(Either.flip(readAiSdkStream(chunks, context, done)))
const factOf = (expectation: Expectation, turn: Turn) => gradeExpectation(expectation, turn, surface)

const input = (id: string, toolName: string, value: unknown) => ({
  type: "tool-input-available",
  toolCallId: id,
  toolName,
  input: value
})
const output = (id: string, value: unknown) => ({ type: "tool-output-available", toolCallId: id, output: value })
const finish = { type: "finish", finishReason: "stop" }

/** The mock model's stream parts this file uses. */
type StreamPart =
  | { readonly type: "stream-start"; readonly warnings: Array<never> }
  | { readonly type: "tool-call"; readonly toolCallId: string; readonly toolName: string; readonly input: string }
  | { readonly type: "text-start" | "text-end"; readonly id: string }
  | { readonly type: "text-delta"; readonly id: string; readonly delta: string }
  | {
    readonly type: "finish"
    readonly finishReason: { readonly unified: "stop" | "tool-calls"; readonly raw: string }
    readonly usage: {
      readonly inputTokens: { total: number; noCache: number; cacheRead: number; cacheWrite: number }
      readonly outputTokens: { total: number; text: number; reasoning: number }
    }
  }

describe("a tool call id named twice", () => {
  it("a call started again in its step is no turn: the reason names the id and both tools", () => {
    // A gated call that ran hidden behind a harmless one with the same id.
    const chunks = [
      { type: "start" },
      { type: "start-step" },
      input("call_1", "issue_refund", { orderId: "42" }),
      output("call_1", { refunded: true }),
      input("call_1", "search_kb", { query: "refunds" }),
      output("call_1", []),
      { type: "finish-step" },
      finish
    ]
    expect(reason(chunks)).toBe(
      `chunk 5 (tool-input-available): tool call "call_1" was started again ("issue_refund", then "search_kb")`
    )
    expect(
      reason([
        input("c", "lookup_order", {}),
        { type: "tool-input-start", toolCallId: "c", toolName: "lookup_order" },
        finish
      ])
    )
      .toBe(`chunk 2 (tool-input-start): tool call "c" was started again ("lookup_order", then "lookup_order")`)
  })

  it("a call whose tool name changes is no turn", () => {
    const chunks = [
      { type: "tool-input-start", toolCallId: "c", toolName: "search_kb" },
      { type: "tool-input-delta", toolCallId: "c", inputTextDelta: "{}" },
      input("c", "issue_refund", { orderId: "42" }),
      finish
    ]
    expect(reason(chunks)).toBe(
      `chunk 3 (tool-input-available): tool call "c" was renamed ("search_kb", then "issue_refund")`
    )
  })

  it("start, deltas, then the whole input is one call", () => {
    const turn = read([
      { type: "tool-input-start", toolCallId: "c", toolName: "lookup_order" },
      { type: "tool-input-delta", toolCallId: "c", inputTextDelta: "{\"orderId\":\"42\"}" },
      input("c", "lookup_order", { orderId: "42" }),
      output("c", { status: "shipped" }),
      finish
    ])
    expect(turn.trace.toolExecutions).toEqual([{
      tool: "lookup_order",
      input: { orderId: "42" },
      output: { status: "shipped" }
    }])
  })

  it("a provider that numbers calls per step gives the same id in each step: two calls, as the library reads them", async () => {
    // The library's own streamText over its mock model, the model naming its call `call_0` in each step.
    const steps = [
      { toolName: "lookup_order", input: { orderId: "42" } },
      { toolName: "issue_refund", input: { orderId: "42" } }
    ]
    let step = 0
    const usage = {
      inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
      outputTokens: { total: 1, text: 1, reasoning: 0 }
    }
    const model = new MockLanguageModelV4({
      doStream: async () => {
        const call = steps[step++]
        return {
          stream: convertArrayToReadableStream<StreamPart>(
            call === undefined
              ? [
                { type: "stream-start", warnings: [] },
                { type: "text-start", id: "t" },
                { type: "text-delta", id: "t", delta: "Refunded." },
                { type: "text-end", id: "t" },
                { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage }
              ]
              : [
                { type: "stream-start", warnings: [] },
                { type: "tool-call", toolCallId: "call_0", toolName: call.toolName, input: JSON.stringify(call.input) },
                { type: "finish", finishReason: { unified: "tool-calls", raw: "tool_calls" }, usage }
              ]
          )
        }
      }
    })
    const result = streamText({
      model,
      prompt: "Refund order 42.",
      stopWhen: isStepCount(4),
      tools: {
        lookup_order: tool({ inputSchema: z.object({ orderId: z.string() }), execute: async () => ({ paid: true }) }),
        issue_refund: tool({
          inputSchema: z.object({ orderId: z.string() }),
          execute: async () => ({ refunded: true })
        })
      }
    })
    const chunks: Array<UIMessageChunk> = []
    for await (const chunk of toUIMessageStream(result)) chunks.push(chunk)
    expect(chunks.filter((c) => c.type === "tool-input-available").map((c) => c.toolCallId)).toEqual([
      "call_0",
      "call_0"
    ])

    // The library's reader keeps two tool parts...
    let last: ReadonlyArray<{ readonly type: string }> = []
    for await (const message of readUIMessageStream({ stream: convertArrayToReadableStream(chunks) })) {
      last = message.parts
    }
    expect(last.filter((p) => p.type.startsWith("tool-")).map((p) => p.type)).toEqual([
      "tool-lookup_order",
      "tool-issue_refund"
    ])
    // ...and so does the suite: the gated call that ran is not hidden.
    const turn = read(chunks)
    expect(turn.trace.toolExecutions).toEqual([
      { tool: "lookup_order", input: { orderId: "42" }, output: { paid: true } },
      { tool: "issue_refund", input: { orderId: "42" }, output: { refunded: true } }
    ])
    expect(factOf({ kind: "never-calls", tool: "issue_refund" } as Expectation, turn)).toEqual({
      passed: false,
      fact: "called: issue_refund"
    })
  })
})

describe("a call the stream never resolves", () => {
  it("is an attempt: never-calls fails on it, calls-tool fails naming why", () => {
    const turn = read([input("c", "lookup_order", { orderId: "42" }), finish])
    expect(turn.trace.toolExecutions).toEqual([{ tool: "lookup_order", input: { orderId: "42" }, unresolved: true }])
    expect(factOf({ kind: "never-calls", tool: "lookup_order" } as Expectation, turn)).toEqual({
      passed: false,
      fact: "called: lookup_order (no result on the wire)"
    })
    expect(factOf({ kind: "calls-tool", tool: "lookup_order" } as Expectation, turn)).toEqual({
      passed: false,
      fact: "lookup_order: no result on the wire"
    })
  })

  it("a gated tool's call left for the client to run (a tool without execute) is the proposal", () => {
    const turn = read([{ type: "start-step" }, input("call_9", "issue_refund", { orderId: "42" }), {
      type: "finish",
      finishReason: "tool-calls"
    }])
    expect(turn.trace.outcome).toBe("awaiting-approval")
    expect(turn.trace.proposal).toEqual({
      id: "call_9",
      summary: "issue_refund",
      actions: [{ tool: "issue_refund", input: { orderId: "42" } }]
    })
    expect(turn.trace.toolExecutions).toEqual([])
    expect(factOf({ kind: "stops-at-approval" } as Expectation, turn)).toEqual({ passed: true })
  })

  it("a gated call left so in a turn that failed is an attempt, not a proposal", () => {
    const turn = read([input("c", "issue_refund", { orderId: "42" }), { type: "error", errorText: "boom" }])
    expect(turn.trace.outcome).toBe("error")
    expect(turn.trace.proposal).toBeNull()
    expect(turn.trace.toolExecutions).toEqual([{ tool: "issue_refund", input: { orderId: "42" }, unresolved: true }])
  })
})

describe("the end of the stream", () => {
  const suspended = [
    { type: "start" },
    { type: "start-step" },
    input("c", "issue_refund", { orderId: "42" }),
    { type: "tool-approval-request", approvalId: "a1", toolCallId: "c" }
  ]

  it("[DONE] ends a turn with no finish chunk: a call awaiting approval is the proposal", () => {
    const turn = read(suspended, true)
    expect(turn.trace.outcome).toBe("awaiting-approval")
    expect(turn.trace.proposal).toEqual({
      id: "a1",
      summary: "issue_refund",
      actions: [{ tool: "issue_refund", input: { orderId: "42" } }]
    })
    expect(turn.trace.toolExecutions).toEqual([])
  })

  it("a stream cut off with neither a finish nor [DONE] is still no turn", () => {
    expect(reason(suspended)).toBe("the stream broke off after 4 chunks: no finish, error or abort chunk")
  })
})
