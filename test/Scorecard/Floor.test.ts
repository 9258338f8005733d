/**
 * The verdict at the edge: a run exactly at its floor holds it, and a results file's verdicts must
 * follow from its expectations, each way a hand edit can break that.
 */
import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import type { CaseResult, ExpectationResult } from "../../src/Schema/Result.js"
import { floorFor, resultInconsistencies, summarize } from "../../src/Scorecard/Scorecard.js"

const set = "sha256:" + "0".repeat(64)
const held: ExpectationResult = { kind: "no-citations", passed: true }
const broken: ExpectationResult = { kind: "cites", passed: false, fact: "no citations" }
const verdict = (id: string, passed: boolean, expectations: ReadonlyArray<ExpectationResult>): CaseResult => ({
  id,
  surface: "docs",
  passed,
  expectations
})
const cases = (passedCount: number, total: number): ReadonlyArray<CaseResult> =>
  Array.from(
    { length: total },
    (_, i) => i < passedCount ? verdict(`c${i}`, true, [held]) : verdict(`c${i}`, false, [broken])
  )

describe("a run exactly at its floor", () => {
  it("passes, and one case fewer fails", () => {
    expect(summarize(cases(1, 2), set, 0.5)).toMatchObject({ passRate: 0.5, floor: 0.5, passed: true })
    expect(summarize(cases(3, 4), set, 0.75).passed).toBe(true)
    expect(summarize(cases(2, 4), set, 0.75).passed).toBe(false)
    expect(summarize(cases(4, 4), set, 1).passed).toBe(true)
    expect(summarize(cases(0, 4), set, 0).passed).toBe(true)
  })

  it("passes at the floor it sets, whenever its rate has four decimals or fewer", () => {
    // Totals that divide 10 000 give rates of at most four decimals: the floor is the rate itself.
    const totals = [1, 2, 4, 5, 8, 10, 16, 20, 25, 40, 50, 80, 100, 125, 200, 250]
    fc.assert(
      fc.property(fc.constantFrom(...totals), fc.nat(), (total, n) => {
        const passedCount = n % (total + 1)
        const floor = floorFor(passedCount, total)
        const run = summarize(cases(passedCount, total), set, floor)
        expect(run.passRate).toBe(floor)
        expect(run.passed).toBe(true)
      })
    )
  })

  it("counts an empty run as a rate of 0, which only a floor of 0 holds", () => {
    expect(summarize([], set, 0)).toMatchObject({ passRate: 0, total: 0, passedCount: 0, passed: true })
    expect(summarize([], set, 0.0001).passed).toBe(false)
    expect(resultInconsistencies(summarize([], set, null))).toEqual([])
  })
})

describe("a results file's verdicts", () => {
  const claimedPassed = {
    path: "$.cases[0].passed",
    message: "says passed, but the case has a failing expectation or an error"
  }
  const claimedFailed = { path: "$.cases[0].passed", message: "says failed, but every expectation passed" }
  // A run whose one case claims `passed`, with its counts made to agree, so only the verdict is in question.
  const claiming = (c: CaseResult) => ({
    ...summarize([c], set, null),
    passedCount: c.passed ? 1 : 0,
    passRate: c.passed ? 1 : 0
  })

  it("refuses a case marked passed with one failing expectation among passing ones", () => {
    expect(resultInconsistencies(claiming(verdict("a", true, [held, broken, held])))).toEqual([claimedPassed])
  })

  it("refuses a case marked passed whose turn errored, whatever its expectations say", () => {
    const errored = { ...verdict("a", true, [held]), error: "timed out" }
    expect(resultInconsistencies(claiming(errored))).toEqual([claimedPassed])
    expect(resultInconsistencies(claiming({ ...verdict("a", true, []), error: "timed out" }))).toEqual([claimedPassed])
  })

  it("refuses a case marked passed with no expectations at all", () => {
    expect(resultInconsistencies(claiming(verdict("a", true, [])))).toEqual([claimedPassed])
  })

  it("refuses a case marked failed when every expectation passed, and accepts the honest verdicts", () => {
    expect(resultInconsistencies(claiming(verdict("a", false, [held, held])))).toEqual([claimedFailed])
    expect(resultInconsistencies(claiming(verdict("a", true, [held, held])))).toEqual([])
    expect(resultInconsistencies(claiming(verdict("a", false, [held, broken])))).toEqual([])
    expect(resultInconsistencies(claiming({ ...verdict("a", false, []), error: "timed out" }))).toEqual([])
  })

  it("refuses a repeated case marked passed when one attempt errored", () => {
    const attempts = [
      { passed: true, expectations: [held] },
      { passed: true, error: "timed out", expectations: [held] }
    ]
    const claimed = verdict("a", true, [held])
    const run = { ...claiming(claimed), repeat: 2, cases: [{ ...claimed, attempts }] }
    expect(resultInconsistencies(run)).toEqual([claimedPassed])
  })

  it("refuses a repeated case with no attempts, and a run once with attempts kept", () => {
    const run = { ...claiming(verdict("a", true, [held])), repeat: 3 }
    expect(resultInconsistencies(run)).toEqual([
      { path: "$.cases[0]", message: "has no attempts, but the run repeated each case 3 times" }
    ])
    const once = { passed: true, expectations: [held] }
    const claimed = verdict("a", true, [held])
    const kept = { ...claiming(claimed), cases: [{ ...claimed, attempts: [once, once] }] }
    expect(resultInconsistencies(kept)).toEqual([
      { path: "$.cases[0].attempts", message: "holds 2 attempts, but the run repeated each case 1 times" }
    ])
  })

  it("accepts a pass rate a rounding away from the cases', and refuses one further off", () => {
    const run = summarize(cases(1, 3), set, null)
    expect(resultInconsistencies({ ...run, passRate: 1 / 3 + 1e-12 })).toEqual([])
    expect(resultInconsistencies({ ...run, passRate: 0.3333 })).toEqual([
      { path: "$.passRate", message: `says 0.3333, but the cases give ${1 / 3}` }
    ])
  })
})
