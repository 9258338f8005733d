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
      citations: [cite("/docs/x", "unsurfaced"), cite("/docs/a"), cite("/docs/y", "unsurfaced"), cite("/docs/x", "unsurfaced")]
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
})
