/**
 * A case's verdict from its attempts under `--repeat`: pass^k, every attempt kept with its own turn id,
 * error and time, and the case showing its first failing attempt.
 */
import { describe, expect, it } from "@effect/vitest"
import { combineAttempts } from "../../src/Runner/Runner.js"
import type { CaseResult, ExpectationResult, KeptTurn } from "../../src/Schema/Result.js"

const held: ExpectationResult = { kind: "cites-only-surfaced", passed: true }
const broken: ExpectationResult = { kind: "cites-only-surfaced", passed: false, fact: "unsurfaced: /docs/old" }
const kept = (turnId: string): KeptTurn => ({
  answer: `answer of ${turnId}`,
  trace: { turnId, surface: "docs", outcome: "answered", citations: [], toolExecutions: [], proposal: null }
})
const passing = (turnId: string, durationMs: number): CaseResult => ({
  id: "a",
  surface: "docs",
  passed: true,
  turnId,
  expectations: [held],
  durationMs,
  turn: kept(turnId)
})
const failing = (turnId: string, durationMs: number): CaseResult => ({
  ...passing(turnId, durationMs),
  passed: false,
  expectations: [broken]
})
const errored = (error: string, durationMs: number): CaseResult => ({
  id: "a",
  surface: "docs",
  passed: false,
  error,
  expectations: [],
  durationMs
})

describe("combineAttempts", () => {
  it("keeps a single attempt as the case, with the case's time in place of the attempt's", () => {
    expect(combineAttempts([passing("t1", 5)], 9)).toEqual({ ...passing("t1", 5), durationMs: 9 })
    expect(combineAttempts([errored("timeout", 5)])).toEqual(errored("timeout", 5))
  })

  it("passes only when every attempt passes, showing the first attempt then", () => {
    const combined = combineAttempts([passing("t1", 1), passing("t2", 2), passing("t3", 3)], 7)
    // The case is its first attempt, timed as a whole, with every attempt kept as it was.
    const attempts = [1, 2, 3].map((n) => ({
      passed: true,
      turnId: `t${n}`,
      expectations: [held],
      durationMs: n,
      turn: kept(`t${n}`)
    }))
    expect(combined).toEqual({ ...passing("t1", 7), attempts })
  })

  it("shows the first failing attempt: its turn id, expectations and turn", () => {
    const combined = combineAttempts([passing("t1", 1), failing("t2", 2), failing("t3", 3)])
    expect(combined.passed).toBe(false)
    expect(combined.turnId).toBe("t2")
    expect(combined.expectations).toEqual([broken])
    expect(combined.turn).toEqual(kept("t2"))
    expect(combined.attempts?.map((a) => [a.turnId, a.passed])).toEqual([["t1", true], ["t2", false], ["t3", false]])
    expect("durationMs" in combined).toBe(false)
    expect("error" in combined).toBe(false)
  })

  it("shows an errored attempt by its error, with no turn id or turn, and keeps the others' turns", () => {
    const combined = combineAttempts([passing("t1", 1), errored("HTTP 502", 2), failing("t3", 3)], 6)
    expect(combined).toEqual({
      id: "a",
      surface: "docs",
      passed: false,
      error: "HTTP 502",
      expectations: [],
      attempts: [
        { passed: true, turnId: "t1", expectations: [held], durationMs: 1, turn: kept("t1") },
        { passed: false, error: "HTTP 502", expectations: [], durationMs: 2 },
        { passed: false, turnId: "t3", expectations: [broken], durationMs: 3, turn: kept("t3") }
      ],
      durationMs: 6
    })
    // Shown by its error: no turn id and no turn of another attempt.
    expect(["turnId" in combined, "turn" in combined]).toEqual([false, false])
  })

  it("leaves out of each attempt what it does not have", () => {
    const bare: CaseResult = { id: "a", surface: "docs", passed: true, expectations: [held] }
    const combined = combineAttempts([bare, bare])
    const once = { passed: true, expectations: [held] }
    expect(combined).toEqual({ ...bare, attempts: [once, once] })
    for (const attempt of combined.attempts!) {
      expect(Object.keys(attempt).sort()).toEqual(["expectations", "passed"])
    }
  })
})
