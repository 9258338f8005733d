import { Schema } from "effect"
import { drafted, isNonBlank, NonBlankString } from "../Schema/Fields.js"
import { surfaced } from "../Schema/Trace.js"
import { fail, pass, shown } from "./Grader.js"
import { defineKind, type Grader, textArgument } from "./Kind.js"

/** A surfaced citation with exactly this path exists. */
export const Cites = Schema.Struct({ kind: Schema.Literal("cites"), path: NonBlankString, drafted })

/** A surfaced citation with exactly this path exists; a recalled (unsurfaced) one does not count. */
export const cites: Grader<typeof Cites.Type> = ({ path }, { trace }) => {
  const matching = trace.citations.filter((c) => c.path === path)
  if (matching.some(surfaced)) return pass
  return fail(matching.length > 0 ? `not cited: ${shown(path)} (cited unsurfaced)` : `not cited: ${shown(path)}`)
}

export const citesKind = defineKind({
  kind: "cites",
  schema: Cites,
  fields: ["path"],
  fast: ({ path }) => isNonBlank(path) ? { path } : undefined,
  grade: cites,
  names: () => [],
  argument: textArgument("path", "PATH"),
  doc: {
    fields: "`path`",
    passes: "a citation with exactly `path` and a `match` of `path` or `quote` exists",
    fact: "`not cited: /docs/x` (`(cited unsurfaced)` is added when only a recalled citation has the path)",
    brief: "a surfaced citation has exactly that path (recalled ones do not count)"
  },
  example: {
    expect: { kind: "cites", path: "/docs/deploy/rollbacks" },
    passes: {
      citations: [{ path: "/docs/deploy/rollbacks", match: "quote", quote: "roll back with harbor rollback" }]
    },
    fails: { citations: [{ path: "/docs/deploy/rollbacks", match: "unsurfaced" }] },
    fact: "not cited: /docs/deploy/rollbacks (cited unsurfaced)"
  }
})
