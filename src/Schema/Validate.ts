/**
 * The checks that span the two files of a golden set: every case names a surface, tools and outcomes
 * its catalog has, ids are unique. Pure: values in, problems out.
 */
import { evidenceUnderOtel } from "../Evidence/Rules.js"
import { kindNamed } from "../Graders/Kinds.js"
import type { SurfaceField } from "../Protocols/Protocol.js"
import { defaultProtocol, protocolNamed, protocolNames, protocols } from "../Protocols/Registry.js"
import { didYouMean } from "../Words.js"
import { type CasesFile, isConversation, type Step, stepKind, stepsOf } from "./Case.js"
import { isRecord, jsonPath } from "./Decode.js"
import type { Problem } from "./Errors.js"
import { otelCatalogProblems } from "./Otel.js"
import { placeRoute, routeBaseOf } from "./Protocol.js"
import { names as list, quoted } from "./Shown.js"
import { type Catalog, type Routes, type Surface, surfaceOutcomes } from "./Surface.js"

const needs = {
  conversation: "{conversationId}",
  trace: "{turnId}",
  delete: "{conversationId}",
  decide: "{proposalId}"
} as const

// Routes are placed under a base with a path, as a run places them under its base URL, so that a route
// leaving either the origin or the base URL's path is refused here, by the transport's own check.
const probe = routeBaseOf(new URL("http://app.invalid/base/"))

/** The problem of a path the catalog gives that a run would refuse to send to, if it is one. */
const offBase = (path: string, value: string): ReadonlyArray<Problem> => {
  const placed = placeRoute(probe, value)
  return typeof placed !== "string" ? [] : [{
    path,
    message: `expected a path on the app's origin, under the base URL's path, got ${quoted(value)}: it ${placed}`
  }]
}

/** Problems in one block of route templates (the catalog's or a surface's), at JSON paths under `at`. */
const routeProblems = (at: string, routes: Routes | undefined): ReadonlyArray<Problem> => {
  if (routes === undefined) return []
  const problems: Array<Problem> = []
  for (const route of ["conversation", "trace", "delete", "decide"] as const) {
    const template = routes[route]
    if (template === undefined || template === null) continue
    if (!template.startsWith("/") || !template.includes(needs[route])) {
      problems.push({
        path: `${at}.${route}`,
        message: `expected a path starting with "/" that holds ${needs[route]}, got ${quoted(template)}`
      })
    } else {
      problems.push(...offBase(`${at}.${route}`, template))
    }
  }
  if (routes.ratings !== undefined && !routes.ratings.startsWith("/")) {
    problems.push({
      path: `${at}.ratings`,
      message: `expected a path starting with "/" (a query is allowed), got ${quoted(routes.ratings)}`
    })
  } else if (routes.ratings !== undefined) {
    problems.push(...offBase(`${at}.ratings`, routes.ratings))
  }
  return problems
}

/** A surface field a protocol may leave unread, and how a problem says only some protocols read it. */
const unread: ReadonlyArray<readonly [SurfaceField, (readers: string, shown: string) => string]> = [
  ["assistantId", (readers, shown) => `only ${readers} surface has an assistant id; this one is ${shown}`],
  ["request.body", (readers, shown) => `only ${readers} surface takes a request body template; this one is ${shown}`],
  ["request.input", (readers, shown) => `only ${readers} surface takes a run input template; this one is ${shown}`],
  ["resume", (readers, shown) => `only ${readers} surface resumes a paused run; this one is ${shown}`],
  ...(["conversation", "trace"] as const).map((route) =>
    [
      `routes.${route}`,
      (readers: string, shown: string) =>
        `a ${shown} surface reads its turn from the answer; only ${readers} surface has a ${route} route`
    ] as const
  )
]

/** A surface's value at a field's path (`request.body`), if it sets one. */
const valueAt = (surface: Surface, field: SurfaceField): unknown =>
  field.split(".").reduce<unknown>(
    (at, key) => isRecord(at) ? at[key] : undefined,
    surface
  )

/** A protocol's name with its article, as a problem says it: `a "langgraph"`, `an "ai-sdk"`. */
const withArticle = (name: string): string => `${/^[aeiou]/.test(name) ? "an" : "a"} ${quoted(name)}`

/** The protocols that read a field, as a problem names them: `an "ai-sdk" or "ag-ui"`. */
const readersOf = (field: SurfaceField): string => {
  const names = protocols.filter((p) => p.surface.reads.includes(field)).map((p) => p.name)
  const [first, ...rest] = names
  if (first === undefined) return "no"
  const all = [withArticle(first), ...rest.map(quoted)]
  return all.length === 1 ? all[0]! : `${all.slice(0, -1).join(", ")} or ${all[all.length - 1]}`
}

