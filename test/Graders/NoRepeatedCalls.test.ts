import { describe, expect, it } from "@effect/vitest"
import { NoRepeatedCalls, noRepeatedCalls } from "../../src/Graders/NoRepeatedCalls.js"
import type { ToolExecution } from "../../src/Schema/Trace.js"
import { call, callWith, docsSurface, turn } from "../support/turns.js"

const grade = (expectation: typeof NoRepeatedCalls.Type, ...calls: Array<ToolExecution>) =>
  noRepeatedCalls(expectation, turn({ toolExecutions: calls }), docsSurface)

const any = { kind: "no-repeated-calls" } as const

describe("noRepeatedCalls", () => {
  it("passes when no tool ran twice with equal inputs", () => {
    expect(grade(any)).toEqual({ passed: true })
    expect(
      grade(any, callWith("search_docs", { query: "refund" }), callWith("search_docs", { query: "refund policy" }))
    )
      .toEqual({ passed: true })
  })

  it("fails on a repeat, with the input and how many times it ran", () => {
    const refund = callWith("search_docs", { query: "refund" })
    expect(grade(any, refund, callWith("catalog", {}), refund, refund)).toEqual({
      passed: false,
      fact: "repeated: search_docs {\"query\":\"refund\"} 3×"
    })
  })

  it("does not take the same input to two tools as a repeat", () => {
    expect(grade(any, callWith("search_docs", { service: "x" }), callWith("catalog", { service: "x" }))).toEqual({
      passed: true
    })
  })

  it("ignores key order, at every level, and shows the input as first recorded", () => {
    expect(grade(
      any,
      callWith("search_docs", { query: "refund", filter: { lang: "en", year: 2024 } }),
      callWith("search_docs", { filter: { year: 2024, lang: "en" }, query: "refund" })
    )).toEqual({
      passed: false,
      fact: "repeated: search_docs {\"query\":\"refund\",\"filter\":{\"lang\":\"en\",\"year\":2024}} 2×"
    })
  })

  it("compares deeply and strictly: 1 is not \"1\", and array order matters", () => {
    expect(grade(any, callWith("catalog", { page: 1 }), callWith("catalog", { page: "1" }))).toEqual({ passed: true })
    expect(grade(any, callWith("catalog", { page: 0 }), callWith("catalog", { page: false }))).toEqual({ passed: true })
    expect(grade(any, callWith("catalog", { page: null }), callWith("catalog", {}))).toEqual({ passed: true })
    expect(grade(any, callWith("catalog", { ids: [1, 2] }), callWith("catalog", { ids: [2, 1] }))).toEqual({
      passed: true
    })
    expect(grade(any, callWith("catalog", { ids: [1, 2] }), callWith("catalog", { ids: [1, 2, 2] }))).toEqual({
      passed: true
    })
    expect(
      grade(any, callWith("catalog", { items: [{ a: 1, b: [2] }] }), callWith("catalog", { items: [{ b: [2], a: 1 }] }))
        .passed
    )
      .toBe(false)
  })

  it("counts errored executions: a retry with the same input is a repeat", () => {
    expect(
      grade(any, callWith("search_docs", { query: "refund" }, "timeout"), callWith("search_docs", { query: "refund" }))
    ).toEqual({
      passed: false,
      fact: "repeated: search_docs {\"query\":\"refund\"} 2×"
    })
  })

  it("compares an execution without input as null", () => {
    expect(grade(any, call("catalog"), call("catalog"))).toEqual({ passed: false, fact: "repeated: catalog null 2×" })
    expect(grade(any, call("catalog"), callWith("catalog", null))).toEqual({
      passed: false,
      fact: "repeated: catalog null 2×"
    })
    expect(grade(any, call("catalog"), callWith("catalog", {}))).toEqual({ passed: true })
  })

  it("with a tool, looks only at that tool's executions", () => {
    const onlySearch = { kind: "no-repeated-calls", tool: "search_docs" } as const
    expect(grade(onlySearch, callWith("catalog", {}), callWith("catalog", {}), callWith("search_docs", { q: 1 })))
      .toEqual({ passed: true })
    expect(
      grade(
        onlySearch,
        callWith("catalog", {}),
        callWith("search_docs", { q: 1 }),
        callWith("catalog", {}),
        callWith("search_docs", { q: 1 })
      )
    )
      .toEqual({ passed: false, fact: "repeated: search_docs {\"q\":1} 2×" })
  })

  it("joins several repeats with '; ' in the order they were first seen", () => {
    const a = callWith("search_docs", { query: "a" })
    const b = callWith("catalog", { service: "b" })
    expect(grade(any, a, b, a, b, b)).toEqual({
      passed: false,
      fact: "repeated: search_docs {\"query\":\"a\"} 2×; repeated: catalog {\"service\":\"b\"} 3×"
    })
    expect(grade(any, b, a, b, a)).toEqual({
      passed: false,
      fact: "repeated: catalog {\"service\":\"b\"} 2×; repeated: search_docs {\"query\":\"a\"} 2×"
    })
  })

  it("clips the input shown to 200 characters", () => {
    const long = { query: "q".repeat(5_000) }
    expect(grade(any, callWith("search_docs", long), callWith("search_docs", long)).fact)
      .toBe(`repeated: search_docs ${JSON.stringify(long).slice(0, 200)}… 2×`)
  })
})
