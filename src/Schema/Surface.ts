/**
 * The surface catalog: which assistants the golden set speaks to, the tools each may call, the tools
 * that must wait for approval and the outcomes a turn may end in.
 */
import { Schema } from "effect"
import { NonBlankString } from "./Case.js"
import { OtelRules } from "./Otel.js"

/** Outcomes every surface knows; a surface's `outcomes` add to them. */
export const defaultOutcomes: ReadonlyArray<string> = ["answered", "refused", "awaiting-approval", "error"]

/** Route templates for an app whose routes differ from the defaults (`{conversationId}`, `{turnId}`). */
export const Routes = Schema.Struct({
  conversation: Schema.optionalWith(NonBlankString, { exact: true }),
  trace: Schema.optionalWith(NonBlankString, { exact: true }),
  delete: Schema.optionalWith(NonBlankString, { exact: true }),
  ratings: Schema.optionalWith(NonBlankString, { exact: true })
})
/** Route templates for an app whose routes differ from the defaults. */
export type Routes = typeof Routes.Type

/** One surface of an assistant: where to ask, and what its turns may do. */
export const Surface = Schema.Struct({
  endpoint: NonBlankString,
  tools: Schema.Array(NonBlankString),
  gatedTools: Schema.optionalWith(Schema.Array(NonBlankString), { exact: true }),
  outcomes: Schema.optionalWith(Schema.Array(NonBlankString), { exact: true }),
  otel: Schema.optionalWith(OtelRules, { exact: true })
})
/** One surface of an assistant: where to ask, and what its turns may do. */
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
