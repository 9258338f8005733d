/**
 * The parts of a trace the graders and the runner read: when an execution errored, when a citation
 * was surfaced, token counts summed into a usage, and the problem a token count that is no whole
 * number gets.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { decodeValue } from "../../src/Schema/Decode.js"
import { errored, summedUsage, surfaced, Usage } from "../../src/Schema/Trace.js"

describe("errored", () => {
  it("holds for a non-empty error only", () => {
    expect(errored({ tool: "catalog", error: "timeout" })).toBe(true)
    expect(errored({ tool: "catalog", error: "" })).toBe(false)
    expect(errored({ tool: "catalog", error: null })).toBe(false)
    expect(errored({ tool: "catalog" })).toBe(false)
  })
})

describe("surfaced", () => {
  it("holds for a citation matched by path or by quote, not for one recalled", () => {
    expect(surfaced({ path: "/a", match: "path" })).toBe(true)
    expect(surfaced({ path: "/a", match: "quote" })).toBe(true)
    expect(surfaced({ path: "/a", match: "unsurfaced" })).toBe(false)
  })
})

describe("summedUsage", () => {
  it("sums each side, a side nothing counts being 0", () => {
    expect(summedUsage([[10, 2], [5, undefined], [undefined, 3]])).toEqual({ inputTokens: 15, outputTokens: 5 })
    expect(summedUsage([[0, 0]])).toEqual({ inputTokens: 0, outputTokens: 0 })
  })

  it("ignores a count that is no whole number of 0 or more, and gives none when nothing counts", () => {
    expect(summedUsage([[-1, 1.5], ["7", null], [Number.NaN, 2 ** 53]])).toBeUndefined()
    expect(summedUsage([[-1, 4], [1.5, 1]])).toEqual({ inputTokens: 0, outputTokens: 5 })
    expect(summedUsage([])).toBeUndefined()
  })

  it("stops a sum at the largest integer JavaScript holds exactly", () => {
    const most = Number.MAX_SAFE_INTEGER
    expect(summedUsage([[most, 1], [most, 1]])).toEqual({ inputTokens: most, outputTokens: 2 })
    expect(summedUsage([[1, most], [1, 1]])).toEqual({ inputTokens: 2, outputTokens: most })
  })
})

describe("Usage", () => {
  it("refuses a token count that is no whole number of 0 or more, saying what it expects", () => {
    const decoded = decodeValue(Usage, "trace.json", { inputTokens: -1, outputTokens: 2 })
    expect(Either.isLeft(decoded) && decoded.left.problems).toEqual([
      { path: "$.inputTokens", message: "expected a whole number of tokens, 0 or more" }
    ])
  })
})
