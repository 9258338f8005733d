import { Schema } from "effect"
import { drafted, isNames, Names } from "../Schema/Fields.js"
import { listed } from "../Schema/Shown.js"
import { errored } from "../Schema/Trace.js"
import { fail, pass, shown } from "./Grader.js"
import { defineKind, type Grader } from "./Kind.js"

/** The tools ran without error in this order, others perhaps between; with `exact`, nothing else ran. */
export const CallsInOrder = Schema.Struct({
  kind: Schema.Literal("calls-in-order"),
  tools: Names(2, "tools", "expected at least two tools, in the order they must run"),
  exact: Schema.optionalWith(Schema.Boolean, { exact: true }),
  drafted
})

/** Whether `sequence` holds `wanted` as a subsequence. */
const holds = (sequence: ReadonlyArray<string>, wanted: ReadonlyArray<string>): boolean => {
  let next = 0
  for (const tool of sequence) {
    if (next < wanted.length && tool === wanted[next]) next++
  }
  return next === wanted.length
}

const order = (tools: ReadonlyArray<string>): string => tools.length === 0 ? "none" : listed(tools.map(shown), " → ")

/**
 * The successful executions, in the trace's order, hold `tools` as a subsequence; with `exact`, they
 * are exactly `tools`. The fact lists the successful executions of the named tools (of every tool,
 * with `exact`): `order: search_docs → catalog (expected catalog → search_docs)`.
 */
export const callsInOrder: Grader<typeof CallsInOrder.Type> = ({ exact, tools }, { trace }) => {
  const ran = trace.toolExecutions.filter((e) => !errored(e)).map((e) => e.tool)
  if (exact === true) {
    return ran.length === tools.length && ran.every((tool, i) => tool === tools[i])
      ? pass
      : fail(`order: ${order(ran)} (expected exactly ${order(tools)})`)
  }
  if (holds(ran, tools)) return pass
  const named = new Set(tools)
  return fail(`order: ${order(ran.filter((tool) => named.has(tool)))} (expected ${order(tools)})`)
}

export const callsInOrderKind = defineKind({
  kind: "calls-in-order",
  schema: CallsInOrder,
  fields: ["tools", "exact"],
  fast: (value) => {
    const { exact, tools } = value
    if (!isNames(tools, 2)) return undefined
    if (!("exact" in value)) return { tools }
    return typeof exact === "boolean" ? { tools, exact } : undefined
  },
  grade: callsInOrder,
  names: ({ tools }) => tools.map((tool, i) => ({ at: `tools[${i}]`, tool })),
  argument: { name: "TOOL,TOOL", read: (text) => ({ tools: text.split(",").map((tool) => tool.trim()) }) },
  doc: {
    fields: "`tools` (2 or more), `exact`?",
    passes:
      "the executions that did not error, in the trace's order, hold `tools` as a subsequence (other calls may come " +
      "between; a name may repeat); with `exact: true`, they are exactly `tools`",
    fact: "`order: search_docs → catalog (expected catalog → search_docs)`, listing the successful executions of the " +
      "named tools (`none` when none ran); with `exact`, of every tool: `order: read_config → search_docs → " +
      "propose_change (expected exactly read_config → propose_change)`",
    brief: "the tools ran without error in that order (others may come between; with `exact`, nothing else ran)"
  },
  example: {
    expect: { kind: "calls-in-order", tools: ["read_config", "propose_change"] },
    passes: {
      toolExecutions: [
        { tool: "read_config", input: { service: "search-api" }, output: { replicas: 3 } },
        { tool: "search_docs", input: { query: "scaling" }, output: [] },
        { tool: "propose_change", input: { service: "search-api", replicas: 6 }, output: { id: "chg_1" } }
      ]
    },
    fails: {
      toolExecutions: [
        { tool: "propose_change", input: { service: "search-api", replicas: 6 }, output: { id: "chg_1" } },
        { tool: "read_config", input: { service: "search-api" }, output: { replicas: 3 } }
      ]
    },
    fact: "order: propose_change → read_config (expected read_config → propose_change)"
  }
})
