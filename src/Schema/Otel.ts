/**
 * A surface's rules for reading its turns from OpenTelemetry traces (the catalog's optional `otel`
 * block): which agent names are this surface, which fields of a tool result name a surfaced document,
 * what in an answer is a citation, and which tools leave a proposal. Every rule has a default that
 * works for the GenAI conventions, the AI SDK's `ai.*` spans and OpenInference; docs/otel.md has them.
 */
import { Schema } from "effect"
import { inert, jsonPath } from "./Decode.js"
import type { Problem } from "./Errors.js"
import { names, quoted, shown } from "./Shown.js"

const Name = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "expected a non-empty string" })
)

/** The catalog's `otel` block of one surface; every field is optional. */
export const OtelRules = Schema.Struct({
  agentNames: Schema.optionalWith(Schema.Array(Name), { exact: true }),
  identifierFields: Schema.optionalWith(Schema.Array(Name), { exact: true }),
  citationPattern: Schema.optionalWith(Name, { exact: true }),
  citationPrefixes: Schema.optionalWith(Schema.Array(Name), { exact: true }),
  proposalTools: Schema.optionalWith(Schema.Array(Name), { exact: true })
})
/** The catalog's `otel` block of one surface. */
export type OtelRules = typeof OtelRules.Type

/** The JSON fields of a tool result (found at any depth) whose values are surfaced document identifiers. */
const defaultIdentifierFields: ReadonlyArray<string> = ["path", "url", "id", "source"]

/** Markdown link targets: `[text](target)` and `[text](<target> "title")`, not images. */
const defaultCitationPattern = String.raw`(?<!!)\[[^\]\n]*\]\(\s*<?([^\s<>()]+)>?(?:\s+"[^"\n]*")?\s*\)`

/** A surface's rules with every default filled in, ready to apply. */
export interface ResolvedOtelRules {
  readonly agentNames: ReadonlyArray<string>
  readonly identifierFields: ReadonlyArray<string>
  readonly citationPattern: RegExp
  readonly citationPrefixes: ReadonlyArray<string>
  readonly proposalTools: ReadonlyArray<string>
}

/** A citation pattern compiled as it is applied (global), or why it cannot be. */
const compileCitationPattern = (source: string): RegExp | string => {
  try {
    return new RegExp(source, "gu")
  } catch (error) {
    return error instanceof Error ? error.message.replace(/^Invalid regular expression: /, "") : String(error)
  }
}

/** The rules of surface `name`, defaults filled in; the pattern must be valid (the catalog check says so). */
export const resolveOtelRules = (name: string, rules: OtelRules | undefined): ResolvedOtelRules => {
  const pattern = compileCitationPattern(rules?.citationPattern ?? defaultCitationPattern)
  return {
    agentNames: rules?.agentNames ?? [name],
    identifierFields: rules?.identifierFields ?? defaultIdentifierFields,
    citationPattern: typeof pattern === "string" ? new RegExp(defaultCitationPattern, "gu") : pattern,
    citationPrefixes: rules?.citationPrefixes ?? [],
    proposalTools: rules?.proposalTools ?? []
  }
}

/**
 * Problems in the catalog's `otel` blocks: each surface's rules, and an agent name that two surfaces
 * claim (a surface claims its own name unless its `agentNames` say otherwise).
 */
export const otelCatalogProblems = (
  surfaces: Readonly<Record<string, { readonly tools: ReadonlyArray<string>; readonly otel?: OtelRules }>>
): ReadonlyArray<Problem> => {
  const problems: Array<Problem> = []
  const claimedBy = new Map<string, string>()
  for (const [name, surface] of Object.entries(surfaces)) {
    const at = jsonPath(["surfaces", name])
    problems.push(...otelRuleProblems(at, surface.otel, surface.tools))
    ;(surface.otel?.agentNames ?? [name]).forEach((agent, i) => {
      const other = claimedBy.get(agent)
      if (other !== undefined && other !== name) {
        problems.push({
          path: surface.otel?.agentNames === undefined ? at : `${at}.otel.agentNames[${i}]`,
          message: `agent name ${quoted(agent)} is already surface ${quoted(other)}'s; give one of them other otel.agentNames`
        })
      } else claimedBy.set(agent, name)
    })
  }
  return problems
}

/** Problems in one surface's `otel` block, at JSON paths under `at` (the surface's path). */
const otelRuleProblems = (
  at: string,
  rules: OtelRules | undefined,
  tools: ReadonlyArray<string>
): ReadonlyArray<Problem> => {
  if (rules === undefined) return []
  const problems: Array<Problem> = []
  if (rules.citationPattern !== undefined) {
    const compiled = compileCitationPattern(rules.citationPattern)
    if (typeof compiled === "string") {
      problems.push({ path: `${at}.otel.citationPattern`, message: `not a valid regular expression: ${inert(shown(compiled))}` })
    } else if (compiled.test("")) {
      problems.push({ path: `${at}.otel.citationPattern`, message: "matches the empty text, so every answer would cite" })
    }
  }
  rules.citationPrefixes?.forEach((prefix, i) => {
    if (/\s/.test(prefix)) {
      problems.push({ path: `${at}.otel.citationPrefixes[${i}]`, message: `expected a path prefix without spaces, such as "docs/"` })
    }
  })
  rules.proposalTools?.forEach((tool, i) => {
    if (!tools.includes(tool)) {
      problems.push({
        path: `${at}.otel.proposalTools[${i}]`,
        message: `proposal tool ${quoted(tool)} is not one of the surface's tools (${names(tools)})`
      })
    }
  })
  return problems
}
