/**
 * The golden set inside a team's own vitest suite (`turn-eval/vitest`): one `describe` per surface,
 * one test per case, named by its id and what it guards. A failing case's test fails with each failing
 * fact (`cites-only-surfaced: unsurfaced: /docs/x`) or its turn error. Turns come from the recorded
 * fixtures unless another SurfaceClient layer is given (the live one, a table).
 *
 * The golden set is read while vitest collects the file; a file that cannot be used becomes one failing
 * test that names the file, the JSON path and what was expected, so the reason is never hidden.
 */
import type { FileSystem, Path } from "@effect/platform"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Cause, Effect, Exit, Layer, ManagedRuntime } from "effect"
import { afterAll, assert, describe, it } from "vitest"
import { defaultCasesFile, defaultSurfacesFile, type GoldenSet, loadGoldenSet, selectCases } from "./Runner/GoldenSet.js"
import { Runner } from "./Runner/Runner.js"
import { SurfaceClient } from "./Runner/SurfaceClient.js"
import { failingFacts, showFact } from "./Scorecard/Attempts.js"
import type { Case } from "./Schema/Case.js"
import type { CaseResult } from "./Schema/Result.js"

/** The default folder of recorded turns. */
export const defaultFixturesDir = "cases/fixtures"

/** A layer that obtains turns; it may use the file system and paths, which the helper provides. */
export type SurfaceClientLayer = Layer.Layer<SurfaceClient, unknown, FileSystem.FileSystem | Path.Path>

/** Which golden set to run and where its turns come from. Paths are relative to the working directory. */
export interface GoldenSetOptions {
  /** The cases file (default `cases/golden-cases.json`). */
  readonly cases?: string
  /** The surface catalog (default `cases/surfaces.json`). */
  readonly surfaces?: string
  /** The recorded turns the default fixture layer reads (default `cases/fixtures`). */
  readonly fixtures?: string
  /**
   * Where turns come from instead of the fixtures, e.g. `SurfaceClient.Live(…)` with `HttpLive`; a
   * function receives the loaded golden set (for its catalog's routes).
   */
  readonly layer?: SurfaceClientLayer | ((set: GoldenSet) => SurfaceClientLayer)
  /** Only the cases whose id or one of whose tags equals one of these (as `eval run --filter`). */
  readonly filter?: ReadonlyArray<string>
  /** Run a surface's cases concurrently (useful on a live layer); vitest's `maxConcurrency` bounds them. */
  readonly concurrent?: boolean
  /** The title of the outer `describe` (default `golden set <cases file>`). */
  readonly name?: string
}

/** A test's title: the case id and what the case guards against. */
export const caseTitle = (testCase: Case): string => `${testCase.id} — ${testCase.guards}`

/** Why a case failed, one failing fact a line (`kind: fact`, or its turn error), as its test's assertion message. */
export const failureMessage = (result: CaseResult): string =>
  [`${result.id} failed:`, ...failingFacts(result).map((f) => `  ${showFact(f)}`)].join("\n")

/** An error's message, or the cause printed whole when it is not a plain failure. */
const explain = (cause: Cause.Cause<unknown>): string => {
  const squashed = Cause.squash(cause)
  return squashed instanceof Error && squashed.message !== "" ? squashed.message : Cause.pretty(cause)
}

/**
 * Registers the golden set as tests: a `describe` per surface holding one test per case, on the
 * recorded fixtures by default. Call it at the top level of a test file.
 */
export const goldenSet = (options: GoldenSetOptions = {}): void => {
  const casesFile = options.cases ?? defaultCasesFile
  const surfacesFile = options.surfaces ?? defaultSurfacesFile
  describe(options.name ?? `golden set ${casesFile}`, async () => {
    const loaded = await Effect.runPromiseExit(
      Effect.flatMap(loadGoldenSet(casesFile, surfacesFile), (set) =>
        Effect.map(selectCases(set, options.filter ?? []), (cases) => ({ set, cases }))).pipe(
          Effect.provide(NodeContext.layer)
        )
    )
    if (Exit.isFailure(loaded)) {
      const reason = explain(loaded.cause)
      it("loads the golden set", () => {
        assert.fail(reason)
      })
      return
    }
    const { cases, set } = loaded.value
    const client = options.layer === undefined
      ? SurfaceClient.Fixture(options.fixtures ?? defaultFixturesDir)
      : typeof options.layer === "function"
      ? options.layer(set)
      : options.layer
    const runtime = ManagedRuntime.make(
      Runner.Default.pipe(Layer.provide(client), Layer.provide(NodeContext.layer))
    )
    afterAll(() => runtime.dispose())

    const runCase = async (testCase: Case): Promise<void> => {
      const exit = await runtime.runPromiseExit(
        Effect.flatMap(Runner, (runner) => runner.run(set.catalog, [testCase], { concurrency: 1 }))
      )
      if (Exit.isFailure(exit)) return assert.fail(`${testCase.id}: ${explain(exit.cause)}`)
      const [result] = exit.value
      if (result === undefined) return assert.fail(`${testCase.id}: the run returned no result`)
      if (!result.passed) assert.fail(failureMessage(result))
    }

    const test = options.concurrent === true ? it.concurrent : it
    for (const surface of [...new Set(cases.map((c) => c.surface))]) {
      describe(surface, () => {
        for (const testCase of cases.filter((c) => c.surface === surface)) {
          test(caseTitle(testCase), () => runCase(testCase))
        }
      })
    }
  })
}
