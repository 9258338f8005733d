/** A case run once as its own single attempt, and whether a run obtained any turn at all. */
import { describe, expect, it } from "@effect/vitest"
import type { CaseResult } from "../../src/Schema/Result.js"
import { attemptsOf, obtainedNoTurn } from "../../src/Scorecard/Attempts.js"

const held = { kind: "no-citations" as const, passed: true }
const obtained = (id: string): CaseResult => ({
  id,
  surface: "docs",
  passed: true,
  turnId: `t_${id}`,
  expectations: [held]
})
const noTurn = (id: string): CaseResult => ({ id, surface: "docs", passed: false, error: "HTTP 502", expectations: [] })

describe("attemptsOf", () => {
  it("makes a case run once its single attempt, with its turn id or its error", () => {
    expect(attemptsOf(obtained("a"))).toEqual([{ passed: true, turnId: "t_a", expectations: [held] }])
    expect(attemptsOf(noTurn("b"))).toEqual([{ passed: false, error: "HTTP 502", expectations: [] }])
    const bare = attemptsOf({ id: "c", surface: "docs", passed: true, expectations: [held] })
    expect(bare).toEqual([{ passed: true, expectations: [held] }])
    expect(Object.keys(bare[0]!).sort()).toEqual(["expectations", "passed"])
  })
})

describe("obtainedNoTurn", () => {
  it("holds only for a run with cases none of whose attempts obtained a turn", () => {
    expect(obtainedNoTurn([noTurn("a"), noTurn("b")])).toBe(true)
    expect(obtainedNoTurn([noTurn("a"), obtained("b")])).toBe(false)
    expect(obtainedNoTurn([obtained("a")])).toBe(false)
    expect(obtainedNoTurn([])).toBe(false)
  })

  it("looks at every attempt of a repeated case", () => {
    const attempts = [
      { passed: false, error: "HTTP 502", expectations: [] },
      { passed: true, turnId: "t", expectations: [held] }
    ]
    expect(obtainedNoTurn([{ ...noTurn("a"), attempts }])).toBe(false)
    const allFailed = [attempts[0]!, attempts[0]!]
    expect(obtainedNoTurn([{ ...noTurn("a"), attempts: allFailed }])).toBe(true)
  })
})
