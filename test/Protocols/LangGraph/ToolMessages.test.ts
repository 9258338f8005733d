/**
 * What the LangGraph reader takes from a turn's tool messages, over states as the server serialises
 * LangChain's messages: a tool's JSON text content surfaces items without an artifact, and a tool
 * message in `status: "error"` is an error even when its content is empty.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { defaultEvidence } from "../../../src/Evidence/Rules.js"
import { callsTool } from "../../../src/Graders/CallsTool.js"
import { readLangGraphTurn } from "../../../src/Protocols/LangGraph/Client.js"
import type { Turn } from "../../../src/Schema/Trace.js"

const question = "How long do refunds take?"

/** The turn a state read: the question, a `search_kb` call, its tool message, then the answer. */
const turnWith = (toolMessage: Record<string, unknown>, answer: string): Turn => {
  const messages = [
    { type: "human", content: question },
    { type: "ai", content: "", tool_calls: [{ name: "search_kb", args: { query: "refunds" }, id: "c1" }] },
    { type: "tool", tool_call_id: "c1", name: "search_kb", ...toolMessage },
    { type: "ai", content: answer }
  ]
  const read = readLangGraphTurn(
    { question, runId: "run-1", run: {}, state: { values: { messages } } },
    { surface: "support", conversationId: "t-1", gatedTools: [], evidence: defaultEvidence }
  )
  return Either.getOrThrow(read)
}

describe("a LangGraph tool message", () => {
  it("surfaces the items its JSON text content names, with no artifact", () => {
    const turn = turnWith(
      { content: "{\"path\": \"/kb/refunds\"}", status: "success" },
      "Refunds take 30 days, see [Refunds](/kb/refunds)."
    )
    expect(turn.trace.toolExecutions).toEqual([{
      tool: "search_kb",
      input: { query: "refunds" },
      output: "{\"path\": \"/kb/refunds\"}",
      error: null
    }])
    expect(turn.trace.citations).toEqual([{ path: "/kb/refunds", match: "path" }])
  })

  it("in status error is an error even with empty content, and fails calls-tool", () => {
    for (const content of ["", []]) {
      const turn = turnWith({ content, status: "error" }, "I could not search.")
      expect(turn.trace.toolExecutions).toEqual([{
        tool: "search_kb",
        input: { query: "refunds" },
        error: "status: error"
      }])
      expect(callsTool({ kind: "calls-tool", tool: "search_kb" }, turn, { tools: ["search_kb"] })).toEqual({
        passed: false,
        fact: "search_kb errored: status: error"
      })
    }
  })
})
