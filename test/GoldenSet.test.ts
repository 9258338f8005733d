import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { existsSync } from "node:fs"
import { defaultCasesFile, defaultSurfacesFile, loadGoldenSet, selectCases } from "../src/Runner/GoldenSet.js"
import { expectationKinds } from "../src/Schema/Case.js"

describe("the committed golden set", () => {
  it.effect("validates against the committed catalog: every case names only tools and outcomes its surface has", () =>
    Effect.gen(function*() {
      const set = yield* loadGoldenSet(defaultCasesFile, defaultSurfacesFile)
      expect(set.cases.length).toBeGreaterThanOrEqual(20)
      expect(new Set(set.cases.map((c) => c.surface)).size).toBeGreaterThanOrEqual(2)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("uses every expectation kind, says what each case guards, and has a recorded turn for every case", () =>
    Effect.gen(function*() {
      const set = yield* loadGoldenSet(defaultCasesFile, defaultSurfacesFile)
      const used = new Set(set.cases.flatMap((c) => c.expect.map((e) => e.kind)))
      expect([...expectationKinds].filter((k) => !used.has(k))).toEqual([])
      for (const c of set.cases) {
        expect(c.guards.length, c.id).toBeGreaterThan(10)
        expect(existsSync(`cases/fixtures/${c.id}.json`), c.id).toBe(true)
      }
      const surfaces = set.catalog.surfaces
      expect(surfaces["docs"]?.tools).toEqual(expect.arrayContaining(["search_docs", "catalog"]))
      expect(surfaces["ops-agent"]?.gatedTools?.length).toBeGreaterThan(0)
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("selectCases", () => {
  it.effect("refuses filters that select nothing, naming the filters and the cases file but no CLI flag", () =>
    Effect.gen(function*() {
      const set = yield* loadGoldenSet(defaultCasesFile, defaultSurfacesFile)
      const refused = yield* Effect.exit(selectCases(set, ["nothing", "neither"]))
      expect(refused).toEqual(Exit.fail(expect.objectContaining({
        message: `"nothing", "neither" matches no case id or tag in ${defaultCasesFile}`
      })))
    }).pipe(Effect.provide(NodeContext.layer)))
})
