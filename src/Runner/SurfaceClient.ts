/**
 * The service that obtains a case's turn. Layers choose where turns come from: recorded-turn files
 * (`Fixture`), a table in tests (`fromTable`), a live app over HTTP (`Live`), or OpenTelemetry traces
 * (`OtelClient.ts`). Whatever a turn opened (a conversation) stays open while the turn is graded and is
 * released right after.
 */
import { FileSystem, type HttpClient, Path } from "@effect/platform"
import { Console, Context, Effect, Either, Layer, type Scope } from "effect"
import { readTextSync, writeAtomically } from "../Files.js"
import type { Case } from "../Schema/Case.js"
import { decodeJson } from "../Schema/Decode.js"
import { type RunStopped, TurnError } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import type { Surface } from "../Schema/Surface.js"
import { fastRecordedTurn, RecordedTurn, type Turn } from "../Schema/Trace.js"
import { type LeftBehind, type LiveConfig, makeLive } from "./LiveClient.js"

/** What a SurfaceClient can do. */
export interface SurfaceClientShape {
  /**
   * Obtains the turn for a case's question and runs `use` on it while whatever the turn opened (a
   * conversation) is still open; that is released before the effect ends, however it ends. A turn
   * that cannot be obtained fails its case; a rejected session stops the run.
   */
  readonly withTurn: <A>(
    testCase: Case,
    surface: Surface,
    use: (turn: Turn) => A
  ) => Effect.Effect<A, TurnError | RunStopped>
  /** The conversations left in the app's account so far (live clients only). */
  readonly leftBehind?: Effect.Effect<LeftBehind>
}

/** A client whose turns hold a resource: `obtain` acquires it in the scope, released once the turn is used. */
export const scopedClient = (
  obtain: (testCase: Case, surface: Surface) => Effect.Effect<Turn, TurnError | RunStopped, Scope.Scope>
): SurfaceClientShape => ({
  withTurn: (testCase, surface, use) => Effect.scoped(Effect.map(obtain(testCase, surface), use))
})

/**
 * A client whose turns hold nothing (recordings, a table): no scope is opened and closed per case,
 * which is most of what grading a recorded turn would otherwise cost.
 */
export const plainClient = (
  load: (testCase: Case, surface: Surface) => Effect.Effect<Turn, TurnError | RunStopped>
): SurfaceClientShape => ({
  withTurn: (testCase, surface, use) => Effect.map(load(testCase, surface), use)
})

/** The path of a case's recorded turn in a fixtures folder. */
export const fixturePath = (path: Path.Path, dir: string, caseId: string): string => path.join(dir, `${caseId}.json`)

/**
 * A case's recorded turn, read and checked in one synchronous step. A recording is a few kilobytes:
 * one read costs less than an asynchronous read's round trip through the thread pool, and this is
 * what offline grading spends its time in. A recording that is not a regular file, or is over the
 * size limit, fails its case without being read.
 */
const loadRecording = (file: string, testCase: Case): Either.Either<Turn, TurnError> => {
  const read = readTextSync(file)
  if (Either.isLeft(read)) {
    return Either.left(
      read.left._tag === "Absent"
        ? new TurnError({ reason: "no-recording", file })
        : new TurnError({ reason: "recording", file, detail: `cannot read: ${read.left.why}` })
    )
  }
  const text = read.right
  return Either.flatMap(
    Either.mapLeft(
      decodeJson(RecordedTurn, file, text, "lenient", fastRecordedTurn),
      (error) => new TurnError({ reason: "recording", file, detail: error.summary })
    ),
    (recorded) =>
      recorded.caseId !== testCase.id
        ? Either.left(
          new TurnError({ reason: "recording-mismatch", file, caseId: recorded.caseId })
        )
        : recorded.question !== testCase.question
        ? Either.left(
          new TurnError({ reason: "recording-mismatch", file })
        )
        : Either.right({ answer: recorded.answer, trace: recorded.trace })
  )
}

