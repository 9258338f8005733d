import { describe, expect, it } from "@effect/vitest"
import { CallsTool, callsTool } from "../../src/Graders/CallsTool.js"
import type { ToolExecution } from "../../src/Schema/Trace.js"
import { call, callWith, docsSurface, turn } from "../support/turns.js"

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
    const t = turn({
      toolExecutions: [call("catalog", "timeout"), call("catalog", "timeout"), call("catalog", "HTTP 502")]
    })
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

describe("callsTool with an input", () => {
  const search = { kind: "calls-tool", tool: "catalog", with: { service: "search-api" } } as const
  const grade = (expectation: typeof CallsTool.Type, ...calls: Array<ToolExecution>) =>
    callsTool(expectation, turn({ toolExecutions: calls }), docsSurface)

  it("passes when a successful call's input contains the wanted one, other keys aside", () => {
    expect(grade(search, callWith("catalog", { service: "search-api", fields: ["owner"] }))).toEqual({ passed: true })
    expect(
      grade(
        search,
        callWith("catalog", { service: "payments" }),
        callWith("catalog", { fields: [], service: "search-api" })
      )
    )
      .toEqual({ passed: true })
  })

  it("fails with the successful calls counted and their inputs in trace order", () => {
    const verdict = grade(
      search,
      callWith("catalog", { service: "payments" }),
      callWith("search_docs", { service: "search-api" }),
      callWith("catalog", {})
    )
    expect(verdict).toEqual({
      passed: false,
      fact: "not called with {\"service\":\"search-api\"}: catalog ran 2× with {\"service\":\"payments\"}; {}"
    })
  })

  it("writes 1× for one successful call", () => {
    expect(grade(search, callWith("catalog", { service: "payments" })).fact)
      .toBe("not called with {\"service\":\"search-api\"}: catalog ran 1× with {\"service\":\"payments\"}")
  })

  it("does not count an errored call whose input matched, and neither counts nor shows it", () => {
    const verdict = grade(
      search,
      callWith("catalog", { service: "search-api" }, "timeout"),
      callWith("catalog", { service: "payments" })
    )
    expect(verdict).toEqual({
      passed: false,
      fact: "not called with {\"service\":\"search-api\"}: catalog ran 1× with {\"service\":\"payments\"}"
    })
  })

  it("gives plain calls-tool's facts when no call of the tool succeeded", () => {
    expect(grade(search, callWith("search_docs", { service: "search-api" }))).toEqual({
      passed: false,
      fact: "not called: catalog"
    })
    expect(grade(search)).toEqual({ passed: false, fact: "not called: catalog" })
    expect(grade(search, callWith("catalog", { service: "search-api" }, "timeout"))).toEqual({
      passed: false,
      fact: "catalog errored: timeout"
    })
  })

  it("shows the inputs of at most 3 successful calls, and counts them all", () => {
    const calls = Array.from({ length: 5 }, (_, n) => callWith("catalog", { n }))
    const fact = grade(search, ...calls).fact!
    expect(
      fact.startsWith(
        "not called with {\"service\":\"search-api\"}: catalog ran 5× with {\"n\":0}; {\"n\":1}; {\"n\":2}"
      )
    ).toBe(true)
    expect(fact).not.toContain("{\"n\":3}")
    expect(fact).not.toContain("{\"n\":4}")
  })

  it("clips each input shown, and the wanted input, to 200 characters", () => {
    const long = { query: "q".repeat(1_000) }
    const verdict = grade(
      { kind: "calls-tool", tool: "catalog", with: { query: "x".repeat(1_000) } },
      callWith("catalog", long)
    )
    const clipped = (value: unknown) => `${JSON.stringify(value).slice(0, 200)}…`
    expect(verdict.fact).toBe(
      `not called with ${clipped({ query: "x".repeat(1_000) })}: catalog ran 1× with ${clipped(long)}`
    )
  })

  it("looks into nested objects: each key's value must contain the wanted value", () => {
    const nested = { kind: "calls-tool", tool: "catalog", with: { filter: { team: "search" } } } as const
    expect(grade(nested, callWith("catalog", { filter: { team: "search", active: true }, limit: 5 })).passed).toBe(true)
    expect(grade(nested, callWith("catalog", { filter: { team: "billing", active: true } })).passed).toBe(false)
    expect(grade(nested, callWith("catalog", { team: "search" })).passed).toBe(false)
    expect(grade(nested, callWith("catalog", { filter: "search" })).passed).toBe(false)
  })

  it("compares arrays element by element, only with an array of the same length", () => {
    const fields = { kind: "calls-tool", tool: "catalog", with: { fields: ["owner", "tier"] } } as const
    expect(grade(fields, callWith("catalog", { fields: ["owner", "tier"] })).passed).toBe(true)
    expect(grade(fields, callWith("catalog", { fields: ["owner", "tier", "sla"] })).passed).toBe(false)
    expect(grade(fields, callWith("catalog", { fields: ["owner"] })).passed).toBe(false)
    expect(grade(fields, callWith("catalog", { fields: ["tier", "owner"] })).passed).toBe(false)
    const items = { kind: "calls-tool", tool: "catalog", with: { items: [{ id: 1 }] } } as const
    expect(grade(items, callWith("catalog", { items: [{ id: 1, name: "a" }] })).passed).toBe(true)
  })

  it("compares other values by strict equality, with no coercion", () => {
    const one = { kind: "calls-tool", tool: "catalog", with: { replicas: 1 } } as const
    expect(grade(one, callWith("catalog", { replicas: 1 })).passed).toBe(true)
    expect(grade(one, callWith("catalog", { replicas: "1" })).fact)
      .toBe("not called with {\"replicas\":1}: catalog ran 1× with {\"replicas\":\"1\"}")
    expect(grade(one, callWith("catalog", { replicas: true })).passed).toBe(false)
    expect(
      grade({ kind: "calls-tool", tool: "catalog", with: { enabled: false } }, callWith("catalog", { enabled: 0 }))
        .passed
    ).toBe(false)
    expect(grade({ kind: "calls-tool", tool: "catalog", with: { owner: null } }, callWith("catalog", {})).passed).toBe(
      false
    )
    expect(grade({ kind: "calls-tool", tool: "catalog", with: "search-api" }, callWith("catalog", "search-api")).passed)
      .toBe(true)
  })

  it("ignores key order", () => {
    const both = { kind: "calls-tool", tool: "catalog", with: { b: 2, a: 1 } } as const
    expect(grade(both, callWith("catalog", { a: 1, c: 3, b: 2 })).passed).toBe(true)
  })

  it("takes {} as contained by any object input, and by nothing else", () => {
    const empty = { kind: "calls-tool", tool: "catalog", with: {} } as const
    expect(grade(empty, callWith("catalog", { service: "payments" })).passed).toBe(true)
    expect(grade(empty, callWith("catalog", {})).passed).toBe(true)
    expect(grade(empty, callWith("catalog", [])).passed).toBe(false)
    expect(grade(empty, callWith("catalog", "x")).passed).toBe(false)
  })

  it("compares an execution without input as null", () => {
    expect(grade({ kind: "calls-tool", tool: "catalog", with: null }, call("catalog")).passed).toBe(true)
    expect(grade({ kind: "calls-tool", tool: "catalog", with: {} }, call("catalog"))).toEqual({
      passed: false,
      fact: "not called with {}: catalog ran 1× with null"
    })
    expect(grade({ kind: "calls-tool", tool: "catalog", with: null }, callWith("catalog", {}))).toEqual({
      passed: false,
      fact: "not called with null: catalog ran 1× with {}"
    })
  })
})

