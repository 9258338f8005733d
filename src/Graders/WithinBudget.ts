import { Schema } from "effect"
import { drafted, isWholeNumber, WholeNumber } from "../Schema/Fields.js"
import { fail, pass } from "./Grader.js"
import { defineKind, type Grader, numberArgument } from "./Kind.js"

/** The turn's recorded token usage, input and output together, is at most `tokens`. */
export const WithinBudget = Schema.Struct({
  kind: Schema.Literal("within-budget"),
  tokens: WholeNumber(1, "tokens"),
  drafted
})

/** Input and output tokens together at most `tokens`: `used 5210 tokens (budget 4000)`, `no token usage recorded`. */
export const withinBudget: Grader<typeof WithinBudget.Type> = ({ tokens }, { trace }) => {
  if (trace.usage === undefined) return fail("no token usage recorded")
  const used = trace.usage.inputTokens + trace.usage.outputTokens
  return used <= tokens ? pass : fail(`used ${used} tokens (budget ${tokens})`)
}

export const withinBudgetKind = defineKind({
  kind: "within-budget",
  schema: WithinBudget,
  fields: ["tokens"],
  fast: ({ tokens }) => isWholeNumber(tokens, 1) ? { tokens } : undefined,
  grade: withinBudget,
  names: () => [],
  argument: numberArgument("tokens", "TOKENS"),
  doc: {
    fields: "`tokens` (a whole number > 0)",
    passes: "the trace's `usage` is recorded and its `inputTokens` + `outputTokens` is at most `tokens`",
    fact: "`used 5210 tokens (budget 4000)`, or `no token usage recorded` when the trace has no `usage`",
    brief: "the turn used at most that many tokens, input and output together"
  },
  example: {
    expect: { kind: "within-budget", tokens: 4000 },
    passes: { usage: { inputTokens: 2950, outputTokens: 410 } },
    fails: { usage: { inputTokens: 4800, outputTokens: 410 } },
    fact: "used 5210 tokens (budget 4000)"
  }
})
