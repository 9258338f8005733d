/** What a summarized run records of how it was made, and the rates of a run with no cases. */
import { describe, expect, it } from "@effect/vitest"
import type { CaseResult } from "../../src/Schema/Result.js"
import { floorFor, resultInconsistencies, summarize } from "../../src/Scorecard/Scorecard.js"

const set = "sha256:" + "0".repeat(64)
const one: ReadonlyArray<CaseResult> = [{ id: "a", surface: "docs", passed: true, expectations: [] }]

describe("summarize", () => {
  it("records the K of --repeat only above 1, the shard, a bail and the duration only when given", () => {
    const shard = { index: 2, count: 3, of: set }
    const made = summarize(one, set, null, { repeat: 3, shard, bailed: true, durationMs: 1234 })
    expect(made).toMatchObject({ repeat: 3, shard, bailed: true, durationMs: 1234 })
    expect(made.durationMs).toBe(1234)
    for (const plain of [summarize(one, set, null), summarize(one, set, null, { repeat: 1, bailed: false })]) {
      expect(Object.keys(plain).sort()).toEqual(
        ["caseSet", "cases", "floor", "passRate", "passed", "passedCount", "total", "version"]
      )
    }
    expect(summarize(one, set, null, { durationMs: 0 }).durationMs).toBe(0)
  })
})

describe("a run with no cases", () => {
  it("sets a floor of 0, and a file claiming a rate above 0 for it is inconsistent", () => {
    expect(floorFor(0, 0)).toBe(0)
    const empty = summarize([], set, null)
    expect(resultInconsistencies({ ...empty, passRate: 0.5 })).toEqual([
      { path: "$.passRate", message: "says 0.5, but the cases give 0" }
    ])
  })
})
