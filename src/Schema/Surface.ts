/**
 * The surface catalog: which assistants the golden set speaks to, the wire format each speaks, the
 * tools each may call, the tools that must wait for approval and the outcomes a turn may end in.
 */
import { Schema } from "effect"
import { EvidenceRules } from "../Evidence/Rules.js"
import { NonBlankString } from "./Fields.js"
import { OtelRules } from "./Otel.js"

/** Outcomes every surface knows; a surface's `outcomes` add to them. */
export const defaultOutcomes: ReadonlyArray<string> = ["answered", "refused", "awaiting-approval", "error"]

/**
 * Route templates for an app whose routes differ from the defaults (`{conversationId}`, `{turnId}`).
 * `delete: null` says the app keeps no conversations, so there is nothing to delete.
 */
export const Routes = Schema.Struct({
  conversation: Schema.optionalWith(NonBlankString, { exact: true }),
  trace: Schema.optionalWith(NonBlankString, { exact: true }),
  delete: Schema.optionalWith(Schema.NullOr(NonBlankString), { exact: true }),
  ratings: Schema.optionalWith(NonBlankString, { exact: true }),
  decide: Schema.optionalWith(NonBlankString, { exact: true })
})
/** Route templates for an app whose routes differ from the defaults. */
export type Routes = typeof Routes.Type

/**
 * How a request differs from the protocol's own: `body` (ai-sdk, ag-ui) replaces the whole request
 * body, `input` (langgraph) the run's input. String values `"{question}"`, `"{conversationId}"` and
 * `"{messageId}"` (and for ag-ui `"{runId}"`) are replaced by the values; in longer strings they are
 * interpolated as text, never evaluated.
 */
export const RequestTemplate = Schema.Struct({
  body: Schema.optionalWith(Schema.Unknown, { exact: true }),
  input: Schema.optionalWith(Schema.Unknown, { exact: true })
})
/** How a request differs from the protocol's own. */
export type RequestTemplate = typeof RequestTemplate.Type

/**
 * What a decision on a proposal resumes a paused run with (langgraph, ag-ui): any JSON, `{reason}` (a
 * denial's) and `{proposalId}` filled in its string values as a request template's are.
 */
export const ResumeTemplates = Schema.Struct({
  approve: Schema.Unknown,
  deny: Schema.Unknown
})
/** What a decision on a proposal resumes a paused run with. */
export type ResumeTemplates = typeof ResumeTemplates.Type

/** One surface of an assistant: how to ask it, and what its turns may do. */
export const Surface = Schema.Struct({
  /** The wire format a live run speaks to it, one of the registry's (`src/Protocols/Registry.ts`), checked with the catalog. */
  protocol: Schema.optionalWith(NonBlankString, { exact: true }),
  endpoint: Schema.optionalWith(NonBlankString, { exact: true }),
  assistantId: Schema.optionalWith(NonBlankString, { exact: true }),
  request: Schema.optionalWith(RequestTemplate, { exact: true }),
  resume: Schema.optionalWith(ResumeTemplates, { exact: true }),
  routes: Schema.optionalWith(Routes, { exact: true }),
  tools: Schema.Array(NonBlankString),
  gatedTools: Schema.optionalWith(Schema.Array(NonBlankString), { exact: true }),
  outcomes: Schema.optionalWith(Schema.Array(NonBlankString), { exact: true }),
  evidence: Schema.optionalWith(EvidenceRules, { exact: true }),
  otel: Schema.optionalWith(OtelRules, { exact: true })
})
/** One surface of an assistant: how to ask it, and what its turns may do. */
export type Surface = typeof Surface.Type

/** The catalog file: `{"surfaces": {NAME: Surface}, "routes"?: Routes}`. */
export const Catalog = Schema.Struct({
  surfaces: Schema.Record({ key: Schema.String, value: Surface }),
  routes: Schema.optionalWith(Routes, { exact: true })
})
/** The catalog file: `{"surfaces": {NAME: Surface}, "routes"?: Routes}`. */
export type Catalog = typeof Catalog.Type

/** The outcomes a turn of this surface may end in. */
export const surfaceOutcomes = (surface: Surface): ReadonlyArray<string> => [
  ...defaultOutcomes,
  ...(surface.outcomes ?? []).filter((o) => !defaultOutcomes.includes(o))
]
