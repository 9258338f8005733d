import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { program as releaseGate } from "../examples/release-gate-service.js"
import { program } from "../examples/run-golden-set.js"
import { caseCount, committedFloor, failingOnFixtures, offlineScore, passingOnFixtures } from "./support/golden.js"

describe("the typed API", () => {
  it.effect("runs the committed golden set inside another Effect program, as the README shows", () =>
    Effect.gen(function*() {
      const result = yield* program
      expect(result).toMatchObject({
        total: caseCount,
        passedCount: passingOnFixtures,
        // The floor the example hands summarize, as the README shows it.
        floor: 0.8181,
        passed: true
      })
      expect(result.cases.filter((c) => !c.passed).map((c) => c.id)).toEqual(failingOnFixtures)
    }))

  it.effect("runs the golden set inside a service of the user's own, importing the package by its name", () =>
    Effect.gen(function*() {
      const decision = yield* releaseGate
      const reason = `${offlineScore} passed against a floor of ${committedFloor}`
      expect(decision).toMatchObject({ release: true, reason })
      expect(decision.failing).toEqual(failingOnFixtures)
      expect(decision.run.cases.find((c) => c.id === "docs.refund-proration-no-retired-page")?.expectations)
        .toContainEqual({
          kind: "cites-only-surfaced",
          passed: false,
          fact: "unsurfaced: /docs/billing/refunds-2023"
        })
      expect(readFileSync("examples/release-gate-service.ts", "utf8")).toContain(`from "turn-eval"`)
    }))

  it("is quoted in the README exactly as it is type-checked", () => {
    expect(readFileSync("README.md", "utf8")).toContain(
      "```ts\n" + readFileSync("examples/run-golden-set.ts", "utf8") + "```"
    )
  })
})
