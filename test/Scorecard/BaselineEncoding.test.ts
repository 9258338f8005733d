/** The baseline's committed text: the K only when above 1, an empty history as `[]`. */
import { describe, expect, it } from "@effect/vitest"
import { encodeBaseline } from "../../src/Scorecard/BaselineStore.js"

describe("encodeBaseline", () => {
  it("writes the K of --repeat only when it is above 1", () => {
    expect(encodeBaseline({ floor: 0.5, repeat: 1 })).toBe("{\n  \"floor\": 0.5\n}\n")
    expect(encodeBaseline({ floor: 0.5, repeat: 2 })).toBe("{\n  \"floor\": 0.5,\n  \"repeat\": 2\n}\n")
  })

  it("writes an empty history on the line of its key", () => {
    expect(encodeBaseline({ floor: 0.5, history: [] })).toBe("{\n  \"floor\": 0.5,\n  \"history\": []\n}\n")
  })
})
