import { Schema } from "effect"
import { drafted, isNames, Names } from "../Schema/Fields.js"
import { listed } from "../Schema/Shown.js"
import { surfaced } from "../Schema/Trace.js"
import { distinct, fail, pass, shown } from "./Grader.js"
import { defineKind, type Grader } from "./Kind.js"

/** Every path is cited, and each citation matched a surfaced item. */
export const CitesAll = Schema.Struct({
  kind: Schema.Literal("cites-all"),
  paths: Names(1, "paths", "expected at least one path to cite"),
  drafted
})

/**
 * Recall: every path in `paths` has a surfaced citation; a recalled one does not count and is marked:
 * `not cited: /docs/a, /docs/b (cited unsurfaced)`.
 */
export const citesAll: Grader<typeof CitesAll.Type> = ({ paths }, { trace }) => {
  const cited = new Set(trace.citations.filter(surfaced).map((c) => c.path))
  const recalled = new Set(trace.citations.filter((c) => !surfaced(c)).map((c) => c.path))
  const missing = distinct(paths).filter((path) => !cited.has(path))
  if (missing.length === 0) return pass
  const shownPaths = missing.map((path) => recalled.has(path) ? `${shown(path)} (cited unsurfaced)` : shown(path))
  return fail(`not cited: ${listed(shownPaths, ", ")}`)
}

export const citesAllKind = defineKind({
  kind: "cites-all",
  schema: CitesAll,
  fields: ["paths"],
  fast: ({ paths }) => isNames(paths, 1) ? { paths } : undefined,
  grade: citesAll,
  names: () => [],
  argument: { name: "PATH", read: (text) => ({ paths: [text] }) },
  doc: {
    fields: "`paths` (1 or more)",
    passes:
      "every path in `paths` is cited by a citation whose `match` is `path` or `quote` (recall: recalled citations do not count)",
    fact:
      "`not cited: /docs/a, /docs/b`, the missing paths in `paths` order, each recalled one marked `(cited unsurfaced)`",
    brief: "every path is cited, by a citation that matched a surfaced item"
  },
  example: {
    expect: { kind: "cites-all", paths: ["/docs/billing/refunds", "/docs/billing/proration"] },
    passes: {
      citations: [
        { path: "/docs/billing/proration", match: "quote", quote: "prorated by day" },
        { path: "/docs/billing/refunds", match: "path" }
      ]
    },
    fails: {
      citations: [{ path: "/docs/billing/refunds", match: "path" }, {
        path: "/docs/billing/proration",
        match: "unsurfaced"
      }]
    },
    fact: "not cited: /docs/billing/proration (cited unsurfaced)"
  }
})
