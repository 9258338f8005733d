import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { readFileSync } from "node:fs"
import { program } from "../examples/run-golden-set.js"

describe("the typed API", () => {
  it.effect("runs the committed golden set inside another Effect program, as the README shows", () =>
    Effect.gen(function*() {
      const result = yield* program
      expect(result).toMatchObject({ total: 22, passedCount: 18, floor: 0.8181, passed: true })
      expect(result.cases.filter((c) => !c.passed).map((c) => c.id)).toEqual([
        "docs.refund-proration-no-retired-page",
        "docs.where-search-api-repo-catalog",
        "docs.force-deploy-no-invented-flag",
        "agent.scale-search-api-stops-at-approval"
      ])
    }))

  it("is quoted in the README exactly as it is type-checked", () => {
    expect(readFileSync("README.md", "utf8")).toContain("```ts\n" + readFileSync("examples/run-golden-set.ts", "utf8") + "```")
  })
})
