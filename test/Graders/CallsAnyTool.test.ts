import { describe, expect, it } from "@effect/vitest"
import { callsAnyTool } from "../../src/Graders/CallsAnyTool.js"
import { call, docsSurface, turn } from "../support/turns.js"

const expectation = { kind: "calls-any-tool" } as const

describe("callsAnyTool", () => {
  it("passes when any tool ran without error", () => {
    const t = turn({ toolExecutions: [call("catalog", "timeout"), call("search_docs")] })
    expect(callsAnyTool(expectation, t, docsSurface)).toEqual({ passed: true })
  })

  it("fails with 'no tool ran' on an empty trace", () => {
    expect(callsAnyTool(expectation, turn(), docsSurface)).toEqual({ passed: false, fact: "no tool ran" })
  })

  it("fails with the errors when every call errored", () => {
    const t = turn({ toolExecutions: [call("catalog", "timeout"), call("search_docs", "index offline")] })
    expect(callsAnyTool(expectation, t, docsSurface)).toEqual({
      passed: false,
      fact: "catalog errored: timeout; search_docs errored: index offline"
    })
  })

  it("clips tool names like values and lists at most 20 distinct errors", () => {
    const huge = call("t".repeat(1_000_000), "down")
    expect(callsAnyTool(expectation, turn({ toolExecutions: [huge] }), docsSurface).fact).toBe(
      `${"t".repeat(200)}… errored: down`
    )
    const many = Array.from({ length: 1_021 }, (_, i) => call("catalog", `error ${i}`))
    const items = callsAnyTool(expectation, turn({ toolExecutions: many }), docsSurface).fact!.split("; ")
    expect(items).toHaveLength(21)
    expect(items[20]).toBe("… and 1,001 more")
  })
})
