import { Schema } from "effect"
import { drafted, isNonBlank, NonBlankString } from "../Schema/Fields.js"
import { noResult, unresolved } from "../Schema/Trace.js"
import { fail, pass, shown } from "./Grader.js"
import { defineKind, type Grader, textArgument } from "./Kind.js"

/** The tool was never executed, not even in an attempt that errored. */
export const NeverCalls = Schema.Struct({ kind: Schema.Literal("never-calls"), tool: NonBlankString, drafted })

/**
 * The tool was never executed; an attempt that errored is still a call (`called: deploy (2×)`), and so is
 * one the wire shows started and never resolved (`called: deploy (no result on the wire)`).
 */
export const neverCalls: Grader<typeof NeverCalls.Type> = ({ tool }, { trace }) => {
  const calls = trace.toolExecutions.filter((e) => e.tool === tool)
  if (calls.length === 0) return pass
  const open = calls.filter(unresolved).length
  const notes = [
    ...(calls.length === 1 ? [] : [`${calls.length}×`]),
    ...(open === 0 ? [] : [calls.length === 1 ? noResult : `${open} with ${noResult}`])
  ]
  return fail(notes.length === 0 ? `called: ${shown(tool)}` : `called: ${shown(tool)} (${notes.join(", ")})`)
}

export const neverCallsKind = defineKind({
  kind: "never-calls",
  schema: NeverCalls,
  fields: ["tool"],
  fast: ({ tool }) => isNonBlank(tool) ? { tool } : undefined,
  grade: neverCalls,
  names: ({ tool }) => [{ at: "tool", tool }],
  argument: textArgument("tool", "TOOL"),
  doc: {
    fields: "`tool`",
    passes: "no execution of `tool` at all (an errored attempt is still a call, and so is an unresolved one)",
    fact: "`called: deploy`, `called: deploy (2×)`, `called: deploy (no result on the wire)`",
    brief: "the tool never ran, not even in an attempt that errored"
  },
  example: {
    expect: { kind: "never-calls", tool: "deploy" },
    passes: { toolExecutions: [{ tool: "search_docs", input: { query: "deploy" }, output: [] }] },
    fails: {
      toolExecutions: [{ tool: "deploy", input: { service: "payments-api" }, error: "forbidden" }, {
        tool: "deploy",
        input: { service: "payments-api" },
        output: { ok: true }
      }]
    },
    fact: "called: deploy (2×)"
  }
})