/** A recorded turn as its file holds it, or why it cannot be written (a value nested too deep for JSON.stringify). */
export const encodeRecording = (recorded: RecordedTurn): Either.Either<string, string> =>
  Either.try({
    try: () => `${JSON.stringify(recorded, null, 2)}\n`,
    // JSON.stringify recurses: a value nested deep enough overflows the stack.
    catch: (error) =>
      error instanceof RangeError && /call stack/i.test(error.message)
        ? "its turn is nested too deep to write as JSON"
        : `its turn cannot be written as JSON: ${error instanceof Error ? error.message : String(error)}`
  })

/** Serves recorded turns from `dir`, one `<case id>.json` per case. */
export const makeFixture = (dir: string): Effect.Effect<SurfaceClientShape, never, Path.Path> =>
  Effect.map(
    Path.Path,
    (path) =>
      plainClient((testCase) => Effect.suspend(() => loadRecording(fixturePath(path, dir, testCase.id), testCase)))
  )

/** Obtains a case's turn, from wherever the layer says. */
export class SurfaceClient extends Context.Tag("eval/SurfaceClient")<SurfaceClient, SurfaceClientShape>() {
  /** Recorded turns from a fixtures folder. */
  static readonly Fixture = (dir: string): Layer.Layer<SurfaceClient, never, Path.Path> =>
    Layer.effect(SurfaceClient, makeFixture(dir))

  /**
   * Turns from a live app over HTTP, as a signed-in user; needs an `HttpClient`. Conversations are
   * deleted in the background; the layer, as it closes, waits for every delete under way.
   */
  static readonly Live = (config: LiveConfig): Layer.Layer<SurfaceClient, never, HttpClient.HttpClient> =>
    Layer.scoped(
      SurfaceClient,
      Effect.flatMap(makeLive(config), (live) =>
        Effect.as(Effect.addFinalizer(() => live.settled), {
          withTurn: live.withTurn,
          leftBehind: live.leftBehind
        }))
    )

  /**
   * Wraps another client so each turn it obtains is also written to `dir` as a recorded turn, to be
   * replayed offline with `Fixture(dir)`. Recording never changes a verdict: a turn that cannot be
   * written (nested too deep for JSON, a full disk) is graded as usual, and its recording is skipped
   * with a warning on stderr naming the case.
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
        const skip = (testCase: Case, why: string) =>
          Console.error(`warning: case ${inert(testCase.id)} was graded but not recorded: ${inert(why)}`)
        const record = (testCase: Case, turn: Turn): Effect.Effect<void> => {
          const file = fixturePath(path, dir, testCase.id)
          const recorded: RecordedTurn = { caseId: testCase.id, question: testCase.question, ...turn }
          const text = encodeRecording(recorded)
          if (Either.isLeft(text)) return skip(testCase, text.left)
          return writeAtomically(file, text.right).pipe(
            Effect.catchAll((error) => skip(testCase, error.message)),
            Effect.provideService(FileSystem.FileSystem, fs)
          )
        }
        return {
          ...client,
          withTurn: <A>(testCase: Case, surface: Surface, use: (turn: Turn) => A) =>
            client.withTurn(testCase, surface, (turn) => [turn, use(turn)] as const).pipe(
              Effect.flatMap(([turn, used]) => Effect.as(record(testCase, turn), used))
            )
        }
      })
    ).pipe(Layer.provide(inner))

  /** Turns from an in-memory table by case id; a case missing from it fails with a reason. For tests and embedding. */
  static readonly fromTable = (turns: ReadonlyMap<string, Turn>): Layer.Layer<SurfaceClient> =>
    Layer.succeed(
      SurfaceClient,
      plainClient((testCase) => {
        const turn = turns.get(testCase.id)
        return turn === undefined
          ? Effect.fail(new TurnError({ reason: "no-turn", caseId: testCase.id }))
          : Effect.succeed(turn)
      })
    )
}
