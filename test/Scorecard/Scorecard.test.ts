import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import type { CaseResult } from "../../src/Schema/Result.js"
import { floorFor, resultInconsistencies, showRate, summarize } from "../../src/Scorecard/Scorecard.js"

const caseResult = (id: string, passed: boolean): CaseResult => ({
  id,
  surface: "docs",
  passed,
  expectations: [{ kind: "no-citations", passed, ...(passed ? {} : { fact: "cited: /docs/a" }) }]
})

const set = "sha256:" + "0".repeat(64)

describe("summarize", () => {
  it("passes a run whose rate holds the floor, and fails one below it", () => {
    const cases = [caseResult("a", true), caseResult("b", true), caseResult("c", false)]
    expect(summarize(cases, set, 0.6666)).toMatchObject({
      passRate: 2 / 3,
      floor: 0.6666,
      passed: true,
      total: 3,
      passedCount: 2
    })
    expect(summarize(cases, set, 0.6667).passed).toBe(false)
  })

  it("gives no verdict without a floor", () => {
    expect(summarize([caseResult("a", true)], set, null)).toMatchObject({ floor: null, passed: null, passRate: 1 })
  })

  it("keeps the cases in the order given", () => {
    const cases = [caseResult("z", false), caseResult("a", true)]
    expect(summarize(cases, set, null).cases.map((c) => c.id)).toEqual(["z", "a"])
  })
})

describe("floorFor", () => {
  it("rounds the rate down to four decimals", () => {
    expect(floorFor(18, 22)).toBe(0.8181)
    expect(floorFor(2, 3)).toBe(0.6666)
    expect(floorFor(57, 100)).toBe(0.57)
    expect(floorFor(7, 7)).toBe(1)
    expect(floorFor(0, 7)).toBe(0)
  })

  it("is always held by the run that set it", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.integer({ min: 1, max: 1_000_000 }), FastCheck.nat(), (total, n) => {
        const passedCount = n % (total + 1)
        const floor = floorFor(passedCount, total)
        expect(passedCount / total >= floor).toBe(true)
        expect(showRate(floor)).toBe(floor.toFixed(4))
      }),
      { numRuns: 5000 }
    )
  })
})

describe("resultInconsistencies", () => {
  it("finds none in a summarized run", () => {
    expect(resultInconsistencies(summarize([caseResult("a", true), caseResult("b", false)], set, 0.5))).toEqual([])
  })

  it("finds counts and verdicts that do not follow from the cases", () => {
    const honest = summarize([caseResult("a", true), caseResult("b", false)], set, null)
    const edited = {
      ...honest,
      passedCount: 3,
      passRate: 0.9,
      total: 3,
      cases: [honest.cases[0]!, { ...honest.cases[1]!, passed: true }]
    }
    expect(resultInconsistencies(edited)).toEqual([
      { path: "$.total", message: "says 3, but the file holds 2 cases" },
      { path: "$.passedCount", message: "says 3, but 2 cases passed" },
      { path: "$.passRate", message: "says 0.9, but the cases give 1" },
      { path: "$.cases[1].passed", message: "says passed, but the case has a failing expectation or an error" }
    ])
  })
})

describe("resultInconsistencies under --repeat", () => {
  const attempt = (passed: boolean) => ({ passed, expectations: [{ kind: "no-citations" as const, passed }] })
  const repeated = (id: string, passes: ReadonlyArray<boolean>) => ({
    ...caseResult(id, passes.every(Boolean)),
    attempts: passes.map(attempt)
  })

  it("finds none when each case's verdict is the pass^k of its attempts", () => {
    const run = summarize([repeated("a", [true, true]), repeated("b", [true, false])], set, null, { repeat: 2 })
    expect(run.repeat).toBe(2)
    expect(resultInconsistencies(run)).toEqual([])
  })

  it("finds a flaky case claimed as passed, and attempts that do not match the run's K", () => {
    const run = summarize([repeated("a", [true, true]), repeated("b", [true, false])], set, null, { repeat: 2 })
    const edited = {
      ...run,
      passedCount: 2,
      passRate: 1,
      cases: [{ ...run.cases[0]!, attempts: [attempt(true)] }, { ...run.cases[1]!, passed: true }]
    }
    expect(resultInconsistencies(edited)).toEqual([
      { path: "$.cases[0].attempts", message: "holds 1 attempt, but the run repeated each case 2 times" },
      { path: "$.cases[1].passed", message: "says passed, but the case has a failing expectation or an error" }
    ])
  })
})
