/**
 * How `eval audit --expect KIND=N` reads a count: digits alone, blanks around them trimmed, become a
 * number; anything else is left as text, so the schema refuses it quoting what was written.
 */
import { describe, expect, it } from "@effect/vitest"
import { numberArgument } from "../../src/Graders/Kind.js"

const { read } = numberArgument("times", "TIMES")

describe("numberArgument", () => {
  it("reads digits as a number, blanks around them trimmed", () => {
    expect(read("3")).toEqual({ times: 3 })
    expect(read(" 12 ")).toEqual({ times: 12 })
    expect(read("123456789012345")).toEqual({ times: 123456789012345 })
  })

  it("leaves text that is not only digits, or more than 15 of them, as it was written", () => {
    expect(read("1.5")).toEqual({ times: "1.5" })
    expect(read("3x")).toEqual({ times: "3x" })
    expect(read("x3")).toEqual({ times: "x3" })
    expect(read("1234567890123456")).toEqual({ times: "1234567890123456" })
  })
})
