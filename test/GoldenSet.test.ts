import { NodeContext } from "@effect/platform-node"
import { describe, expect, it, layer } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { existsSync } from "node:fs"
import { defaultCasesFile, defaultSurfacesFile } from "../src/ProjectFiles.js"
import { loadGoldenSet, selectCases } from "../src/Runner/GoldenSet.js"
import { expectationKinds, expectationsOf } from "../src/Schema/Case.js"
import { floorFor } from "../src/Scorecard/Scorecard.js"
import { caseCount, committedFloor, failingOnFixtures, gradedOnFixtures, passingOnFixtures } from "./support/golden.js"

layer(NodeContext.layer)("the committed golden set, loaded", (it) => {
  it.effect("validates against the committed catalog: every case names only tools and outcomes its surface has", () =>
    Effect.gen(function*() {
      const set = yield* loadGoldenSet(defaultCasesFile, defaultSurfacesFile)
      expect(set.cases.length).toBeGreaterThanOrEqual(20)
      expect(new Set(set.cases.map((c) => c.surface)).size).toBeGreaterThanOrEqual(2)
    }))

  it.effect("uses every expectation kind, says what each case guards, and has a recorded turn for every case", () =>
    Effect.gen(function*() {
      const set = yield* loadGoldenSet(defaultCasesFile, defaultSurfacesFile)
      const used = new Set(set.cases.flatMap((c) => expectationsOf(c).map((e) => e.kind)))
      expect([...expectationKinds].filter((k) => !used.has(k))).toEqual([])
      for (const c of set.cases) {
        expect(c.guards.length, c.id).toBeGreaterThan(10)
        expect(existsSync(`cases/fixtures/${c.id}.json`), c.id).toBe(true)
      }
      const surfaces = set.catalog.surfaces
      expect(surfaces["docs"]?.tools).toEqual(expect.arrayContaining(["search_docs", "catalog"]))
      expect(surfaces["ops-agent"]?.gatedTools?.length).toBeGreaterThan(0)
    }))
})

describe("the committed golden set, graded on its recorded turns", () => {
  it("fails, on its recorded turns, the four cases the README shows, each on the fact it names", () => {
    expect(failingOnFixtures).toEqual(expect.arrayContaining([
      "docs.refund-proration-no-retired-page",
      "docs.where-search-api-repo-catalog",
      "docs.force-deploy-no-invented-flag",
      "agent.scale-search-api-stops-at-approval"
    ]))
    const proration = gradedOnFixtures.find((r) => r.id === "docs.refund-proration-no-retired-page")
    expect(proration?.expectations).toContainEqual({
      kind: "cites-only-surfaced",
      passed: false,
      fact: "unsurfaced: /docs/billing/refunds-2023"
    })
  })

  it("commits the floor its recorded turns reach, as turn-eval ratchet sets it", () => {
    expect(caseCount).toBe(gradedOnFixtures.length)
    expect(committedFloor).toBe(floorFor(passingOnFixtures, caseCount))
  })
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
