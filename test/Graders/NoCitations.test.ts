import { describe, expect, it } from "@effect/vitest"
import { noCitations } from "../../src/Graders/NoCitations.js"
import { cite, docsSurface, turn } from "../support/turns.js"

const expectation = { kind: "no-citations" } as const

describe("noCitations", () => {
  it("passes on a turn that cites nothing", () => {
    expect(noCitations(expectation, turn(), docsSurface)).toEqual({ passed: true })
  })

  it("names every cited path, surfaced or not, once", () => {
    const t = turn({ citations: [cite("/docs/a"), cite("/docs/b", "unsurfaced"), cite("/docs/a", "quote")] })
    expect(noCitations(expectation, t, docsSurface)).toEqual({ passed: false, fact: "cited: /docs/a, /docs/b" })
  })

  it("lists at most 20 paths, then how many more there are", () => {
    const citations = Array.from({ length: 25 }, (_, i) => cite(`/docs/${i}`))
    const fact = noCitations(expectation, turn({ citations }), docsSurface).fact!
    expect(fact).toBe(`cited: ${Array.from({ length: 20 }, (_, i) => `/docs/${i}`).join(", ")}, … and 5 more`)
  })
})
