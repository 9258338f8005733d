/** The ratchet's refusals and log at their edges: a bailed run, the K in words, a baseline with no log yet. */
import { describe, expect, it } from "@effect/vitest"
import { Either, Option } from "effect"
import type { CaseResult } from "../../src/Schema/Result.js"
import { commentLine, floorHistory, ratchet } from "../../src/Scorecard/Ratchet.js"
import { summarize } from "../../src/Scorecard/Scorecard.js"

const set = "sha256:" + "a".repeat(64)
const cases = (passed: number, total: number): ReadonlyArray<CaseResult> =>
  Array.from({ length: total }, (_, i) => ({ id: `c${i}`, surface: "docs", passed: i < passed, expectations: [] }))
const date = "2026-11-30"

describe("ratchet", () => {
  it("refuses a run that stopped early, whatever it achieved", () => {
    const refused = ratchet(Option.none(), summarize(cases(2, 2), set, null, { bailed: true }), set, date)
    expect(Either.isLeft(refused) && [refused.left.reason, refused.left.message]).toEqual([
      "ratchet",
      expect.stringContaining("the results are of a run that stopped early")
    ])
  })

  it("says how many times the results repeated each case, one time or several", () => {
    const once = ratchet(Option.some({ floor: 0.5, repeat: 3 }), summarize(cases(2, 2), set, null), set, date)
    expect(Either.isLeft(once) && once.left.message).toContain("these results repeated each case 1 time: ")
    const twice = ratchet(Option.some({ floor: 0.5 }), summarize(cases(2, 2), set, null, { repeat: 2 }), set, date)
    expect(Either.isLeft(twice) && twice.left.message).toContain("these results repeated each case 2 times: ")
  })

  it("starts the log of a baseline that has none with the raise alone", () => {
    const raised = Either.getOrThrow(ratchet(Option.some({ floor: 0.5 }), summarize(cases(2, 2), set, null), set, date))
    expect(raised).toEqual({
      _tag: "Raised",
      from: 0.5,
      to: 1,
      baseline: {
        floor: 1,
        _comment: ["2026-11-30: floor 0.5 → 1 (2/2 passed)"],
        history: [{ date, from: 0.5, to: 1, passed: 2, total: 2 }]
      }
    })
  })
})

describe("floorHistory", () => {
  it("reads back a first floor of 0", () => {
    const change = { date, from: null, to: 0, passed: 0, total: 2 }
    expect(floorHistory({ floor: 0, _comment: [commentLine(change, 1)] })).toEqual([change])
  })

  it("reads no history from a log line with words the ratchet does not write, or a move that is no raise", () => {
    expect(floorHistory({ floor: 0.5, _comment: ["2026-01-01: floor set to 0.5 (1/2 passed by hand)"] })).toEqual([])
    const flat = ["2026-01-01: floor set to 0.5 (1/2 passed)", "2026-01-02: floor 0.5 → 0.5 (1/2 passed)"]
    expect(floorHistory({ floor: 0.5, _comment: flat })).toEqual([])
  })
})
