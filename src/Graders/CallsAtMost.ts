import { Schema } from "effect"
import { drafted, isNonBlank, isWholeNumber, NonBlankString, WholeNumber } from "../Schema/Fields.js"
import { plural } from "../Words.js"
import { fail, pass, shown } from "./Grader.js"
import { defineKind, type Grader, numberArgument } from "./Kind.js"

/** The tool (any tool, without `tool`) ran at most `times` times, attempts that errored included. */
export const CallsAtMost = Schema.Struct({
  kind: Schema.Literal("calls-at-most"),
  times: WholeNumber(0, "calls"),
  tool: Schema.optionalWith(NonBlankString, { exact: true }),
  drafted
})

/** At most `times` executions of `tool`, or of all tools: `called: search_docs 7× (at most 3)`. */
export const callsAtMost: Grader<typeof CallsAtMost.Type> = ({ times, tool }, { trace }) => {
  const count = tool === undefined
    ? trace.toolExecutions.length
    : trace.toolExecutions.filter((e) => e.tool === tool).length
  if (count <= times) return pass
  return fail(
    tool === undefined
      ? `called: ${plural(count, "tool execution")} (at most ${times})`
      : `called: ${shown(tool)} ${count}× (at most ${times})`
  )
}

export const callsAtMostKind = defineKind({
  kind: "calls-at-most",
  schema: CallsAtMost,
  fields: ["times", "tool"],
  fast: (value) => {
    const { times, tool } = value
    if (!isWholeNumber(times, 0)) return undefined
    if (!("tool" in value)) return { times }
    return isNonBlank(tool) ? { times, tool } : undefined
  },
  grade: callsAtMost,
  names: ({ tool }) => tool === undefined ? [] : [{ at: "tool", tool }],
  argument: numberArgument("times", "TIMES"),
  doc: {
    fields: "`times` (a whole number ≥ 0), `tool`?",
    passes:
      "the executions of `tool` (of any tool when it is absent), those that errored included, are at most `times`",
    fact: "`called: search_docs 7× (at most 3)`; without `tool`, `called: 7 tool executions (at most 3)`",
    brief: "the tool (or all tools together) ran at most `times` times, errored attempts included"
  },
  example: {
    expect: { kind: "calls-at-most", tool: "search_docs", times: 2 },
    passes: { toolExecutions: [{ tool: "search_docs", input: { query: "refunds" }, output: [] }] },
    fails: {
      toolExecutions: [
        { tool: "search_docs", input: { query: "refunds" }, error: "timeout" },
        { tool: "search_docs", input: { query: "refunds" }, output: [] },
        { tool: "search_docs", input: { query: "refund policy" }, output: [] }
      ]
    },
    fact: "called: search_docs 3× (at most 2)"
  }
})
