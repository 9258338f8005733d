/** What `diffRuns` says beyond the changed cases: the totals, whether the sets were the same, each run's K. */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { CaseResult } from "../../src/Schema/Result.js"
import { diffRuns, refuseDifferentSets } from "../../src/Scorecard/Diff.js"
import { summarize } from "../../src/Scorecard/Scorecard.js"

const setA = "sha256:" + "a".repeat(64)
const setB = "sha256:" + "b".repeat(64)
const verdict = (id: string, passed: boolean): CaseResult => ({
  id,
  surface: "docs",
  passed,
  expectations: [{ kind: "no-citations", passed }]
})

describe("diffRuns", () => {
  it("gives each run's total, pass count and rate, from the older to the newer", () => {
    const older = summarize([verdict("a", true), verdict("b", false)], setA, null)
    const newer = summarize([verdict("a", true), verdict("b", true), verdict("c", true)], setB, null)
    const diff = Either.getOrThrow(diffRuns(older, newer, { allowDifferentSets: true }))
    expect(diff.total).toEqual({ from: 2, to: 3 })
    expect(diff.passed).toEqual({ from: 1, to: 3 })
    expect(diff.passRate).toEqual({ from: 0.5, to: 1 })
    expect(diff.sameSet).toBe(false)
  })

  it("says the sets were the same when the fingerprints agree", () => {
    const run = summarize([verdict("a", true)], setA, null)
    const diff = Either.getOrThrow(diffRuns(run, run))
    expect(diff.sameSet).toBe(true)
    expect([diff.regressions, diff.fixes, diff.added, diff.removed]).toEqual([[], [], [], []])
    const unchanged = { from: 1, to: 1 }
    expect([diff.passRate, diff.passed, diff.total, diff.repeat]).toEqual([unchanged, unchanged, unchanged, unchanged])
    expect(Object.keys(diff).sort()).toEqual(
      ["added", "fixes", "passRate", "passed", "regressions", "removed", "repeat", "sameSet", "total"]
    )
  })

  it("gives the K of --repeat each run was made with, 1 for a run made once", () => {
    const once = summarize([verdict("a", true)], setA, null)
    const thrice = summarize([verdict("a", true)], setA, null, { repeat: 3 })
    expect(Either.getOrThrow(diffRuns(once, thrice)).repeat).toEqual({ from: 1, to: 3 })
    expect(Either.getOrThrow(diffRuns(thrice, once)).repeat).toEqual({ from: 3, to: 1 })
  })

  it("leaves a case whose verdict did not change out of regressions and fixes", () => {
    const older = summarize([verdict("a", true), verdict("b", false)], setA, null)
    const diff = Either.getOrThrow(diffRuns(older, older))
    expect([diff.regressions, diff.fixes, diff.added, diff.removed]).toEqual([[], [], [], []])
  })
})

describe("refuseDifferentSets", () => {
  it("lets the same set through, and different sets only when allowed", () => {
    expect(refuseDifferentSets(setA, setA)).toEqual(Either.void)
    expect(refuseDifferentSets(setA, setB, { allowDifferentSets: true })).toEqual(Either.void)
    expect(Either.isLeft(refuseDifferentSets(setA, setB, { allowDifferentSets: false }))).toBe(true)
  })

  it("names both runs and both short fingerprints, by default as the older and the newer run", () => {
    const refused = refuseDifferentSets(setA, setB)
    expect(Either.isLeft(refused) && refused.left.message).toContain(
      "the older run and the newer run ran over different case sets (aaaaaaaaaaaa and bbbbbbbbbbbb): " +
        "a golden set was edited, filtered or sharded between them"
    )
  })
})
