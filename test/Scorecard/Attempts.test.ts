import { describe, expect, it } from "@effect/vitest"
import { attemptLines, attemptsOf, failingFacts, flakiness, showFact } from "../../src/Scorecard/Attempts.js"
import { plainRun, repeatedRun } from "./Render/results.js"

const named = (cases: typeof plainRun.cases, id: string) => cases.find((c) => c.id === id)!

describe("flakiness", () => {
  it("tells passed, failed and flaky cases apart, counting attempts", () => {
    expect(repeatedRun.cases.map((c) => [c.id, flakiness(c)])).toEqual([
      ["docs.steady", { verdict: "passed", passedAttempts: 3, attempts: 3 }],
      ["docs.flaky", { verdict: "flaky", passedAttempts: 2, attempts: 3 }],
      ["docs.broken", { verdict: "failed", passedAttempts: 0, attempts: 3 }],
      ["ops.down", { verdict: "failed", passedAttempts: 0, attempts: 3 }]
    ])
  })

  it("counts a case run once as one attempt", () => {
    expect(flakiness(named(plainRun.cases, "docs.rollback"))).toEqual({
      verdict: "passed",
      passedAttempts: 1,
      attempts: 1
    })
    expect(flakiness(named(plainRun.cases, "ops.no-turn"))).toEqual({
      verdict: "failed",
      passedAttempts: 0,
      attempts: 1
    })
    expect(attemptsOf(named(plainRun.cases, "ops.no-turn"))).toEqual([
      { passed: false, error: "HTTP 500 <html>&amp;</html>", expectations: [] }
    ])
  })
})

describe("failingFacts", () => {
  it("names each failing expectation, or the turn error", () => {
    expect(failingFacts(named(plainRun.cases, "docs.proration")).map(showFact)[0]).toBe(
      "cites-only-surfaced: unsurfaced: /docs/billing/refunds-2023"
    )
    expect(failingFacts(named(plainRun.cases, "docs.proration"))).toHaveLength(2)
    expect(failingFacts(named(plainRun.cases, "ops.no-turn")).map(showFact)).toEqual([
      "turn error: HTTP 500 <html>&amp;</html>"
    ])
    expect(failingFacts(named(plainRun.cases, "docs.rollback"))).toEqual([])
  })

  it("never leaves a failed outcome without a fact", () => {
    expect(failingFacts({ passed: false, expectations: [] }).map(showFact)).toEqual(["case: failed"])
    expect(failingFacts({ passed: false, expectations: [{ kind: "outcome", passed: false }] }).map(showFact)).toEqual([
      "outcome: failed"
    ])
  })
})

describe("attemptLines", () => {
  it("lists each attempt, with its turn when asked, and its failing facts indented", () => {
    const flaky = named(repeatedRun.cases, "docs.flaky")
    expect(attemptLines(flaky, { turns: true })).toEqual([
      "attempt 1 (t4): passed",
      "attempt 2 (t5): failed",
      "  answer-includes: answer lacks: \"30 days\"",
      "attempt 3 (t6): passed"
    ])
    expect(attemptLines(named(repeatedRun.cases, "docs.broken"), { turns: false }).slice(-2)).toEqual([
      "attempt 3: failed",
      "  turn error: timeout after 30s"
    ])
  })
})
