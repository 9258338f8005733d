/** Reading a results file: a consistent one as it is, one whose counts do not follow from its cases refused. */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { readResults } from "../../src/Scorecard/ResultsStore.js"
import { summarize } from "../../src/Scorecard/Scorecard.js"

const set = "sha256:" + "0".repeat(64)
const run = summarize(
  [{ id: "a", surface: "docs", passed: true, expectations: [{ kind: "no-citations", passed: true }] }],
  set,
  1
)
const written = (content: unknown): string => {
  const file = join(mkdtempSync(join(tmpdir(), "eval-results-")), "results.json")
  writeFileSync(file, JSON.stringify(content))
  return file
}

describe("readResults", () => {
  it.effect("reads a results file whose counts follow from its cases", () =>
    Effect.gen(function*() {
      expect(yield* readResults(written(run))).toEqual(run)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("refuses one whose counts do not, naming the file and each count", () =>
    Effect.gen(function*() {
      const file = written({ ...run, total: 2, passedCount: 0 })
      const refused = yield* Effect.either(readResults(file))
      expect(Either.isLeft(refused) && refused.left.message).toBe(
        [
          `${file}: $.total: says 2, but the file holds 1 case`,
          `${file}: $.passedCount: says 0, but 1 case passed`
        ].join("\n")
      )
    }).pipe(Effect.provide(NodeContext.layer)))
})
