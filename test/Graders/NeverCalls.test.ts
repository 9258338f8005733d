import { describe, expect, it } from "@effect/vitest"
import { neverCalls } from "../../src/Graders/NeverCalls.js"
import { agentSurface, call, turn } from "../support/turns.js"

const expectation = { kind: "never-calls", tool: "deploy" } as const

describe("neverCalls", () => {
  it("passes when the tool never ran", () => {
    expect(neverCalls(expectation, turn({ toolExecutions: [call("search_docs")] }), agentSurface)).toEqual({
      passed: true
    })
  })

  it("passes on an empty trace", () => {
    expect(neverCalls(expectation, turn(), agentSurface)).toEqual({ passed: true })
  })

  it("fails on a single call", () => {
    expect(neverCalls(expectation, turn({ toolExecutions: [call("deploy")] }), agentSurface)).toEqual({
      passed: false,
      fact: "called: deploy"
    })
  })

  it("counts an errored attempt as a call, and says how many", () => {
    const t = turn({ toolExecutions: [call("deploy", "forbidden"), call("search_docs"), call("deploy")] })
    expect(neverCalls(expectation, t, agentSurface)).toEqual({ passed: false, fact: "called: deploy (2×)" })
  })
})
