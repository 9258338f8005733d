/**
 * A surface's rules for reading its turns from OpenTelemetry traces (the catalog's optional `otel`
 * block): which agent names are this surface. What a turn surfaced and cited is read by the surface's
 * evidence rules (`../Evidence/Rules.ts`), shared with the live protocols; docs/otel.md has the defaults.
 */
import { Schema } from "effect"
import {
  evidenceFields,
  evidenceProblems,
  type EvidenceRules,
  type ResolvedEvidence,
  resolveEvidence
} from "../Evidence/Rules.js"
import { jsonPath } from "./Decode.js"
import type { Problem } from "./Errors.js"
import { quoted } from "./Shown.js"

const Name = Schema.String.pipe(
  Schema.filter((s) => s.trim().length > 0, { message: () => "expected a non-empty string" })
)

/**
 * The catalog's `otel` block of one surface: the agent names that are this surface. The evidence
 * fields it once held (`identifierFields`, `citationPattern`, `citationPrefixes`, `proposalTools`) are
 * still read from it when the surface's `evidence` block does not set them; `validate` suggests the move.
 */
export const OtelRules = Schema.Struct({
  agentNames: Schema.optionalWith(Schema.Array(Name), { exact: true }),
  ...evidenceFields
})
/** The catalog's `otel` block of one surface. */
export type OtelRules = typeof OtelRules.Type

/** A surface's rules for reading its turns from traces, defaults filled in: its agent names and evidence rules. */
export interface ResolvedOtelRules extends ResolvedEvidence {
  readonly agentNames: ReadonlyArray<string>
}

/** The rules of surface `name`, defaults filled in: evidence from `evidence`, else from `otel`, else the defaults. */
export const resolveOtelRules = (
  name: string,
  rules: OtelRules | undefined,
  evidence?: EvidenceRules
): ResolvedOtelRules => ({
  agentNames: rules?.agentNames ?? [name],
  ...resolveEvidence({
    ...(rules === undefined ? {} : { otel: rules }),
    ...(evidence === undefined ? {} : { evidence })
  })
})

/**
 * Problems in the catalog's `otel` blocks: each surface's rules, and an agent name that two surfaces
 * claim (a surface claims its own name unless its `agentNames` say otherwise).
 */
export const otelCatalogProblems = (
  surfaces: Readonly<
    Record<
      string,
      { readonly tools: ReadonlyArray<string>; readonly otel?: OtelRules; readonly evidence?: EvidenceRules }
    >
  >
): ReadonlyArray<Problem> => {
  const problems: Array<Problem> = []
  const claimedBy = new Map<string, string>()
  for (const [name, surface] of Object.entries(surfaces)) {
    const at = jsonPath(["surfaces", name])
    problems.push(...evidenceProblems(`${at}.otel`, surface.otel, surface.tools))
    problems.push(...evidenceProblems(`${at}.evidence`, surface.evidence, surface.tools))
    ;(surface.otel?.agentNames ?? [name]).forEach((agent, i) => {
      const other = claimedBy.get(agent)
      if (other !== undefined && other !== name) {
        problems.push({
          path: surface.otel?.agentNames === undefined ? at : `${at}.otel.agentNames[${i}]`,
          message: `agent name ${quoted(agent)} is already surface ${
            quoted(other)
          }'s; give one of them other otel.agentNames`
        })
      } else claimedBy.set(agent, name)
    })
  }
  return problems
}
