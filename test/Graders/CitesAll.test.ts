import { describe, expect, it } from "@effect/vitest"
import { CitesAll, citesAll } from "../../src/Graders/CitesAll.js"
import type { Citation } from "../../src/Schema/Trace.js"
import { cite, docsSurface, turn } from "../support/turns.js"

const grade = (expectation: typeof CitesAll.Type, ...citations: Array<Citation>) =>
  citesAll(expectation, turn({ citations }), docsSurface)

const both = { kind: "cites-all", paths: ["/docs/a", "/docs/b"] } as const

describe("citesAll", () => {
  it("passes when every path is cited by a surfaced citation, by path or by quote", () => {
    expect(grade(both, cite("/docs/b", "quote"), cite("/docs/x"), cite("/docs/a"))).toEqual({ passed: true })
    expect(grade({ kind: "cites-all", paths: ["/docs/a"] }, cite("/docs/a"))).toEqual({ passed: true })
  })

  it("fails naming the missing paths in the order paths lists them", () => {
    expect(grade(both)).toEqual({ passed: false, fact: "not cited: /docs/a, /docs/b" })
    expect(grade({ kind: "cites-all", paths: ["/docs/b", "/docs/c", "/docs/a"] }, cite("/docs/a"), cite("/docs/c")))
      .toEqual({
        passed: false,
        fact: "not cited: /docs/b"
      })
    expect(grade({ kind: "cites-all", paths: ["/docs/b", "/docs/c", "/docs/a"] }, cite("/docs/c"))).toEqual({
      passed: false,
      fact: "not cited: /docs/b, /docs/a"
    })
  })

  it("does not count a recalled citation, and marks its path as cited unsurfaced", () => {
    expect(grade(both, cite("/docs/b", "unsurfaced"), cite("/docs/a"))).toEqual({
      passed: false,
      fact: "not cited: /docs/b (cited unsurfaced)"
    })
    expect(grade(both, cite("/docs/a", "unsurfaced"))).toEqual({
      passed: false,
      fact: "not cited: /docs/a (cited unsurfaced), /docs/b"
    })
  })

  it("passes a path cited both recalled and surfaced", () => {
    expect(grade(both, cite("/docs/a", "unsurfaced"), cite("/docs/a"), cite("/docs/b", "quote"))).toEqual({
      passed: true
    })
  })

  it("matches each path exactly", () => {
    expect(grade({ kind: "cites-all", paths: ["/docs/a"] }, cite("/docs/a/"), cite("/DOCS/A"), cite("/docs/ab")))
      .toEqual({
        passed: false,
        fact: "not cited: /docs/a"
      })
  })

  it("needs a path listed twice cited once, and names it once", () => {
    const twice = { kind: "cites-all", paths: ["/docs/a", "/docs/b", "/docs/a"] } as const
    expect(grade(twice, cite("/docs/a"), cite("/docs/b"))).toEqual({ passed: true })
    expect(grade(twice, cite("/docs/b"))).toEqual({ passed: false, fact: "not cited: /docs/a" })
  })
})
