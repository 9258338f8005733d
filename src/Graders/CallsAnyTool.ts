import { Schema } from "effect"
import { drafted } from "../Schema/Fields.js"
import { errored } from "../Schema/Trace.js"
import { distinct, fail, failedCall, joinFacts, pass } from "./Grader.js"
import { defineKind, type Grader, withoutFields } from "./Kind.js"

/** At least one tool ran without error. */
export const CallsAnyTool = Schema.Struct({ kind: Schema.Literal("calls-any-tool"), drafted })

/** At least one tool ran without error; when every call errored, the errors are named. */
export const callsAnyTool: Grader<typeof CallsAnyTool.Type> = (_, { trace }) => {
  const calls = trace.toolExecutions
  if (calls.some((e) => !errored(e))) return pass
  if (calls.length === 0) return fail("no tool ran")
  return fail(joinFacts(distinct(calls.map(failedCall))))
}

export const callsAnyToolKind = defineKind({
  kind: "calls-any-tool",
  schema: CallsAnyTool,
  ...withoutFields,
  grade: callsAnyTool,
  doc: {
    fields: "",
    passes: "an execution of any tool did not error",
    fact: "`no tool ran`, or each distinct error",
    brief: "some tool ran without error"
  },
  example: {
    expect: { kind: "calls-any-tool" },
    passes: { toolExecutions: [{ tool: "search_docs", input: { query: "refunds" }, output: [] }] },
    fails: {},
    fact: "no tool ran"
  }
})
