import { Schema } from "effect"
import { drafted, isNonBlank, NonBlankString } from "../Schema/Fields.js"
import { fail, pass, shown } from "./Grader.js"
import { defineKind, type Grade, textArgument } from "./Kind.js"

/** The tool was never executed, not even in an attempt that errored. */
export const NeverCalls = Schema.Struct({ kind: Schema.Literal("never-calls"), tool: NonBlankString, drafted })

/** The tool was never executed; an attempt that errored is still a call: `called: deploy (2×)`. */
export const neverCalls: Grade<typeof NeverCalls.Type> = ({ tool }, { trace }) => {
  const count = trace.toolExecutions.filter((e) => e.tool === tool).length
  if (count === 0) return pass
  return fail(count === 1 ? `called: ${shown(tool)}` : `called: ${shown(tool)} (${count}×)`)
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
    passes: "no execution of `tool` at all (an errored attempt is still a call)",
    fact: "`called: deploy`, `called: deploy (2×)`",
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
