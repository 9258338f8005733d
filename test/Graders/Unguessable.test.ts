/**
 * What a person coming from another eval tool would not guess about grading, as docs/contract.md says
 * it: a JSON text input is text, integers past 2^53 are one number, RE2's `$` and `\d`, the recorded
 * order of parallel calls, and a malformed `usage` refusing the whole recorded turn.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { answerMatches } from "../../src/Graders/AnswerMatches.js"
import { callsInOrder } from "../../src/Graders/CallsInOrder.js"
import { callsTool } from "../../src/Graders/CallsTool.js"
import { noRepeatedCalls } from "../../src/Graders/NoRepeatedCalls.js"
import { decodeJson } from "../../src/Schema/Decode.js"
import { fastRecordedTurn, RecordedTurn, type Turn } from "../../src/Schema/Trace.js"
import { callWith, docsSurface, turn } from "../support/turns.js"

/** A recorded turn's file, its tool executions and usage given as JSON text, decoded as a run reads it. */
const recorded = (executions: string, usage = "") =>
  decodeJson(
    RecordedTurn,
    "cases/fixtures/docs.x.json",
    `{"caseId": "docs.x", "question": "Q?", "answer": "A.", "trace": {"turnId": "t1", "surface": "docs",
      "outcome": "answered", "citations": [], "proposal": null, "toolExecutions": ${executions}${usage}}}`,
    "lenient",
    fastRecordedTurn
  )

describe("what grading does that another eval tool might not", () => {
  it("compares an input recorded as JSON text as text, not as the value it spells", () => {
    const asText = turn({ toolExecutions: [callWith("catalog", "{\"service\":\"search-api\"}")] })
    expect(callsTool({ kind: "calls-tool", tool: "catalog", with: { service: "search-api" } }, asText, docsSurface))
      .toEqual({
        passed: false,
        fact:
          "not called with {\"service\":\"search-api\"}: catalog ran 1× with \"{\\\"service\\\":\\\"search-api\\\"}\""
      })
    const both = turn({
      toolExecutions: [
        callWith("catalog", "{\"service\":\"search-api\"}"),
        callWith("catalog", { service: "search-api" })
      ]
    })
    expect(noRepeatedCalls({ kind: "no-repeated-calls" }, both, docsSurface)).toEqual({ passed: true })
  })

  it("reads integers past 2^53 as the nearest double: two ids one apart are one number", () => {
    const read = recorded(
      "[{\"tool\": \"catalog\", \"input\": {\"id\": 9007199254740993}, \"output\": 1}, " +
        "{\"tool\": \"catalog\", \"input\": {\"id\": 9007199254740992}, \"output\": 2}]"
    )
    const { trace } = Either.getOrThrow(read)
    const t: Turn = { answer: "A.", trace }
    expect(noRepeatedCalls({ kind: "no-repeated-calls" }, t, docsSurface)).toEqual({
      passed: false,
      fact: "repeated: catalog {\"id\":9007199254740992} 2×"
    })
    const only = { answer: "A.", trace: { ...trace, toolExecutions: trace.toolExecutions.slice(1) } }
    const wanted = JSON.parse("{\"id\": 9007199254740993}") as unknown
    expect(callsTool({ kind: "calls-tool", tool: "catalog", with: wanted }, only, docsSurface)).toEqual({
      passed: true
    })
  })

  it("matches patterns as RE2 does: $ not before a final newline, \\d only ASCII digits", () => {
    const matches = (pattern: string, answer: string, flags?: string) =>
      answerMatches(
        { kind: "answer-matches", pattern, ...(flags === undefined ? {} : { flags }) },
        turn({}, answer),
        docsSurface
      ).passed
    expect(matches("done$", "done")).toBe(true)
    expect(matches("done$", "done\n")).toBe(false)
    expect(matches("done$", "done\n", "m")).toBe(true)
    expect(matches("done\\s*$", "done\n")).toBe(true)
    expect(matches("^\\d+$", "٤٢")).toBe(false)
    expect(matches("^\\p{Nd}+$", "٤٢")).toBe(true)
  })

  it("grades calls in the order they were recorded, parallel calls included", () => {
    const parallel = turn({ toolExecutions: [callWith("catalog", { a: 1 }), callWith("search_docs", { q: "x" })] })
    expect(callsInOrder({ kind: "calls-in-order", tools: ["search_docs", "catalog"] }, parallel, docsSurface)).toEqual({
      passed: false,
      fact: "order: catalog → search_docs (expected search_docs → catalog)"
    })
  })

  it("refuses the whole recorded turn when its usage is malformed, not just its usage", () => {
    expect(Either.isRight(recorded("[]", ", \"usage\": {\"inputTokens\": 3, \"outputTokens\": 4}"))).toBe(true)
    const bad = recorded("[]", ", \"usage\": {\"inputTokens\": -1, \"outputTokens\": 4}")
    expect(Either.map(Either.flip(bad), (e) => e.summary)).toEqual(
      Either.right(expect.stringContaining("$.trace.usage.inputTokens"))
    )
  })
})
