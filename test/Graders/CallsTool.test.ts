import { describe, expect, it } from "@effect/vitest"
import { callsTool } from "../../src/Graders/CallsTool.js"
import { call, docsSurface, turn } from "../support/turns.js"

const expectation = { kind: "calls-tool", tool: "catalog" } as const

describe("callsTool", () => {
  it("passes when the tool ran without error", () => {
    expect(callsTool(expectation, turn({ toolExecutions: [call("search_docs"), call("catalog")] }), docsSurface))
      .toEqual({ passed: true })
  })

  it("treats a null or empty error as success", () => {
    expect(callsTool(expectation, turn({ toolExecutions: [call("catalog", null)] }), docsSurface).passed).toBe(true)
    expect(callsTool(expectation, turn({ toolExecutions: [call("catalog", "")] }), docsSurface).passed).toBe(true)
  })

  it("passes when an errored attempt was retried successfully", () => {
    const t = turn({ toolExecutions: [call("catalog", "timeout"), call("catalog")] })
    expect(callsTool(expectation, t, docsSurface)).toEqual({ passed: true })
  })

  it("fails with the error when every call errored", () => {
    const t = turn({ toolExecutions: [call("catalog", "timeout"), call("catalog", "timeout"), call("catalog", "HTTP 502")] })
    expect(callsTool(expectation, t, docsSurface)).toEqual({
      passed: false,
      fact: "catalog errored: timeout; catalog errored: HTTP 502"
    })
  })

  it("fails when the tool was never called, even if others were", () => {
    expect(callsTool(expectation, turn({ toolExecutions: [call("search_docs")] }), docsSurface)).toEqual({
      passed: false,
      fact: "not called: catalog"
    })
  })

  it("fails on an empty trace", () => {
    expect(callsTool(expectation, turn(), docsSurface)).toEqual({ passed: false, fact: "not called: catalog" })
  })

  it("lists at most 20 distinct errors, each clipped, then how many more there are", () => {
    const calls = Array.from({ length: 50 }, (_, i) => call("catalog", `${i} ${"e".repeat(300)}`))
    const items = callsTool(expectation, turn({ toolExecutions: calls }), docsSurface).fact!.split("; ")
    expect(items).toHaveLength(21)
    expect(items[0]).toBe(`catalog errored: 0 ${"e".repeat(198)}…`)
    expect(items[20]).toBe("… and 30 more")
  })
})
