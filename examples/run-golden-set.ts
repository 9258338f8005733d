import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { caseSetFingerprint, loadGoldenSet, Runner, summarize, SurfaceClient } from "turn-eval"

export const program = Effect.gen(function*() {
  const set = yield* loadGoldenSet("cases/golden-cases.json", "cases/surfaces.json")
  const runner = yield* Runner
  const cases = yield* runner.run(set.catalog, set.cases)
  return summarize(cases, caseSetFingerprint(set.cases), 0.8181)
}).pipe(
  Effect.provide(Runner.Default.pipe(Layer.provide(SurfaceClient.Fixture("cases/fixtures")))),
  Effect.provide(NodeContext.layer)
)
