/**
 * The golden set inside a team's own vitest suite (`turn-eval/vitest`): one `describe` per surface,
 * one test per case, named by its id and what it guards, and a "holds the floor" test. The suite is red
 * exactly when `eval run --check` would exit 1: a failing case the committed floor tolerates is an
 * expected failure (`it.fails`, annotated with its facts); below the floor, the floor test and every
 * failing case fail, each with its facts (`cites-only-surfaced: unsurfaced: /docs/x`) or its turn error.
 * `strict` fails every failing case instead, and a `filter`ed set is held to no floor, as on the CLI.
 * Turns come from the recorded fixtures unless another SurfaceClient layer is given (the live one, a table).
 *
 * The golden set is read, and held to the floor run whole, while vitest collects the file; a file that
 * cannot be used becomes one failing test that names the file, the JSON path and what was expected, so
 * the reason is never hidden.
 */
import type { FileSystem, Path } from "@effect/platform"
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Cause, Effect, Exit, Layer, ManagedRuntime, Option } from "effect"
import { afterAll, assert, describe, it, type TestContext } from "vitest"
import { committedFloor, otherSet, otherSetWords } from "./Application/Floor.js"
import { defaultBaselineFile, defaultCasesFile, defaultSurfacesFile } from "./ProjectFiles.js"
import { type GoldenSet, loadGoldenSet, selectCases } from "./Runner/GoldenSet.js"
import { Runner } from "./Runner/Runner.js"
import { SurfaceClient } from "./Runner/SurfaceClient.js"
import type { Case } from "./Schema/Case.js"
import type { CaseResult } from "./Schema/Result.js"
import { failingFacts, showFact } from "./Scorecard/Attempts.js"
import { readBaseline } from "./Scorecard/BaselineStore.js"
import { caseSetFingerprint } from "./Scorecard/CaseSet.js"
import { noFloorYet, showRate, summarize } from "./Scorecard/Scorecard.js"

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
  /** The committed floor the whole set is held to, as `eval run --check` holds it (default `baseline.json`). */
  readonly baseline?: string
  /** Fail the test of every failing case, whatever the floor tolerates; no floor test. */
  readonly strict?: boolean
}

/** The default baseline the helper holds the golden set to. */
export { defaultBaselineFile } from "./ProjectFiles.js"

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

/** A test, named for the step that could not be done, that fails with why. */
const failsWith = (step: string, cause: Cause.Cause<unknown>): void => {
  const reason = explain(cause)
  it(step, () => {
    assert.fail(reason)
  })
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
      Effect.flatMap(
        loadGoldenSet(casesFile, surfacesFile),
        (set) => Effect.map(selectCases(set, options.filter ?? []), (cases) => ({ set, cases }))
      ).pipe(
        Effect.provide(NodeContext.layer)
      )
    )
    if (Exit.isFailure(loaded)) return failsWith("loads the golden set", loaded.cause)
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

    const test = options.concurrent === true ? it.concurrent : it
    const bySurface = (register: (testCase: Case, index: number) => void) => {
      for (const surface of [...new Set(cases.map((c) => c.surface))]) {
        describe(surface, () => {
          cases.forEach((testCase, index) => {
            if (testCase.surface === surface) register(testCase, index)
          })
        })
      }
    }

    // Strict, or a filtered part of the set (which the CLI holds to no floor): each case on its own.
    if (options.strict === true || (options.filter ?? []).length > 0) {
      const runCase = async (testCase: Case): Promise<void> => {
        const exit = await runtime.runPromiseExit(
          Effect.flatMap(Runner, (runner) => runner.run(set.catalog, [testCase], { concurrency: 1 }))
        )
        if (Exit.isFailure(exit)) return assert.fail(`${testCase.id}: ${explain(exit.cause)}`)
        const [result] = exit.value
        if (result === undefined) return assert.fail(`${testCase.id}: the run returned no result`)
        if (!result.passed) assert.fail(failureMessage(result))
      }
      bySurface((testCase) => test(caseTitle(testCase), () => runCase(testCase)))
      return
    }

    // The floor needs every verdict, so the whole set runs now and each test reports its part.
    const baselineFile = options.baseline ?? defaultBaselineFile
    const outcome = await runtime.runPromiseExit(
      Effect.all({
        baseline: Effect.gen(function*() {
          const read = yield* readBaseline(baselineFile)
          // A floor of another golden set is not this set's, as `run --check` refuses it.
          const other = Option.isSome(read) ? yield* otherSet(baselineFile, read.value, casesFile) : undefined
          return { read, other }
        }).pipe(Effect.provide(NodeContext.layer)),
        results: Effect.flatMap(
          Runner,
          (runner) => runner.run(set.catalog, cases, { concurrency: options.concurrent === true ? 4 : 1 })
        )
      })
    )
    if (Exit.isFailure(outcome)) return failsWith("runs the golden set", outcome.cause)
    const { baseline: { other, read: baseline }, results } = outcome.value
    // The floor `run --check` holds a whole run of one attempt per case to, or why there is none.
    const committed = committedFloor(baseline, baselineFile, 1)
    const floor = other === undefined ? committed.floor : null
    const problem = other !== undefined
      ? `${otherSetWords(other)}: give the helper's \`baseline\` the file of ${other.casesFile}'s own floor`
      : committed.floor !== null
      ? undefined
      : committed.why._tag === "NoBaseline"
      ? `${baselineFile}: ${noFloorYet}`
      : `${baselineFile}: the floor was set with --repeat ${committed.why.set}; the helper asks each case once (compare like with like)`
    const run = summarize(results, caseSetFingerprint(cases), floor)
    const verdict = `${run.passedCount}/${run.total} passed · pass rate ${showRate(run.passRate)}${
      floor === null ? "" : ` · floor ${showRate(floor)}`
    }`
    const holds = run.passed === true

    bySurface((testCase, index) => {
      const result = results[index]!
      if (result.passed) return it(caseTitle(testCase), () => assert.isTrue(result.passed))
      if (!holds) return it(caseTitle(testCase), () => assert.fail(failureMessage(result)))
      // A failure the floor tolerates: expected, and annotated so its facts still show.
      it.fails(caseTitle(testCase), async (context: TestContext) => {
        if (typeof context.annotate === "function") {
          await context.annotate(`fails, tolerated by the floor: ${failureMessage(result)}`, "notice")
        }
        assert.fail(failureMessage(result))
      })
    })
    it("holds the floor", () => {
      if (problem !== undefined) return assert.fail(problem)
      if (!holds) assert.fail(`${verdict} · below the floor`)
    })
  })
}
