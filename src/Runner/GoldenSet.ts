/**
 * Loading a golden set: the cases file and the surface catalog, decoded and checked against each other.
 * Anything wrong is bad input naming the file and the JSON path.
 */
import type { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import { readJson } from "../Files.js"
import { type Case, CasesFile, fastCasesFile } from "../Schema/Case.js"
import { BadInput, UsageError } from "../Schema/Errors.js"
import { Catalog } from "../Schema/Surface.js"
import { caseProblems, catalogProblems } from "../Schema/Validate.js"

/** A validated golden set and where it came from. */
export interface GoldenSet {
  readonly casesFile: string
  readonly surfacesFile: string
  readonly cases: ReadonlyArray<Case>
  readonly catalog: Catalog
}

/** Reads and validates the catalog alone. */
export const loadCatalog = (surfacesFile: string): Effect.Effect<Catalog, BadInput, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const catalog = yield* readJson(Catalog, surfacesFile)
    const inCatalog = catalogProblems(catalog)
    if (inCatalog.length > 0) return yield* new BadInput({ file: surfacesFile, problems: inCatalog })
    return catalog
  })

/** Reads and validates the catalog, then the cases against it. */
export const loadGoldenSet = (
  casesFile: string,
  surfacesFile: string
): Effect.Effect<GoldenSet, BadInput, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const catalog = yield* loadCatalog(surfacesFile)
    const file = yield* readJson(CasesFile, casesFile, "strict", fastCasesFile)
    const inCases = caseProblems(file, catalog)
    if (inCases.length > 0) return yield* new BadInput({ file: casesFile, problems: inCases })
    return { casesFile, surfacesFile, cases: file.cases, catalog }
  })

/**
 * The cases a `--filter` selects: a case matches a filter equal to its id or to one of its tags.
 * No filter selects every case; filters that select nothing are a usage error, which names no CLI flag
 * (the CLI adds `--filter`).
 */
export const selectCases = (
  set: GoldenSet,
  filters: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<Case>, UsageError> => {
  if (filters.length === 0) return Effect.succeed(set.cases)
  const selected = set.cases.filter((c) => filters.some((f) => c.id === f || (c.tags ?? []).includes(f)))
  return selected.length > 0
    ? Effect.succeed(selected)
    : Effect.fail(
      new UsageError({
        message: `${filters.map((f) => JSON.stringify(f)).join(", ")} matches no case id or tag in ${set.casesFile}`
      })
    )
}
