import { Schema } from "effect"
import { drafted } from "../Schema/Fields.js"
import { surfaced } from "../Schema/Trace.js"
import { distinct, fail, joinFacts, pass, shown } from "./Grader.js"
import { defineKind, type Grader, withoutFields } from "./Kind.js"

/** Every citation matched an item the assistant surfaced. */
export const CitesOnlySurfaced = Schema.Struct({ kind: Schema.Literal("cites-only-surfaced"), drafted })

/** Every citation matched a surfaced item; each recalled one is named: `unsurfaced: /docs/x`. */
export const citesOnlySurfaced: Grader<typeof CitesOnlySurfaced.Type> = (_, { trace }) => {
  const offenders = distinct(trace.citations.filter((c) => !surfaced(c)).map((c) => c.path))
  return offenders.length === 0 ? pass : fail(joinFacts(offenders.map((path) => `unsurfaced: ${shown(path)}`)))
}

export const citesOnlySurfacedKind = defineKind({
  kind: "cites-only-surfaced",
  schema: CitesOnlySurfaced,
  ...withoutFields,
  grade: citesOnlySurfaced,
  doc: {
    fields: "",
    passes: "every citation's `match` is `path` or `quote`",
    fact: "`unsurfaced: /docs/x` for each offender",
    brief: "every citation matched a surfaced item"
  },
  example: {
    expect: { kind: "cites-only-surfaced" },
    passes: { citations: [{ path: "/docs/billing/refunds", match: "path" }] },
    fails: {
      citations: [{ path: "/docs/billing/refunds", match: "path" }, {
        path: "/docs/billing/refunds-2023",
        match: "unsurfaced"
      }]
    },
    fact: "unsurfaced: /docs/billing/refunds-2023"
  }
})
