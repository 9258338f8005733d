import { Schema } from "effect"
import { drafted, isNonBlank, NonBlankString } from "../Schema/Fields.js"
import { fail, pass, shown } from "./Grader.js"
import { defineKind, type Grader, textArgument } from "./Kind.js"

/** The turn's outcome equals `is`. */
export const Outcome = Schema.Struct({ kind: Schema.Literal("outcome"), is: NonBlankString, drafted })

/** The turn ended in the expected outcome: `outcome: error (expected answered)`. */
export const outcome: Grader<typeof Outcome.Type> = ({ is }, { trace }) =>
  trace.outcome === is ? pass : fail(`outcome: ${shown(trace.outcome)} (expected ${shown(is)})`)

export const outcomeKind = defineKind({
  kind: "outcome",
  schema: Outcome,
  fields: ["is"],
  fast: ({ is }) => isNonBlank(is) ? { is } : undefined,
  grade: outcome,
  names: ({ is }) => [{ at: "is", outcome: is }],
  argument: textArgument("is", "OUTCOME"),
  doc: {
    fields: "`is`",
    passes: "the trace's `outcome` equals `is`",
    fact: "`outcome: error (expected answered)`",
    brief: "the turn's outcome is `is`"
  },
  example: {
    expect: { kind: "outcome", is: "refused" },
    passes: { outcome: "refused" },
    fails: { outcome: "answered" },
    fact: "outcome: answered (expected refused)"
  }
})
