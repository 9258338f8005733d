/**
 * A surface's evidence rules (the catalog's `evidence` block): which fields of a tool result name a
 * surfaced item, what in an answer is a citation, and which tools leave a proposal. The same rules, with
 * the same defaults, serve every source of live or traced turns — the OpenTelemetry reader and each
 * live protocol — so a surface grades alike whichever way its turns arrive. docs/otel.md and
 * docs/protocol.md give the defaults.
 */
import { Schema } from "effect"
import type { Problem } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import { names, quoted, shown } from "../Schema/Shown.js"

const Name = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "expected a non-empty string" })
)

/** The fields of the `evidence` block; every one is optional. */
export const evidenceFields = {
  identifierFields: Schema.optionalWith(Schema.Array(Name), { exact: true }),
  citationPattern: Schema.optionalWith(Name, { exact: true }),
  citationPrefixes: Schema.optionalWith(Schema.Array(Name), { exact: true }),
  proposalTools: Schema.optionalWith(Schema.Array(Name), { exact: true })
}

/** The catalog's `evidence` block of one surface. */
export const EvidenceRules = Schema.Struct(evidenceFields)
/** The catalog's `evidence` block of one surface. */
export type EvidenceRules = typeof EvidenceRules.Type

/** The names of the evidence fields, in the order the docs give them. */
export const evidenceKeys = ["identifierFields", "citationPattern", "citationPrefixes", "proposalTools"] as const

/** The JSON fields of a tool result (found at any depth) whose values are surfaced item identifiers. */
export const defaultIdentifierFields: ReadonlyArray<string> = ["path", "url", "id", "source"]

/** Markdown link targets: `[text](target)` and `[text](<target> "title")`, not images. */
export const defaultCitationPattern = String.raw`(?<!!)\[[^\]\n]*\]\(\s*<?([^\s<>()]+)>?(?:\s+"[^"\n]*")?\s*\)`

/** A surface's evidence rules with every default filled in, ready to apply. */
export interface ResolvedEvidence {
  readonly identifierFields: ReadonlyArray<string>
  readonly citationPattern: RegExp
  readonly citationPrefixes: ReadonlyArray<string>
  readonly proposalTools: ReadonlyArray<string>
}

/** The flags a citation pattern is applied with: every match, in Unicode. */
const citationFlags = "gu"

/**
 * A citation pattern compiled by the engine that applies it (V8's, with the flags it is applied with),
 * or why that engine refuses it. V8 compiles a pattern when it is first used, separately for text of
 * one-byte and two-byte characters and again once it is used more, and some refusals ("Regular
 * expression too large") come only then: each is used here on both kinds of text, twice, so that the
 * refusal comes now rather than in the middle of a run.
 */
const compileCitationPattern = (source: string): RegExp | string => {
  try {
    const regex = new RegExp(source, citationFlags)
    for (const text of ["", "", "\u0100", "\u0100"]) {
      regex.lastIndex = 0
      regex.test(text)
    }
    regex.lastIndex = 0
    return regex
  } catch (error) {
    // The engine's reason, without the pattern it quotes (a pattern may be a megabyte).
    const message = error instanceof Error ? error.message : String(error)
    const quoting = `Invalid regular expression: /${source}/${citationFlags}: `
    return message.startsWith(quoting)
      ? message.slice(quoting.length)
      : message.replace(/^Invalid regular expression: /, "")
  }
}

/** What a surface holds that the rules are read from: its `evidence` block, and the older `otel` one. */
export interface EvidenceHolder {
  readonly evidence?: EvidenceRules
  readonly otel?: EvidenceRules
}

/**
 * A surface's rules, defaults filled in: each field from `evidence`, else (a catalog written before
 * the `evidence` block) from `otel`, else the default. The pattern must be valid (the catalog check says so).
 */
export const resolveEvidence = (surface: EvidenceHolder | undefined): ResolvedEvidence => {
  const pick = <K extends keyof EvidenceRules>(key: K): EvidenceRules[K] | undefined =>
    surface?.evidence?.[key] ?? surface?.otel?.[key]
  const pattern = compileCitationPattern(pick("citationPattern") ?? defaultCitationPattern)
  return {
    identifierFields: pick("identifierFields") ?? defaultIdentifierFields,
    citationPattern: typeof pattern === "string" ? new RegExp(defaultCitationPattern, "gu") : pattern,
    citationPrefixes: pick("citationPrefixes") ?? [],
    proposalTools: pick("proposalTools") ?? []
  }
}

/** The rules every surface has when its catalog says nothing. */
export const defaultEvidence: ResolvedEvidence = resolveEvidence(undefined)

/** Problems in one block of evidence rules (`evidence` or `otel`), at JSON paths under `at` (the block's path). */
export const evidenceProblems = (
  at: string,
  rules: EvidenceRules | undefined,
  tools: ReadonlyArray<string>
): ReadonlyArray<Problem> => {
  if (rules === undefined) return []
  const problems: Array<Problem> = []
  if (rules.citationPattern !== undefined) {
    const compiled = compileCitationPattern(rules.citationPattern)
    if (typeof compiled === "string") {
      problems.push({
        path: `${at}.citationPattern`,
        message: `not a valid regular expression: ${inert(shown(compiled))}`
      })
    } else if (compiled.test("")) {
      problems.push({ path: `${at}.citationPattern`, message: "matches the empty text, so every answer would cite" })
    }
  }
  rules.citationPrefixes?.forEach((prefix, i) => {
    if (/\s/.test(prefix)) {
      problems.push({
        path: `${at}.citationPrefixes[${i}]`,
        message: `expected a path prefix without spaces, such as "docs/"`
      })
    }
  })
  rules.proposalTools?.forEach((tool, i) => {
    if (!tools.includes(tool)) {
      problems.push({
        path: `${at}.proposalTools[${i}]`,
        message: `proposal tool ${quoted(tool)} is not one of the surface's tools (${names(tools)})`
      })
    }
  })
  return problems
}

/** The evidence fields a surface's `otel` block still holds: they belong in its `evidence` block. */
export const evidenceUnderOtel = (otel: EvidenceRules | undefined): ReadonlyArray<string> =>
  otel === undefined ? [] : evidenceKeys.filter((key) => otel[key] !== undefined)
