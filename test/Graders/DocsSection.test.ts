/** How `npm run docs` replaces a generated section of a file: between its markers, and only when both are there. */
import { describe, expect, it } from "@effect/vitest"
import { markers, withSection } from "../../src/Graders/Docs.js"

const { begin, end } = markers("kinds")

describe("withSection", () => {
  it("replaces what lies between the markers, keeping the text around them", () => {
    expect(withSection(`# Title\n${begin}\nold\ntable\n${end}\nafter\n`, "kinds", "new"))
      .toBe(`# Title\n${begin}\nnew\n${end}\nafter\n`)
    expect(withSection(`${begin}${end}`, "kinds", "new")).toBe(`${begin}\nnew\n${end}`)
  })

  it("leaves a file without both markers, in that order, alone", () => {
    expect(withSection("no markers", "kinds", "new")).toBeUndefined()
    expect(withSection(`${begin}\nold\n`, "kinds", "new")).toBeUndefined()
    expect(withSection(`old\n${end}\n`, "kinds", "new")).toBeUndefined()
    expect(withSection(`${end}\nold\n${begin}\n`, "kinds", "new")).toBeUndefined()
    expect(withSection(`${markers("examples").begin}\nold\n${markers("examples").end}`, "kinds", "new")).toBeUndefined()
  })
})
