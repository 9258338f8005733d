/**
 * The checks that span the two files of a golden set: every case names a surface, tools and outcomes
 * its catalog has, ids are unique. Pure: values in, problems out.
 */
import type { CasesFile } from "./Case.js"
import { jsonPath } from "./Decode.js"
import type { Problem } from "./Errors.js"
import { otelCatalogProblems } from "./Otel.js"
import { names as list, quoted } from "./Shown.js"
import { type Catalog, surfaceOutcomes } from "./Surface.js"

/** Problems in the catalog itself, at their JSON paths. */
export const catalogProblems = (catalog: Catalog): ReadonlyArray<Problem> => {
  const problems: Array<Problem> = []
  const names = Object.keys(catalog.surfaces)
  if (names.length === 0) problems.push({ path: "$.surfaces", message: "expected at least one surface" })
  for (const name of names) {
    const surface = catalog.surfaces[name]!
    const at = jsonPath(["surfaces", name])
    if (name.trim() === "") problems.push({ path: at, message: "expected a non-empty surface name" })
    if (!surface.endpoint.startsWith("/")) {
      problems.push({ path: `${at}.endpoint`, message: `expected a path starting with "/", got ${quoted(surface.endpoint)}` })
    }
    surface.gatedTools?.forEach((tool, i) => {
      if (!surface.tools.includes(tool)) {
        problems.push({
          path: `${at}.gatedTools[${i}]`,
          message: `gated tool ${quoted(tool)} is not one of the surface's tools (${list(surface.tools)})`
        })
      }
    })
  }
  problems.push(...otelCatalogProblems(catalog.surfaces))
  const needs = { conversation: "{conversationId}", trace: "{turnId}", delete: "{conversationId}" } as const
  for (const route of ["conversation", "trace", "delete"] as const) {
    const template = catalog.routes?.[route]
    if (template === undefined) continue
    if (!template.startsWith("/") || !template.includes(needs[route])) {
      problems.push({
        path: `$.routes.${route}`,
        message: `expected a path starting with "/" that holds ${needs[route]}, got ${quoted(template)}`
      })
    }
  }
  const ratings = catalog.routes?.ratings
  if (ratings !== undefined && !ratings.startsWith("/")) {
    problems.push({
      path: "$.routes.ratings",
      message: `expected a path starting with "/" (a query is allowed), got ${quoted(ratings)}`
    })
  }
  return problems
}

/** Problems in the cases file against a valid catalog, at their JSON paths. */
export const caseProblems = (file: CasesFile, catalog: Catalog): ReadonlyArray<Problem> => {
  const problems: Array<Problem> = []
  const firstIndex = new Map<string, number>()
  const surfaceNames = Object.keys(catalog.surfaces)
  const outcomesOf = new Map(surfaceNames.map((name) => [name, surfaceOutcomes(catalog.surfaces[name]!)] as const))
  file.cases.forEach((c, i) => {
    const at = `$.cases[${i}]`
    const first = firstIndex.get(c.id)
    if (first === undefined) firstIndex.set(c.id, i)
    else problems.push({ path: `${at}.id`, message: `duplicate id ${quoted(c.id)} (first at $.cases[${first}])` })
    const surface = Object.hasOwn(catalog.surfaces, c.surface) ? catalog.surfaces[c.surface] : undefined
    if (surface === undefined) {
      problems.push({
        path: `${at}.surface`,
        message: `unknown surface ${quoted(c.surface)}; the catalog has ${list(surfaceNames)}`
      })
      return
    }
    const outcomes = outcomesOf.get(c.surface)!
    c.expect.forEach((e, k) => {
      if ((e.kind === "calls-tool" || e.kind === "never-calls") && !surface.tools.includes(e.tool)) {
        problems.push({
          path: `${at}.expect[${k}].tool`,
          message: `unknown tool ${quoted(e.tool)} on surface ${quoted(c.surface)}; its tools are ${list(surface.tools)}`
        })
      }
      if (e.kind === "outcome" && !outcomes.includes(e.is)) {
        problems.push({
          path: `${at}.expect[${k}].is`,
          message: `unknown outcome ${quoted(e.is)} on surface ${quoted(c.surface)}; its outcomes are ${list(outcomes)}`
        })
      }
    })
  })
  return problems
}
