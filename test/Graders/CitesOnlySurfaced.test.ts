import { describe, expect, it } from "@effect/vitest"
import { citesOnlySurfaced } from "../../src/Graders/CitesOnlySurfaced.js"
import { cite, docsSurface, turn } from "../support/turns.js"

const expectation = { kind: "cites-only-surfaced" } as const

describe("citesOnlySurfaced", () => {
  it("passes when every citation matched a surfaced item by path or quote", () => {
    const t = turn({ citations: [cite("/docs/a"), cite("/docs/b", "quote")] })
    expect(citesOnlySurfaced(expectation, t, docsSurface)).toEqual({ passed: true })
  })

  it("passes on a turn that cites nothing", () => {
    expect(citesOnlySurfaced(expectation, turn(), docsSurface)).toEqual({ passed: true })
  })

  it("names each unsurfaced citation once, joined by '; '", () => {
    const t = turn({
      citations: [
        cite("/docs/x", "unsurfaced"),
        cite("/docs/a"),
        cite("/docs/y", "unsurfaced"),
        cite("/docs/x", "unsurfaced")
      ]
    })
    expect(citesOnlySurfaced(expectation, t, docsSurface)).toEqual({
      passed: false,
      fact: "unsurfaced: /docs/x; unsurfaced: /docs/y"
    })
  })

  it("fails a recalled citation even when the same path was also surfaced", () => {
    const t = turn({ citations: [cite("/docs/a"), cite("/docs/a", "unsurfaced")] })
    expect(citesOnlySurfaced(expectation, t, docsSurface)).toEqual({ passed: false, fact: "unsurfaced: /docs/a" })
  })

  it("lists at most 20 offenders, then how many more there are, however many a turn recalls", () => {
    const citations = Array.from({ length: 100_000 }, (_, i) => cite(`/docs/recalled/${i}`, "unsurfaced"))
    const verdict = citesOnlySurfaced(expectation, turn({ citations }), docsSurface)
    const items = verdict.fact!.split("; ")
    expect(items).toHaveLength(21)
    expect(items.slice(0, 20)).toEqual(Array.from({ length: 20 }, (_, i) => `unsurfaced: /docs/recalled/${i}`))
    expect(items[20]).toBe("… and 99,980 more")
  })

  it("clips each offending path to 200 characters", () => {
    const verdict = citesOnlySurfaced(
      expectation,
      turn({ citations: [cite(`/docs/${"x".repeat(1_000_000)}`, "unsurfaced")] }),
      docsSurface
    )
    expect(verdict.fact).toBe(`unsurfaced: /docs/${"x".repeat(194)}…`)
  })
})
