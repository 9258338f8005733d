import { describe, expect, it } from "@effect/vitest"
import { Either, Option } from "effect"
import type { CaseResult } from "../../src/Schema/Result.js"
import { baselineHeader, ratchet } from "../../src/Scorecard/Ratchet.js"
import { summarize } from "../../src/Scorecard/Scorecard.js"

const set = "sha256:" + "a".repeat(64)
const other = "sha256:" + "b".repeat(64)
const run = (passed: number, total: number, caseSet = set) =>
  summarize(
    Array.from({ length: total }, (_, i): CaseResult => ({ id: `c${i}`, surface: "docs", passed: i < passed, expectations: [] })),
    caseSet,
    null
  )

describe("ratchet", () => {
  it("creates the baseline from the first full run, with a header, a log line and the first entry of its history", () => {
    expect(Either.getOrThrow(ratchet(Option.none(), run(18, 22), set, "2026-11-30"))).toEqual({
      _tag: "Raised",
      from: null,
      to: 0.8181,
      baseline: {
        floor: 0.8181,
        _comment: [baselineHeader, "2026-11-30: floor set to 0.8181 (18/22 passed)"],
        history: [{ date: "2026-11-30", from: null, to: 0.8181, passed: 18, total: 22 }]
      }
    })
  })

  it("raises the floor to the achieved rate and appends to the log and the history, keeping earlier entries in order", () => {
    const current = {
      floor: 0.5,
      _comment: ["kept line", "2026-01-01: floor set to 0.5 (1/2 passed)"],
      history: [{ date: "2026-01-01", from: null, to: 0.5, passed: 1, total: 2 }]
    }
    const raised = Either.getOrThrow(ratchet(Option.some(current), run(3, 4), set, "2026-11-30"))
    expect(raised).toEqual({
      _tag: "Raised",
      from: 0.5,
      to: 0.75,
      baseline: {
        floor: 0.75,
        _comment: [...current._comment, "2026-11-30: floor 0.5 → 0.75 (3/4 passed)"],
        history: [...current.history, { date: "2026-11-30", from: 0.5, to: 0.75, passed: 3, total: 4 }]
      }
    })
    const again = raised._tag === "Raised" ? Either.getOrThrow(ratchet(Option.some(raised.baseline), run(4, 4), set, "2026-12-01")) : raised
    expect(again._tag === "Raised" && again.baseline.history?.map((c) => [c.date, c.from, c.to])).toEqual([
      ["2026-01-01", null, 0.5],
      ["2026-11-30", 0.5, 0.75],
      ["2026-12-01", 0.75, 1]
    ])
  })

  it("never lowers the floor, and does not rewrite it for an equal rate", () => {
    expect(Either.getOrThrow(ratchet(Option.some({ floor: 0.9 }), run(3, 4), set, "2026-11-30"))).toEqual({
      _tag: "Kept",
      floor: 0.9,
      achieved: 0.75
    })
    expect(Either.getOrThrow(ratchet(Option.some({ floor: 0.75 }), run(3, 4), set, "2026-11-30"))._tag).toBe("Kept")
  })

  it("refuses results over another case set, saying why", () => {
    const refused = ratchet(Option.some({ floor: 0.1 }), run(4, 4, other), set, "2026-11-30")
    expect(Either.isLeft(refused) && refused.left.message).toBe(
      "the results cover another case set (bbbbbbbbbbbb) than the golden set (aaaaaaaaaaaa): a --filter'ed run or an edited golden set cannot move the floor; run the whole golden set and ratchet from that"
    )
  })
})

describe("ratchet and --repeat", () => {
  const repeated = (passed: number, total: number, k: number) => {
    const cases = Array.from({ length: total }, (_, i): CaseResult => ({
      id: `c${i}`,
      surface: "docs",
      passed: i < passed,
      expectations: [],
      attempts: Array.from({ length: k }, () => ({ passed: i < passed, expectations: [] }))
    }))
    return summarize(cases, set, null, { repeat: k })
  }

  it("records the K a first floor was set at", () => {
    const decision = Either.getOrThrow(ratchet(Option.none(), repeated(3, 4, 3), set, "2026-11-30"))
    expect(decision).toMatchObject({ _tag: "Raised", to: 0.75, baseline: { floor: 0.75, repeat: 3 } })
    if (decision._tag === "Raised") {
      expect(decision.baseline._comment?.at(-1)).toBe("2026-11-30: floor set to 0.75 (3/4 passed all 3 attempts, --repeat 3)")
    }
  })

  it("moves a floor only with runs of the K it was set at", () => {
    const refusedHigherK = ratchet(Option.some({ floor: 0.5 }), repeated(4, 4, 3), set, "2026-11-30")
    expect(Either.isLeft(refusedHigherK) && refusedHigherK.left.message).toContain("--repeat 1")
    const refusedLowerK = ratchet(Option.some({ floor: 0.5, repeat: 3 }), run(4, 4), set, "2026-11-30")
    expect(Either.isLeft(refusedLowerK) && refusedLowerK.left.message).toContain("--repeat 3")
    expect(Either.getOrThrow(ratchet(Option.some({ floor: 0.5, repeat: 3 }), repeated(4, 4, 3), set, "2026-11-30")))
      .toMatchObject({ _tag: "Raised", to: 1, baseline: { floor: 1, repeat: 3 } })
  })

  it("refuses the results of one shard", () => {
    const shard = summarize([], set, null, { shard: { index: 1, count: 2, of: other } })
    const refused = ratchet(Option.none(), shard, set, "2026-11-30")
    expect(Either.isLeft(refused) && refused.left.message).toContain("shard 1/2")
  })
})

