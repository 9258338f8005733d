import { describe, expect, it } from "@effect/vitest"
import { CallsInOrder, callsInOrder } from "../../src/Graders/CallsInOrder.js"
import type { ToolExecution } from "../../src/Schema/Trace.js"
import { call, docsSurface, turn } from "../support/turns.js"

const grade = (expectation: typeof CallsInOrder.Type, ...calls: Array<ToolExecution>) =>
  callsInOrder(expectation, turn({ toolExecutions: calls }), docsSurface)

const catalogFirst = { kind: "calls-in-order", tools: ["catalog", "search_docs"] } as const

describe("callsInOrder", () => {
  it("passes when the tools ran in that order, adjacent or with other calls between", () => {
    expect(grade(catalogFirst, call("catalog"), call("search_docs"))).toEqual({ passed: true })
    expect(
      grade(catalogFirst, call("read_config"), call("catalog"), call("deploy"), call("search_docs"), call("deploy"))
    )
      .toEqual({ passed: true })
    expect(grade(catalogFirst, call("search_docs"), call("catalog"), call("search_docs"))).toEqual({ passed: true })
  })

  it("fails when they ran in another order, listing the successful executions of the named tools", () => {
    expect(grade(catalogFirst, call("search_docs"), call("catalog"))).toEqual({
      passed: false,
      fact: "order: search_docs → catalog (expected catalog → search_docs)"
    })
    expect(grade(catalogFirst, call("search_docs"), call("read_config"), call("catalog"), call("deploy"))).toEqual({
      passed: false,
      fact: "order: search_docs → catalog (expected catalog → search_docs)"
    })
  })

  it("takes the order of the trace's executions", () => {
    const expectation = { kind: "calls-in-order", tools: ["read_config", "propose_change"] } as const
    expect(grade(expectation, call("propose_change"), call("read_config"))).toEqual({
      passed: false,
      fact: "order: propose_change → read_config (expected read_config → propose_change)"
    })
  })

  it("does not count an errored execution, in the order or in the fact", () => {
    expect(grade(catalogFirst, call("catalog", "timeout"), call("search_docs"), call("catalog"))).toEqual({
      passed: false,
      fact: "order: search_docs → catalog (expected catalog → search_docs)"
    })
    expect(grade(catalogFirst, call("catalog"), call("search_docs", "HTTP 502")).passed).toBe(false)
    expect(grade(catalogFirst, call("catalog"), call("search_docs", "HTTP 502"), call("search_docs"))).toEqual({
      passed: true
    })
    expect(grade(catalogFirst, call("catalog", null), call("search_docs", ""))).toEqual({ passed: true })
  })

  it("fails when a named tool never ran, still naming what was expected", () => {
    const verdict = grade(catalogFirst, call("catalog"))
    expect(verdict.passed).toBe(false)
    expect(verdict.fact).toMatch(/^order: .* \(expected catalog → search_docs\)$/)
    expect(grade(catalogFirst).passed).toBe(false)
  })

  it("needs a name repeated in tools to run that many times, in order", () => {
    const twice = { kind: "calls-in-order", tools: ["search_docs", "catalog", "search_docs"] } as const
    expect(grade(twice, call("search_docs"), call("catalog"), call("search_docs"))).toEqual({ passed: true })
    expect(grade(twice, call("search_docs"), call("catalog"))).toEqual({
      passed: false,
      fact: "order: search_docs → catalog (expected search_docs → catalog → search_docs)"
    })
    expect(grade(twice, call("search_docs"), call("search_docs"), call("catalog"))).toEqual({
      passed: false,
      fact: "order: search_docs → search_docs → catalog (expected search_docs → catalog → search_docs)"
    })
    expect(grade({ kind: "calls-in-order", tools: ["catalog", "catalog"] }, call("catalog")).passed).toBe(false)
    expect(grade({ kind: "calls-in-order", tools: ["catalog", "catalog"] }, call("catalog"), call("catalog")).passed)
      .toBe(true)
  })

  describe("with exact", () => {
    const exact = { ...catalogFirst, exact: true } as const

    it("passes only when the successful executions are exactly the tools", () => {
      expect(grade(exact, call("catalog"), call("search_docs"))).toEqual({ passed: true })
      expect(grade(exact, call("catalog"), call("deploy"), call("search_docs")).passed).toBe(false)
      expect(grade(exact, call("catalog"), call("search_docs"), call("catalog")).passed).toBe(false)
      expect(grade(exact, call("search_docs"), call("catalog")).passed).toBe(false)
      expect(grade(exact, call("catalog")).passed).toBe(false)
    })

    it("leaves errored executions out", () => {
      expect(grade(exact, call("catalog", "timeout"), call("catalog"), call("deploy", "denied"), call("search_docs")))
        .toEqual({ passed: true })
    })

    it("passes what exact: false would pass, and exact: false is the default", () => {
      const between = [call("catalog"), call("deploy"), call("search_docs")]
      expect(grade({ ...catalogFirst, exact: false }, ...between)).toEqual({ passed: true })
      expect(grade(catalogFirst, ...between)).toEqual({ passed: true })
    })

    // With exact, every tool that ran matters, so the fact lists every successful execution: listing
    // only the named ones would show the expected order when an extra tool is what failed it.
    it("fails with every successful execution and the exact order expected", () => {
      expect(grade(exact, call("search_docs"), call("catalog"))).toEqual({
        passed: false,
        fact: "order: search_docs → catalog (expected exactly catalog → search_docs)"
      })
      expect(grade(exact, call("catalog"), call("deploy"), call("search_docs"))).toEqual({
        passed: false,
        fact: "order: catalog → deploy → search_docs (expected exactly catalog → search_docs)"
      })
      expect(grade(exact, call("catalog", "timeout"), call("search_docs"))).toEqual({
        passed: false,
        fact: "order: search_docs (expected exactly catalog → search_docs)"
      })
    })
  })
})
