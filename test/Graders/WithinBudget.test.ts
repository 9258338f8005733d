import { describe, expect, it } from "@effect/vitest"
import { withinBudget } from "../../src/Graders/WithinBudget.js"
import type { Usage } from "../../src/Schema/Trace.js"
import { docsSurface, turn } from "../support/turns.js"

const budget = { kind: "within-budget", tokens: 4000 } as const
const used = (usage: Usage) => withinBudget(budget, turn({ usage }), docsSurface)

describe("withinBudget", () => {
  it("passes when input and output tokens together are within the budget, or at it", () => {
    expect(used({ inputTokens: 2950, outputTokens: 410 })).toEqual({ passed: true })
    expect(used({ inputTokens: 3600, outputTokens: 400 })).toEqual({ passed: true })
    expect(used({ inputTokens: 0, outputTokens: 0 })).toEqual({ passed: true })
  })

  it("fails past the budget, with the tokens used", () => {
    expect(used({ inputTokens: 4800, outputTokens: 410 })).toEqual({
      passed: false,
      fact: "used 5210 tokens (budget 4000)"
    })
    expect(used({ inputTokens: 3600, outputTokens: 401 })).toEqual({
      passed: false,
      fact: "used 4001 tokens (budget 4000)"
    })
  })

  it("counts input and output together: each alone within the budget is not enough", () => {
    expect(used({ inputTokens: 3000, outputTokens: 3000 })).toEqual({
      passed: false,
      fact: "used 6000 tokens (budget 4000)"
    })
  })

  it("fails when the turn recorded no usage", () => {
    expect(withinBudget(budget, turn(), docsSurface)).toEqual({ passed: false, fact: "no token usage recorded" })
  })
})
