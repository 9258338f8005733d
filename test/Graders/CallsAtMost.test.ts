import { describe, expect, it } from "@effect/vitest"
import { CallsAtMost, callsAtMost } from "../../src/Graders/CallsAtMost.js"
import type { ToolExecution } from "../../src/Schema/Trace.js"
import { call, docsSurface, turn } from "../support/turns.js"

const grade = (expectation: typeof CallsAtMost.Type, ...calls: Array<ToolExecution>) =>
  callsAtMost(expectation, turn({ toolExecutions: calls }), docsSurface)

const times = (n: number, execution: ToolExecution): Array<ToolExecution> => Array.from({ length: n }, () => execution)

const threeSearches = { kind: "calls-at-most", tool: "search_docs", times: 3 } as const

describe("callsAtMost", () => {
  it("passes up to and at the bound", () => {
    expect(grade(threeSearches)).toEqual({ passed: true })
    expect(grade(threeSearches, ...times(3, call("search_docs")))).toEqual({ passed: true })
  })

  it("fails past the bound, with the count", () => {
    expect(grade(threeSearches, ...times(7, call("search_docs")))).toEqual({
      passed: false,
      fact: "called: search_docs 7× (at most 3)"
    })
  })

  it("counts executions that errored", () => {
    expect(
      grade(
        threeSearches,
        call("search_docs"),
        call("search_docs", "timeout"),
        call("search_docs"),
        call("search_docs", "HTTP 502")
      )
    )
      .toEqual({ passed: false, fact: "called: search_docs 4× (at most 3)" })
  })

  it("counts only the named tool", () => {
    expect(grade(threeSearches, ...times(3, call("search_docs")), ...times(5, call("catalog")))).toEqual({
      passed: true
    })
  })

  it("counts every tool's executions, errored ones too, when no tool is named", () => {
    const any = { kind: "calls-at-most", times: 3 } as const
    expect(grade(any, call("search_docs"), call("catalog"), call("deploy", "denied"))).toEqual({ passed: true })
    expect(grade(any, ...times(4, call("search_docs")), call("catalog"), call("catalog", "timeout"), call("deploy")))
      .toEqual({
        passed: false,
        fact: "called: 7 tool executions (at most 3)"
      })
  })

  it("with times 0, passes only when the tool never ran, even unsuccessfully", () => {
    const never = { kind: "calls-at-most", tool: "deploy", times: 0 } as const
    expect(grade(never, call("search_docs"))).toEqual({ passed: true })
    expect(grade(never, call("deploy", "denied"))).toEqual({ passed: false, fact: "called: deploy 1× (at most 0)" })
    expect(grade({ kind: "calls-at-most", times: 0 })).toEqual({ passed: true })
    expect(grade({ kind: "calls-at-most", times: 0 }, call("search_docs"), call("catalog"))).toEqual({
      passed: false,
      fact: "called: 2 tool executions (at most 0)"
    })
  })
})
