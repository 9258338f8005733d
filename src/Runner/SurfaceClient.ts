/**
 * The service that obtains a case's turn. Layers choose where turns come from: recorded-turn files
 * (`Fixture`), a table in tests (`fromTable`), or a live app over HTTP. Obtaining is scoped: whatever a
 * turn opened (a conversation) is released when the case's scope closes.
 */
import { FileSystem, type HttpClient, Path } from "@effect/platform"
import { Context, Effect, Either, Layer, type Scope } from "effect"
import { describeFileError, writeAtomically } from "../Files.js"
import type { Case } from "../Schema/Case.js"
import { decodeJson } from "../Schema/Decode.js"
import { type SessionRejected, TurnError } from "../Schema/Errors.js"
import type { Surface } from "../Schema/Surface.js"
import { RecordedTurn, type Turn } from "../Schema/Trace.js"
import { type LeftBehind, type LiveConfig, makeLive } from "./LiveClient.js"

/** What a SurfaceClient can do. */
export interface SurfaceClientShape {
  /**
   * Obtains the turn for a case's question; resources it opens live as long as the scope. A turn that
   * cannot be obtained fails its case; a rejected session stops the run.
   */
  readonly obtain: (testCase: Case, surface: Surface) => Effect.Effect<Turn, TurnError | SessionRejected, Scope.Scope>
  /** The conversations left in the app's account so far (live clients only). */
  readonly leftBehind?: Effect.Effect<LeftBehind>
}

/** The path of a case's recorded turn in a fixtures folder. */
export const fixturePath = (path: Path.Path, dir: string, caseId: string): string => path.join(dir, `${caseId}.json`)

const firstProblem = (error: { readonly problems: ReadonlyArray<{ path: string; message: string }> }): string => {
  const [first] = error.problems
  const rest = error.problems.length - 1
  const where = first === undefined ? "" : first.path === "" ? first.message : `${first.path}: ${first.message}`
  return rest > 0 ? `${where} (and ${rest} more)` : where
}

/** Serves recorded turns from `dir`, one `<case id>.json` per case. */
export const makeFixture = (dir: string): Effect.Effect<SurfaceClientShape, never, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    return {
      obtain: (testCase) => {
        const file = fixturePath(path, dir, testCase.id)
        return fs.readFileString(file).pipe(
          Effect.mapError((error) =>
            new TurnError({
              reason: error._tag === "SystemError" && error.reason === "NotFound"
                ? `no recorded turn: ${file}`
                : `recorded turn ${file}: cannot read: ${describeFileError(error)}`
            })
          ),
          Effect.flatMap((text) =>
            Either.match(decodeJson(RecordedTurn, file, text, "lenient"), {
              onLeft: (error) => Effect.fail(new TurnError({ reason: `recorded turn ${file}: ${firstProblem(error)}` })),
              onRight: (recorded) => {
                if (recorded.caseId !== testCase.id) {
                  return Effect.fail(
                    new TurnError({ reason: `recorded turn ${file} is for case ${JSON.stringify(recorded.caseId)}` })
                  )
                }
                if (recorded.question !== testCase.question) {
                  return Effect.fail(
                    new TurnError({
                      reason: `recorded turn ${file} answers another question; record it again for the case's question`
                    })
                  )
                }
                return Effect.succeed<Turn>({ answer: recorded.answer, trace: recorded.trace })
              }
            })
          )
        )
      }
    }
  })

/** Obtains a case's turn, from wherever the layer says. */
export class SurfaceClient extends Context.Tag("eval/SurfaceClient")<SurfaceClient, SurfaceClientShape>() {
  /** Recorded turns from a fixtures folder. */
  static readonly Fixture = (dir: string): Layer.Layer<SurfaceClient, never, FileSystem.FileSystem | Path.Path> =>
    Layer.effect(SurfaceClient, makeFixture(dir))

  /** Turns from a live app over HTTP, as a signed-in user; needs an `HttpClient`. */
  static readonly Live = (config: LiveConfig): Layer.Layer<SurfaceClient, never, HttpClient.HttpClient> =>
    Layer.effect(
      SurfaceClient,
      Effect.map(makeLive(config), (live) => ({
        obtain: (testCase: Case, surface: Surface) => live.obtain(testCase, surface.endpoint),
        leftBehind: live.leftBehind
      }))
    )

  /**
   * Wraps another client so each turn it obtains is also written to `dir` as a recorded turn, to be
   * replayed offline with `Fixture(dir)`. A turn that cannot be written fails its case.
   */
  static readonly recording = <E, R>(
    dir: string,
    inner: Layer.Layer<SurfaceClient, E, R>
  ): Layer.Layer<SurfaceClient, E, R | FileSystem.FileSystem | Path.Path> =>
    Layer.effect(
      SurfaceClient,
      Effect.gen(function*() {
        const client = yield* SurfaceClient
        const fs = yield* FileSystem.FileSystem
        const path = yield* Path.Path
        const record = (testCase: Case, turn: Turn) => {
          const file = fixturePath(path, dir, testCase.id)
          const recorded: RecordedTurn = { caseId: testCase.id, question: testCase.question, ...turn }
          return writeAtomically(file, `${JSON.stringify(recorded, null, 2)}\n`).pipe(
            Effect.mapError((error) => new TurnError({ reason: `record: ${error.message}` })),
            Effect.provideService(FileSystem.FileSystem, fs)
          )
        }
        return {
          ...client,
          obtain: (testCase: Case, surface: Surface) =>
            Effect.tap(client.obtain(testCase, surface), (turn) => record(testCase, turn))
        }
      })
    ).pipe(Layer.provide(inner))

  /** Turns from an in-memory table by case id; a case missing from it fails with a reason. For tests and embedding. */
  static readonly fromTable = (turns: ReadonlyMap<string, Turn>): Layer.Layer<SurfaceClient> =>
    Layer.succeed(SurfaceClient, {
      obtain: (testCase) => {
        const turn = turns.get(testCase.id)
        return turn === undefined
          ? Effect.fail(new TurnError({ reason: `no turn for case ${testCase.id}` }))
          : Effect.succeed(turn)
      }
    })
}