describe("callsTool when another tool ran", () => {
  const expectation = { kind: "calls-tool", tool: "search_docs" } as const

  it("names the tools that ran instead when the surface's catalog does not list them", () => {
    const t = turn({ toolExecutions: [call("search_kb"), call("catalog"), call("search_kb", "timeout"), call("web")] })
    expect(callsTool(expectation, t, docsSurface)).toEqual({
      passed: false,
      fact: "not called: search_docs; ran instead: search_kb, web (not in the catalog)"
    })
  })

  it("keeps the plain fact when every tool that ran is in the catalog", () => {
    expect(callsTool(expectation, turn({ toolExecutions: [call("catalog")] }), docsSurface)).toEqual({
      passed: false,
      fact: "not called: search_docs"
    })
  })

  it("does not name other tools when the tool ran and errored", () => {
    const t = turn({ toolExecutions: [call("search_docs", "timeout"), call("search_kb")] })
    expect(callsTool(expectation, t, docsSurface)).toEqual({ passed: false, fact: "search_docs errored: timeout" })
  })

  it("lists at most 20 tools outside the catalog, each clipped", () => {
    const calls = Array.from({ length: 25 }, (_, i) => call(`${i}${"t".repeat(300)}`))
    const fact = callsTool(expectation, turn({ toolExecutions: calls }), docsSurface).fact!
    expect(fact.startsWith(`not called: search_docs; ran instead: 0${"t".repeat(199)}…, 1`)).toBe(true)
    expect(fact.endsWith(", … and 5 more (not in the catalog)")).toBe(true)
  })
})