/** Problems in how a surface is asked: the fields its protocol needs, and none it does not read. */
const protocolProblems = (at: string, surface: Surface): ReadonlyArray<Problem> => {
  const problems: Array<Problem> = []
  const name = surface.protocol ?? defaultProtocol
  const protocol = protocolNamed(name)
  if (protocol === undefined) {
    return [{
      path: `${at}.protocol`,
      message: `expected one of ${protocolNames.map((n) => quoted(n)).join(", ")}, got ${quoted(name)}${
        didYouMean(name, protocolNames, quoted)
      }`
    }]
  }
  const shown = quoted(name)
  const { reads, requires } = protocol.surface
  if (surface.endpoint === undefined) {
    if (requires.endpoint === true) {
      problems.push({
        path: `${at}.endpoint`,
        message: `expected the path a ${shown} surface is asked at, such as "/api/chat"`
      })
    }
  } else if (!surface.endpoint.startsWith("/")) {
    problems.push({
      path: `${at}.endpoint`,
      message: `expected a path starting with "/", got ${quoted(surface.endpoint)}`
    })
  } else {
    problems.push(...offBase(`${at}.endpoint`, surface.endpoint))
  }
  for (const [field, problem] of unread) {
    if (valueAt(surface, field) !== undefined && !reads.includes(field)) {
      problems.push({ path: `${at}.${field}`, message: problem(readersOf(field), shown) })
    }
  }
  for (const [field, must] of Object.entries(requires)) {
    if (field !== "endpoint" && typeof must === "string" && valueAt(surface, field as SurfaceField) === undefined) {
      problems.push({ path: `${at}.${field}`, message: `missing: ${withArticle(name)} surface ${must}` })
    }
  }
  problems.push(...routeProblems(`${at}.routes`, surface.routes))
  return problems
}

/** Problems in the catalog itself, at their JSON paths. */
export const catalogProblems = (catalog: Catalog): ReadonlyArray<Problem> => {
  const problems: Array<Problem> = []
  const names = Object.keys(catalog.surfaces)
  if (names.length === 0) problems.push({ path: "$.surfaces", message: "expected at least one surface" })
  for (const name of names) {
    const surface = catalog.surfaces[name]!
    const at = jsonPath(["surfaces", name])
    if (name.trim() === "") problems.push({ path: at, message: "expected a non-empty surface name" })
    problems.push(...protocolProblems(at, surface))
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
  problems.push(...routeProblems("$.routes", catalog.routes))
  return problems
}

/**
 * Suggestions for a valid catalog: evidence rules still under a surface's `otel` block, which the
 * `evidence` block now holds for every source of turns.
 */
export const catalogSuggestions = (catalog: Catalog): ReadonlyArray<Problem> =>
  Object.entries(catalog.surfaces).flatMap(([name, surface]) => {
    const moved = evidenceUnderOtel(surface.otel)
    return moved.length === 0 ? [] : [{
      path: `${jsonPath(["surfaces", name])}.otel`,
      message: `move ${
        moved.join(", ")
      } to the surface's "evidence" block: they serve live protocols and traces alike (read from "otel" until then)`
    }]
  })

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
        message: `unknown surface ${quoted(c.surface)}; the catalog has ${list(surfaceNames)}${
          didYouMean(c.surface, surfaceNames, quoted)
        }`
      })
      return
    }
    const outcomes = outcomesOf.get(c.surface)!
    const steps = stepsOf(c).map((step, j) => [isConversation(c) ? `${at}.turns[${j}]` : at, step] as const)
    if (isConversation(c) && c.turns[0] !== undefined && !("ask" in c.turns[0])) {
      problems.push({
        path: `${at}.turns[0]`,
        message: `expected an "ask" step first: an ${
          stepKind(c.turns[0])
        } step answers the proposal the step before it left`
      })
    }
    for (const [stepAt, step] of steps) {
      step.expect.forEach((e, k) => {
        if (e.kind === "runs-as-proposed" && !("approve" in step)) {
          problems.push({
            path: `${stepAt}.expect[${k}].kind`,
            message: isConversation(c)
              ? `"runs-as-proposed" grades an approve step (what ran once the proposal was approved); this step is ${
                stepKind(step) === "ask" ? "an ask" : "a deny"
              }`
              : `"runs-as-proposed" grades an approve step of a conversation case ("turns"); this case asks one question`
          })
        }
      })
      stepProblems(stepAt, step, c.surface, surface, outcomes, problems)
    }
  })
  return problems
}

/** The problems of the tools and outcomes one step's expectations name, at paths under `at`. */
const stepProblems = (
  at: string,
  step: Step,
  surfaceName: string,
  surface: Surface,
  outcomes: ReadonlyArray<string>,
  problems: Array<Problem>
): void => {
  step.expect.forEach((e, k) => {
    for (const named of kindNamed(e.kind)!.names(e)) {
      const path = `${at}.expect[${k}].${named.at}`
      if ("tool" in named && !surface.tools.includes(named.tool)) {
        problems.push({
          path,
          message: `unknown tool ${quoted(named.tool)} on surface ${quoted(surfaceName)}; its tools are ${
            list(surface.tools)
          }`
        })
      }
      if ("outcome" in named && !outcomes.includes(named.outcome)) {
        problems.push({
          path,
          message: `unknown outcome ${quoted(named.outcome)} on surface ${quoted(surfaceName)}; its outcomes are ${
            list(outcomes)
          }`
        })
      }
    }
  })
}
