/**
 * A service of a team's own that runs the golden set inside its program: a release gate that lets a
 * release go only when the assistant holds the committed floor, naming the failing cases otherwise.
 * Turns come from the recorded fixtures here; `SurfaceClient.Live(…)` would ask the running app.
 */
import { NodeContext } from "@effect/platform-node"
import { Effect, Layer, Option } from "effect"
import {
  caseSetFingerprint,
  loadGoldenSet,
  noFloorYet,
  readBaseline,
  Runner,
  type RunResult,
  summarize,
  SurfaceClient
} from "turn-eval"

/** What the gate decided, and the run it decided on. */
export interface GateDecision {
  readonly release: boolean
  readonly reason: string
  readonly failing: ReadonlyArray<string>
  readonly run: RunResult
}

/** Holds a release unless the golden set holds the committed floor. */
export class ReleaseGate extends Effect.Service<ReleaseGate>()("acme/ReleaseGate", {
  effect: Effect.gen(function*() {
    const set = yield* loadGoldenSet("cases/golden-cases.json", "cases/surfaces.json")
    const baseline = yield* readBaseline("baseline.json")
    const runner = yield* Runner
    return {
      /** Runs every case and decides. */
      check: Effect.gen(function*() {
        const cases = yield* runner.run(set.catalog, set.cases)
        const floor = Option.match(baseline, { onNone: () => null, onSome: (b) => b.floor })
        const run = summarize(cases, caseSetFingerprint(set.cases), floor)
        const failing = run.cases.filter((c) => !c.passed).map((c) => c.id)
        const reason = run.floor === null
          ? noFloorYet
          : `${run.passedCount}/${run.total} passed against a floor of ${run.floor}`
        return { release: run.passed === true, reason, failing, run } satisfies GateDecision
      })
    }
  }),
  dependencies: [Runner.Default]
}) {}

/** The team's program: the gate on recorded turns, with Node's file system. */
export const program = Effect.gen(function*() {
  const gate = yield* ReleaseGate
  return yield* gate.check
}).pipe(
  Effect.provide(ReleaseGate.Default.pipe(Layer.provide(SurfaceClient.Fixture("cases/fixtures")))),
  Effect.provide(NodeContext.layer)
)
