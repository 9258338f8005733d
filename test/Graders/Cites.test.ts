import { describe, expect, it } from "@effect/vitest"
import { cites } from "../../src/Graders/Cites.js"
import { cite, docsSurface, turn } from "../support/turns.js"

const expectation = { kind: "cites", path: "/docs/refunds" } as const

describe("cites", () => {
  it("passes on a surfaced citation with exactly that path", () => {
    expect(cites(expectation, turn({ citations: [cite("/docs/other"), cite("/docs/refunds", "quote")] }), docsSurface))
      .toEqual({ passed: true })
  })

  it("fails when the path is not cited", () => {
    expect(cites(expectation, turn({ citations: [cite("/docs/other")] }), docsSurface)).toEqual({
      passed: false,
      fact: "not cited: /docs/refunds"
    })
  })

  it("does not count an unsurfaced citation with the right path", () => {
    expect(cites(expectation, turn({ citations: [cite("/docs/refunds", "unsurfaced")] }), docsSurface)).toEqual({
      passed: false,
      fact: "not cited: /docs/refunds (cited unsurfaced)"
    })
  })

  it("matches the path exactly, not as a prefix or case-insensitively", () => {
    const t = turn({ citations: [cite("/docs/refunds-2023"), cite("/DOCS/REFUNDS"), cite("/docs/refunds/")] })
    expect(cites(expectation, t, docsSurface).passed).toBe(false)
  })

  it("fails on an empty trace", () => {
    expect(cites(expectation, turn(), docsSurface)).toEqual({ passed: false, fact: "not cited: /docs/refunds" })
  })
})
