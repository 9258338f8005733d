import { Schema } from "effect"
import { drafted, isNonBlank, NonBlankString } from "../Schema/Fields.js"
import { listed } from "../Schema/Shown.js"
import { errored } from "../Schema/Trace.js"
import { distinct, fail, failedCall, joinFacts, pass, shown } from "./Grader.js"
import { contains, shownJson } from "./Json.js"
import { defineKind, type Grader, textArgument } from "./Kind.js"

/** The tool ran at least once without error, with an input that contains `with` when it is given. */
export const CallsTool = Schema.Struct({
  kind: Schema.Literal("calls-tool"),
  tool: NonBlankString,
  with: Schema.optionalWith(Schema.Unknown, { exact: true }),
  drafted
})

/** The most inputs a `with` fact lists. */
const maxInputs = 3

/**
 * What ran instead of a tool that never ran, when some of it is outside the surface's catalog: a tool the
 * catalog does not list is a renamed or unlisted tool the expectation cannot name, and the fact says so
 * (`; ran instead: search_kb (not in the catalog)`). Tools the catalog lists add nothing.
 */
const ranInstead = (ran: ReadonlyArray<string>, catalog: ReadonlyArray<string>): string => {
  const inCatalog = new Set(catalog)
  const outside = distinct(ran.filter((tool) => !inCatalog.has(tool)))
  return outside.length === 0 ? "" : `; ran instead: ${listed(outside.map(shown), ", ")} (not in the catalog)`
}

/**
 * The tool ran at least once without error; calls that errored do not count and are named, and a tool
 * that never ran is reported with the tools outside the catalog that ran instead. With
 * `with`, a successful call must have an input that contains it; the fact then counts the successful
 * calls and shows their inputs: `not called with {"service":"search-api"}: catalog ran 2× with {"service":"payments"}; {}`.
 */
export const callsTool: Grader<typeof CallsTool.Type> = (expectation, { trace }, surface) => {
  const { tool } = expectation
  const calls = trace.toolExecutions.filter((e) => e.tool === tool)
  const succeeded = calls.filter((e) => !errored(e))
  if (succeeded.length === 0) {
    if (calls.length === 0) {
      return fail(`not called: ${shown(tool)}${ranInstead(trace.toolExecutions.map((e) => e.tool), surface.tools)}`)
    }
    return fail(joinFacts(distinct(calls.map(failedCall))))
  }
  if (!("with" in expectation)) return pass
  const wanted = expectation.with
  if (succeeded.some((e) => contains(e.input ?? null, wanted))) return pass
  const inputs = succeeded.slice(0, maxInputs).map((e) => shownJson(e.input ?? null))
  const more = succeeded.length > maxInputs ? "; …" : ""
  return fail(
    `not called with ${shownJson(wanted)}: ${shown(tool)} ran ${succeeded.length}× with ${inputs.join("; ")}${more}`
  )
}

export const callsToolKind = defineKind({
  kind: "calls-tool",
  schema: CallsTool,
  fields: ["tool", "with"],
  fast: (value) => {
    const tool = value["tool"]
    if (!isNonBlank(tool)) return undefined
    return "with" in value ? { tool, with: value["with"] } : { tool }
  },
  grade: callsTool,
  names: ({ tool }) => [{ at: "tool", tool }],
  argument: textArgument("tool", "TOOL"),
  doc: {
    fields: "`tool`, `with`?",
    passes:
      "an execution of `tool` did not error; with `with` (any JSON value), one that did not error has an input that " +
      "**contains** it: an object contains another when it has each of its keys with a value that contains that key's " +
      "value, an array an array of the same length element by element, any other value only itself (strict equality: " +
      "`1` is not `\"1\"`); an execution with no input has input `null`",
    fact: "`not called: catalog` — and when tools the surface's `tools` do not list ran, " +
      "`not called: search_docs; ran instead: search_kb (not in the catalog)` — or each distinct error: " +
      "`catalog errored: timeout` (`catalog: no result on the wire` for a call the wire shows started and never " +
      "resolved); with `with`, when a call succeeded: " +
      "`not called with {\"service\":\"search-api\"}: catalog ran 2× with {\"service\":\"payments\"}; {}` (the " +
      "successful calls counted, the inputs of the first 3 shown, each clipped)",
    brief: "the tool ran at least once without error (with an input containing `with`, when given)"
  },
  example: {
    expect: { kind: "calls-tool", tool: "catalog", with: { service: "search-api" } },
    passes: {
      toolExecutions: [{
        tool: "catalog",
        input: { service: "search-api", fields: ["owner"] },
        output: { owner: "team-search" }
      }]
    },
    fails: {
      toolExecutions: [
        { tool: "catalog", input: { service: "payments" }, output: { owner: "team-billing" } },
        { tool: "catalog", input: {}, output: { services: 41 } }
      ]
    },
    fact: "not called with {\"service\":\"search-api\"}: catalog ran 2× with {\"service\":\"payments\"}; {}"
  }
})
