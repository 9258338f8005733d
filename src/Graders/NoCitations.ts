import { Schema } from "effect"
import { drafted } from "../Schema/Fields.js"
import { listed } from "../Schema/Shown.js"
import { distinct, fail, pass, shown } from "./Grader.js"
import { defineKind, type Grader, withoutFields } from "./Kind.js"

/** The turn cites nothing. */
export const NoCitations = Schema.Struct({ kind: Schema.Literal("no-citations"), drafted })

/** The turn cites nothing; otherwise every cited path is named: `cited: /docs/a, /docs/b`. */
export const noCitations: Grader<typeof NoCitations.Type> = (_, { trace }) =>
  trace.citations.length === 0
    ? pass
    : fail(`cited: ${listed(distinct(trace.citations.map((c) => shown(c.path))), ", ")}`)

export const noCitationsKind = defineKind({
  kind: "no-citations",
  schema: NoCitations,
  ...withoutFields,
  grade: noCitations,
  doc: {
    fields: "",
    passes: "`citations` is empty",
    fact: "`cited: /docs/a, /docs/b`",
    brief: "the turn cites nothing"
  },
  example: {
    expect: { kind: "no-citations" },
    passes: { outcome: "refused" },
    fails: { outcome: "refused", citations: [{ path: "/docs/security/vault", match: "path" }] },
    fact: "cited: /docs/security/vault"
  }
})
