import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { describeJsonError, jsonErrorPosition } from "../../src/Schema/JsonSyntax.js"

const parses = (text: string): boolean => {
  try {
    JSON.parse(text)
    return true
  } catch {
    return false
  }
}

describe("jsonErrorPosition", () => {
  it.each([
    ["{\"a\": 1,}", 8],
    ["[1, 2", 5],
    ["{\"a\" 1}", 5],
    ["\"tab\there\"", 4],
    ["{\"a\": tru}", 6],
    ["[1] x", 4],
    ["", 0],
    ["01", 1],
    ["\"\\x\"", 1]
  ])("finds the fault in %j at %i", (text, position) => {
    expect(jsonErrorPosition(text)).toBe(position)
  })

  it("agrees with JSON.parse on which texts are valid", () => {
    const jsonish = FastCheck.oneof(
      FastCheck.json(),
      FastCheck.json().map((t) => t.slice(0, Math.floor(t.length / 2))),
      FastCheck.tuple(FastCheck.json(), FastCheck.nat(), FastCheck.constantFrom(",", "}", "]", "\"", ":", "x", " "))
        .map(([t, at, c]) => t.slice(0, at % (t.length + 1)) + c + t.slice(at % (t.length + 1)))
    )
    FastCheck.assert(
      FastCheck.property(jsonish, (text) => {
        expect(jsonErrorPosition(text) === -1).toBe(parses(text))
      }),
      { numRuns: 3000 }
    )
  })

  it("survives nesting far deeper than a recursive parser could", () => {
    const deep = "[".repeat(200_000) + "]".repeat(199_999)
    expect(jsonErrorPosition(deep)).toBe(deep.length)
    expect(describeJsonError("{\n  \"a\": [1,\n  }", "fallback")).toBe("unexpected \"}\" at line 3, column 3")
  })
})
