import { describe, expect, it } from "@effect/vitest"
import { Either, Option } from "effect"
import { flagWords } from "../../src/Application/Flags.js"
import type { CaseResult } from "../../src/Schema/Result.js"
import { baselineHeader, commentLine, floorHistory, ratchet } from "../../src/Scorecard/Ratchet.js"
import { summarize } from "../../src/Scorecard/Scorecard.js"

const set = "sha256:" + "a".repeat(64)
const other = "sha256:" + "b".repeat(64)
const run = (passed: number, total: number, caseSet = set) =>
  summarize(
    Array.from(
      { length: total },
      (_, i): CaseResult => ({ id: `c${i}`, surface: "docs", passed: i < passed, expectations: [] })
    ),
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
    const again = raised._tag === "Raised"
      ? Either.getOrThrow(ratchet(Option.some(raised.baseline), run(4, 4), set, "2026-12-01"))
      : raised
    expect(again._tag === "Raised" && again.baseline.history?.map((c) => [c.date, c.from, c.to])).toEqual([
      ["2026-01-01", null, 0.5],
      ["2026-11-30", 0.5, 0.75],
      ["2026-12-01", 0.75, 1]
    ])
  })

  it("gives a baseline without history, raised, the moves its log records exactly, then the raise", () => {
    const current = {
      floor: 0.5,
      _comment: [
        baselineHeader,
        "2026-01-01: floor set to 0.25 (1/4 passed)",
        "2026-02-01: floor 0.25 → 0.5 (2/4 passed)"
      ]
    }
    const raised = Either.getOrThrow(ratchet(Option.some(current), run(3, 4), set, "2026-11-30"))
    expect(raised._tag === "Raised" && raised.baseline.history).toEqual([
      { date: "2026-01-01", from: null, to: 0.25, passed: 1, total: 4 },
      { date: "2026-02-01", from: 0.25, to: 0.5, passed: 2, total: 4 },
      { date: "2026-11-30", from: 0.5, to: 0.75, passed: 3, total: 4 }
    ])
    // A log that does not account for the floor is not read as its history: the history starts with this raise.
    const edited = Either.getOrThrow(ratchet(Option.some({ ...current, floor: 0.6 }), run(3, 4), set, "2026-11-30"))
    expect(edited._tag === "Raised" && edited.baseline.history).toEqual([
      { date: "2026-11-30", from: 0.6, to: 0.75, passed: 3, total: 4 }
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

  it("refuses results over another case set, saying why, in the CLI's flags only when given its words", () => {
    const refused = ratchet(Option.some({ floor: 0.1 }), run(4, 4, other), set, "2026-11-30")
    expect(Either.isLeft(refused) && refused.left.message).toBe(
      "the results cover another case set (bbbbbbbbbbbb) than the golden set (aaaaaaaaaaaa): a filtered run or an " +
        "edited golden set cannot move the floor; run the whole golden set and ratchet from that"
    )
    const worded = ratchet(Option.some({ floor: 0.1 }), run(4, 4, other), set, "2026-11-30", flagWords)
    expect(Either.isLeft(worded) && worded.left.message).toBe(
      "the results cover another case set (bbbbbbbbbbbb) than the golden set (aaaaaaaaaaaa): a --filter'ed run or an " +
        "edited golden set cannot move the floor; run the whole golden set and ratchet from that"
    )
  })

  it("refuses the results of a run that stopped early, in the CLI's flags only when given its words", () => {
    const bailed = { ...run(1, 4), bailed: true as const }
    const refused = ratchet(Option.none(), bailed, set, "2026-11-30")
    expect(Either.isLeft(refused) && refused.left.message).toBe(
      "the results are of a run that stopped early: a partial run cannot move the floor; ratchet from a full run"
    )
    const worded = ratchet(Option.none(), bailed, set, "2026-11-30", flagWords)
    expect(Either.isLeft(worded) && worded.left.message).toBe(
      "the results are of a run that stopped early (--bail): a partial run cannot move the floor; " +
        "ratchet from a full run"
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
      expect(decision.baseline._comment?.at(-1)).toBe(
        "2026-11-30: floor set to 0.75 (3/4 passed all 3 attempts, --repeat 3)"
      )
    }
  })

  it("moves a floor only with runs of the K it was set at", () => {
    const refusedHigherK = ratchet(Option.some({ floor: 0.5 }), repeated(4, 4, 3), set, "2026-11-30")
    expect(Either.isLeft(refusedHigherK) && refusedHigherK.left.message).toContain("runs with 1 attempt per case,")
    const refusedLowerK = ratchet(Option.some({ floor: 0.5, repeat: 3 }), run(4, 4), set, "2026-11-30")
    expect(Either.isLeft(refusedLowerK) && refusedLowerK.left.message).toContain("runs with 3 attempts per case,")
    const wordedHigherK = ratchet(Option.some({ floor: 0.5 }), repeated(4, 4, 3), set, "2026-11-30", flagWords)
    expect(Either.isLeft(wordedHigherK) && wordedHigherK.left.message).toContain("set by runs with --repeat 1,")
    const wordedLowerK = ratchet(Option.some({ floor: 0.5, repeat: 3 }), run(4, 4), set, "2026-11-30", flagWords)
    expect(Either.isLeft(wordedLowerK) && wordedLowerK.left.message).toContain("set by runs with --repeat 3,")
    expect(Either.getOrThrow(ratchet(Option.some({ floor: 0.5, repeat: 3 }), repeated(4, 4, 3), set, "2026-11-30")))
      .toMatchObject({ _tag: "Raised", to: 1, baseline: { floor: 1, repeat: 3 } })
  })

  it("refuses the results of one shard", () => {
    const shard = summarize([], set, null, { shard: { index: 1, count: 2, of: other } })
    const refused = ratchet(Option.none(), shard, set, "2026-11-30")
    expect(Either.isLeft(refused) && refused.left.message).toContain("shard 1/2")
  })
})

describe("floorHistory", () => {
  const header = baselineHeader

  it("is the baseline's history when it has one, whatever its log says", () => {
    const history = [{ date: "2026-03-01", from: null, to: 0.5, passed: 1, total: 2 }]
    expect(floorHistory({ floor: 0.9, _comment: ["2026-01-01: floor set to 0.25 (1/4 passed)"], history })).toBe(
      history
    )
    expect(floorHistory({ floor: 0.9, history: [] })).toEqual([])
  })

  it("reads the committed baseline's log back as its history", () => {
    expect(floorHistory({ floor: 0.8181, _comment: [header, "2026-11-30: floor set to 0.8181 (18/22 passed)"] }))
      .toEqual([
        { date: "2026-11-30", from: null, to: 0.8181, passed: 18, total: 22 }
      ])
  })

  it("reads the lines of a floor set with --repeat K", () => {
    const lines = [
      header,
      "2026-01-01: floor set to 0.5 (2/4 passed all 3 attempts, --repeat 3)",
      "2026-01-02: floor 0.5 → 0.75 (3/4 passed all 3 attempts)"
    ]
    expect(floorHistory({ floor: 0.75, repeat: 3, _comment: lines }).map((c) => c.to)).toEqual([0.5, 0.75])
    // Lines of another K do not describe this floor.
    expect(floorHistory({ floor: 0.75, _comment: lines })).toEqual([])
  })

  it.each([
    ["no log at all", { floor: 0.5 }],
    ["only prose", { floor: 0.5, _comment: [header, "raised by hand after the outage"] }],
    ["a log line edited by hand", {
      floor: 0.5,
      _comment: ["2026-01-01: floor set to 0.5 (1/2 passed) — after the outage"]
    }],
    ["a floor its tally does not give", { floor: 0.6, _comment: ["2026-01-01: floor set to 0.6 (1/2 passed)"] }],
    ["a rate written another way", { floor: 0.5, _comment: ["2026-01-01: floor set to 0.50 (1/2 passed)"] }],
    ["more passed than ran", { floor: 1, _comment: ["2026-01-01: floor set to 1 (3/2 passed)"] }],
    ["a raise first", { floor: 0.5, _comment: ["2026-01-01: floor 0.25 → 0.5 (1/2 passed)"] }],
    ["a gap between moves", {
      floor: 0.75,
      _comment: ["2026-01-01: floor set to 0.25 (1/4 passed)", "2026-01-02: floor 0.5 → 0.75 (3/4 passed)"]
    }],
    ["a move down", {
      floor: 0.25,
      _comment: ["2026-01-01: floor set to 0.5 (2/4 passed)", "2026-01-02: floor 0.5 → 0.25 (1/4 passed)"]
    }],
    ["a log that ends below the floor", { floor: 0.9, _comment: ["2026-01-01: floor set to 0.5 (1/2 passed)"] }]
  ])("is empty for a baseline without history whose log is not exact: %s", (_, baseline) => {
    expect(floorHistory(baseline)).toEqual([])
  })

  it("reads back every line the ratchet writes as the move it logs", () => {
    const changes = [
      { date: "2026-01-01", from: null, to: 0.0454, passed: 1, total: 22 },
      { date: "2026-01-09", from: 0.0454, to: 0.8181, passed: 18, total: 22 },
      { date: "2026-12-31", from: 0.8181, to: 1, passed: 22, total: 22 }
    ]
    for (const repeat of [1, 2, 5]) {
      const baseline = {
        floor: 1,
        ...(repeat > 1 ? { repeat } : {}),
        _comment: [header, ...changes.map((c) => commentLine(c, repeat))]
      }
      expect(floorHistory(baseline)).toEqual(changes)
    }
  })
})
