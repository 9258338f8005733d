import { Schema } from "effect"
import { drafted, isNonBlank, NonBlankString } from "../Schema/Fields.js"
import { fail, joinFacts, pass, shown } from "./Grader.js"
import { canonical, shownJson } from "./Json.js"
import { defineKind, type Grader, textArgument } from "./Kind.js"

/** No tool (or no call of `tool`) ran twice with equal inputs. */
export const NoRepeatedCalls = Schema.Struct({
  kind: Schema.Literal("no-repeated-calls"),
  tool: Schema.optionalWith(NonBlankString, { exact: true }),
  drafted
})

/**
 * No two executions of the same tool have equal inputs (deep equality, key order ignored, `1` is not
 * `"1"`); errored ones count, so a retry with the same input is a repeat. Each repeat is one fact, with
 * the input as first recorded, in first-seen order: `repeated: search_docs {"query":"refund"} 3×`.
 */
export const noRepeatedCalls: Grader<typeof NoRepeatedCalls.Type> = ({ tool }, { trace }) => {
  const seen = new Map<string, { tool: string; input: unknown; count: number }>()
  for (const e of trace.toolExecutions) {
    if (tool !== undefined && e.tool !== tool) continue
    const input = e.input ?? null
    const key = `${e.tool}\u0000${canonical(input)}`
    const first = seen.get(key)
    if (first === undefined) seen.set(key, { tool: e.tool, input, count: 1 })
    else first.count++
  }
  const repeats = [...seen.values()].filter((call) => call.count > 1)
  return repeats.length === 0
    ? pass
    : fail(joinFacts(repeats.map((call) => `repeated: ${shown(call.tool)} ${shownJson(call.input)} ${call.count}×`)))
}

export const noRepeatedCallsKind = defineKind({
  kind: "no-repeated-calls",
  schema: NoRepeatedCalls,
  fields: ["tool"],
  fast: (value) => {
    if (!("tool" in value)) return {}
    const tool = value["tool"]
    return isNonBlank(tool) ? { tool } : undefined
  },
  grade: noRepeatedCalls,
  names: ({ tool }) => tool === undefined ? [] : [{ at: "tool", tool }],
  argument: textArgument("tool", "TOOL"),
  doc: {
    fields: "`tool`?",
    passes: "no two executions of the same tool (of `tool`, when given) have equal inputs: deep equality, key order " +
      "ignored, strict (`1` is not `\"1\"`); errored executions count, so a retry with the same input is a repeat " +
      "(allow one with `calls-at-most` instead)",
    fact:
      "`repeated: search_docs {\"query\":\"refund\"} 3×`, the input as first recorded; several joined with `; ` in first-seen order",
    brief: "no tool ran twice with equal inputs"
  },
  example: {
    expect: { kind: "no-repeated-calls", tool: "search_docs" },
    passes: {
      toolExecutions: [
        { tool: "search_docs", input: { query: "refund" }, output: [] },
        { tool: "search_docs", input: { query: "refund policy" }, output: [] }
      ]
    },
    fails: {
      toolExecutions: [
        { tool: "search_docs", input: { query: "refund", limit: 5 }, output: [] },
        { tool: "search_docs", input: { limit: 5, query: "refund" }, error: "timeout" },
        { tool: "search_docs", input: { query: "refund", limit: 5 }, output: [] }
      ]
    },
    fact: "repeated: search_docs {\"query\":\"refund\",\"limit\":5} 3×"
  }
})
