/** An answer-includes expectation with an empty text is refused, saying what it needs. */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { Expectation } from "../../src/Schema/Case.js"
import { decodeValue } from "../../src/Schema/Decode.js"

describe("answer-includes", () => {
  it("refuses an empty text, at its path", () => {
    const decoded = decodeValue(Expectation, "cases.json", { kind: "answer-includes", text: "" })
    expect(Either.isLeft(decoded) && decoded.left.problems).toEqual([
      { path: "$.text", message: "expected a non-empty text to look for" }
    ])
  })
})
