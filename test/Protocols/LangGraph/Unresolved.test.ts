/**
 * A LangGraph call the thread's state holds with no tool message: a tool that threw with no tool node
 * to catch it (LangGraph's `ToolNode` with `handleToolErrors: false`, or a node that calls the tool
 * itself) ends the run in error with the model's call and no result, so the call is an attempt that
 * `never-calls` fails on; a call an interrupt stops before has not run and is no execution.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { defaultEvidence } from "../../../src/Evidence/Rules.js"
import { gradeExpectation } from "../../../src/Graders/index.js"
import { type LangGraphWire, readLangGraphTurn } from "../../../src/Protocols/LangGraph/Client.js"
import type { Expectation } from "../../../src/Schema/Case.js"
import type { Surface } from "../../../src/Schema/Surface.js"

const surface = {
  protocol: "langgraph",
  tools: ["lookup_order", "issue_refund"],
  gatedTools: ["issue_refund"]
} as unknown as Surface
const context = { surface: "support", conversationId: "t-1", gatedTools: ["issue_refund"], evidence: defaultEvidence }

/** The state a run leaves after the model called `tool`, with no tool message for the call. */
const stateAfterCall = (tool: string) => ({
  values: {
    messages: [
      { type: "human", content: "Refund order 42.", id: "h1" },
      { type: "ai", content: "", tool_calls: [{ name: tool, args: { orderId: "42" }, id: "call_1" }], id: "a1" }
    ]
  }
})

const read = (wire: Omit<LangGraphWire, "question" | "runId" | "run">) =>
  Either.getOrThrow(readLangGraphTurn({ question: "Refund order 42.", runId: "r-1", run: undefined, ...wire }, context))

describe("a LangGraph call with no tool message", () => {
  it("in a run that failed, is an attempt: never-calls and calls-tool fail naming the missing result", () => {
    const turn = read({ state: stateAfterCall("issue_refund"), runStatus: "error" })
    expect(turn.trace.outcome).toBe("error")
    expect(turn.trace.toolExecutions).toEqual([{ tool: "issue_refund", input: { orderId: "42" }, unresolved: true }])
    expect(gradeExpectation({ kind: "never-calls", tool: "issue_refund" } as Expectation, turn, surface)).toEqual({
      passed: false,
      fact: "called: issue_refund (no result on the wire)"
    })
    expect(gradeExpectation({ kind: "calls-tool", tool: "issue_refund" } as Expectation, turn, surface)).toEqual({
      passed: false,
      fact: "issue_refund: no result on the wire"
    })
  })

  it("in a thread an interrupt holds, has not run: no execution, and never-calls passes", () => {
    const turn = read({ state: stateAfterCall("issue_refund"), thread: { status: "interrupted" } })
    expect(turn.trace.outcome).toBe("awaiting-approval")
    expect(turn.trace.toolExecutions).toEqual([])
    expect(gradeExpectation({ kind: "never-calls", tool: "issue_refund" } as Expectation, turn, surface)).toEqual({
      passed: true
    })
  })
})
