/**
 * How the `ag-ui` reader tells one tool call from another, and what it makes of a call the run never
 * resolves: a `toolCallId` started again or renamed is no turn (@ag-ui/client folds it into the first
 * call), a started call with no result is an attempt, and a gated one the client is to run is the proposal.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { resolveEvidence } from "../../../src/Evidence/Rules.js"
import { gradeExpectation } from "../../../src/Graders/index.js"
import { readAgUiEvents } from "../../../src/Protocols/AgUi/Client.js"
import type { ReadContext } from "../../../src/Protocols/Protocol.js"
import type { Expectation } from "../../../src/Schema/Case.js"
import type { Surface } from "../../../src/Schema/Surface.js"
import type { Turn } from "../../../src/Schema/Trace.js"

const surface = {
  protocol: "ag-ui",
  endpoint: "/api/agent",
  tools: ["search_kb", "lookup_order", "issue_refund"],
  gatedTools: ["issue_refund"]
} as unknown as Surface

const context: ReadContext = {
  surface: "support",
  conversationId: "thread",
  gatedTools: ["issue_refund"],
  evidence: resolveEvidence(surface)
}

const read = (events: ReadonlyArray<unknown>, frontendTools: ReadonlyArray<string> = []): Turn =>
  Either.getOrThrow(readAgUiEvents(events, context, "run", frontendTools))
const reason = (events: ReadonlyArray<unknown>): string =>
  Either.getOrThrow(Either.flip(readAgUiEvents(events, context, "run")))
const factOf = (expectation: Expectation, turn: Turn) => gradeExpectation(expectation, turn, surface)

const started = { type: "RUN_STARTED", threadId: "thread", runId: "run" }
const finished = { type: "RUN_FINISHED", threadId: "thread", runId: "run", outcome: { type: "success" } }
const call = (id: string, tool: string, args: string) => [
  { type: "TOOL_CALL_START", toolCallId: id, toolCallName: tool },
  { type: "TOOL_CALL_ARGS", toolCallId: id, delta: args },
  { type: "TOOL_CALL_END", toolCallId: id }
]
const result = (id: string, content: string) => ({
  type: "TOOL_CALL_RESULT",
  messageId: `r-${id}`,
  toolCallId: id,
  content
})

describe("a tool call id named twice", () => {
  it("a call started again is no turn: the reason names the id and both tools", () => {
    const events = [
      started,
      ...call("c1", "issue_refund", "{\"orderId\":\"42\"}"),
      result("c1", "{\"refunded\":true}"),
      ...call("c1", "search_kb", "{\"query\":\"refunds\"}"),
      result("c1", "[]"),
      finished
    ]
    expect(reason(events)).toBe(
      `event 5 (TOOL_CALL_START): tool call "c1" was started again ("issue_refund", then "search_kb")`
    )
  })

  it("a chunk that starts a closed call again, or renames the open one, is no turn", () => {
    const chunk = (id: string, tool: string, delta: string) => ({
      type: "TOOL_CALL_CHUNK",
      toolCallId: id,
      toolCallName: tool,
      delta
    })
    expect(
      reason([started, chunk("c", "issue_refund", "{}"), result("c", "{}"), chunk("c", "issue_refund", "{}"), finished])
    )
      .toBe(`event 3 (TOOL_CALL_CHUNK): tool call "c" was started again ("issue_refund", then "issue_refund")`)
    expect(reason([started, chunk("c", "search_kb", "{"), chunk("c", "issue_refund", "}"), finished]))
      .toBe(`event 2 (TOOL_CALL_CHUNK): tool call "c" was renamed ("search_kb", then "issue_refund")`)
  })

  it("a snapshot naming a streamed call is the same call; naming it as another tool is no turn", () => {
    const snapshot = (tool: string) => ({
      type: "MESSAGES_SNAPSHOT",
      messages: [
        { id: "u", role: "user", content: "Where is order 42?" },
        {
          id: "a",
          role: "assistant",
          toolCalls: [{ id: "c", type: "function", function: { name: tool, arguments: "{}" } }]
        },
        { id: "r", role: "tool", toolCallId: "c", content: "{\"status\":\"shipped\"}" }
      ]
    })
    const streamed = [started, ...call("c", "lookup_order", "{}"), result("c", "{\"status\":\"shipped\"}")]
    expect(read([...streamed, snapshot("lookup_order"), finished]).trace.toolExecutions).toEqual([
      { tool: "lookup_order", input: {}, output: { status: "shipped" }, error: null }
    ])
    expect(reason([...streamed, snapshot("issue_refund"), finished])).toBe(
      `event 5 (MESSAGES_SNAPSHOT): tool call "c" was renamed ("lookup_order", then "issue_refund")`
    )
  })
})

describe("a call the run never resolves", () => {
  it("is an attempt: never-calls fails on it, calls-tool fails naming why", () => {
    // What a tool that throws leaves on Mastra's and CopilotKit's AG-UI streams: the call, and no result.
    const turn = read([started, ...call("c", "issue_refund", "{\"orderId\":\"42\"}"), finished])
    expect(turn.trace.toolExecutions).toEqual([{ tool: "issue_refund", input: { orderId: "42" }, unresolved: true }])
    expect(turn.trace.outcome).toBe("answered")
    expect(factOf({ kind: "never-calls", tool: "issue_refund" } as Expectation, turn)).toEqual({
      passed: false,
      fact: "called: issue_refund (no result on the wire)"
    })
    expect(factOf({ kind: "calls-tool", tool: "issue_refund" } as Expectation, turn)).toEqual({
      passed: false,
      fact: "issue_refund: no result on the wire"
    })
  })

  it("a run that errors leaves its unresolved calls as attempts too", () => {
    const turn = read([started, ...call("c", "lookup_order", "{}"), { type: "RUN_ERROR", message: "boom" }])
    expect(turn.trace.outcome).toBe("error")
    expect(turn.trace.toolExecutions).toEqual([{ tool: "lookup_order", input: {}, unresolved: true }])
  })

  it("a gated frontend tool's call, left for the client to run, is the proposal; a call an interrupt names is its action", () => {
    const events = [started, ...call("c", "issue_refund", "{\"orderId\":\"42\"}"), finished]
    const turn = read(events, ["issue_refund"])
    expect(turn.trace.outcome).toBe("awaiting-approval")
    expect(turn.trace.toolExecutions).toEqual([])
    expect(turn.trace.proposal).toEqual({
      id: "c",
      summary: "issue_refund",
      status: "pending",
      actions: [{ toolCallId: "c", tool: "issue_refund", input: { orderId: "42" } }]
    })
    expect(factOf({ kind: "stops-at-approval" } as Expectation, turn)).toEqual({ passed: true })
    // The run's own word that the client is to run it (`pendingToolCallIds`) says the same.
    const pending = { ...finished, outcome: { type: "success", pendingToolCallIds: ["c"] } }
    expect(read([started, ...call("c", "issue_refund", "{\"orderId\":\"42\"}"), pending]).trace.proposal?.id).toBe("c")
  })

  it("a gated frontend call left for the client in a run an interrupt ends is an action of the interrupts' proposal", () => {
    // The interrupt concerns another call; the frontend call is neither run nor shown, unless the proposal holds it.
    const interrupted = {
      ...finished,
      outcome: { type: "interrupt", interrupts: [{ id: "i-1", reason: "tool_call", toolCallId: "l" }] }
    }
    const events = [started, ...call("l", "lookup_order", "{}"), ...call("c", "issue_refund", "{}"), interrupted]
    const turn = read(events, ["issue_refund"])
    expect(turn.trace.toolExecutions).toEqual([])
    expect(turn.trace.proposal).toEqual({
      id: "i-1",
      summary: "tool_call",
      status: "pending",
      actions: [
        { id: "i-1", reason: "tool_call", toolCallId: "l", tool: "lookup_order", input: {} },
        { toolCallId: "c", tool: "issue_refund", input: {} }
      ]
    })
    expect(factOf({ kind: "stops-at-approval" } as Expectation, turn)).toEqual({ passed: true })
  })
})
