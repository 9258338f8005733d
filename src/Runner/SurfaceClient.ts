/**
 * The service that obtains a case's turn. Layers choose where turns come from: recorded-turn files
 * (`Fixture`), a table in tests (`fromTable`), a live app over HTTP (`Live`), or OpenTelemetry traces
 * (`OtelClient.ts`). Whatever a turn opened (a conversation) stays open while the turn is graded and is
 * released right after.
 */
import { FileSystem, type HttpClient, Path } from "@effect/platform"
import { Console, Context, Effect, Either, Layer, type Scope } from "effect"
import { inProject, readTextSync, writeAtomically } from "../Files.js"
import { type Case, type ConversationCase, type QuestionCase, type Step, stepAction, stepKind } from "../Schema/Case.js"
import { decodeJson } from "../Schema/Decode.js"
import { cannotTakeStep, type RunStopped, TurnError } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import { stepName } from "../Schema/Result.js"
import type { Surface } from "../Schema/Surface.js"
import {
  fastRecording,
  type RecordedConversation,
  type RecordedStep,
  type RecordedTurn,
  Recording,
  type Turn
} from "../Schema/Trace.js"
import { plural } from "../Words.js"
import { type LeftBehind, type LiveConfig, makeLive } from "./LiveClient.js"

/** The turns of a conversation case, obtained one step at a time. */
export interface Conversing {
  /**
   * Takes the case's step `index` (from 0; each once, in order) in the conversation so far and gives its
   * turn. The runner takes an approve or deny step only after a turn that left a proposal.
   */
  readonly take: (index: number) => Effect.Effect<Turn, TurnError | RunStopped>
}

/** What a SurfaceClient can do. */
export interface SurfaceClientShape {
  /**
   * Obtains the turn for a case's question and runs `use` on it while whatever the turn opened (a
   * conversation) is still open; that is released before the effect ends, however it ends. A turn
   * that cannot be obtained fails its case; a rejected session stops the run.
   */
  readonly withTurn: <A>(
    testCase: QuestionCase,
    surface: Surface,
    use: (turn: Turn) => A
  ) => Effect.Effect<A, TurnError | RunStopped>
  /**
   * Runs `use` over the steps of a conversation case, while the conversation is open; it is released
   * once, after the last step `use` takes, however `use` ends.
   */
  readonly withConversation: <A>(
    testCase: ConversationCase,
    surface: Surface,
    use: (conversing: Conversing) => Effect.Effect<A, RunStopped>
  ) => Effect.Effect<A, TurnError | RunStopped>
  /** The conversations left in the app's account so far (live clients only). */
  readonly leftBehind?: Effect.Effect<LeftBehind>
}

/** The turns of a conversation whose steps are all at hand (recordings, a table), each by its index. */
export type StepsOf = (
  testCase: ConversationCase,
  surface: Surface
) => Effect.Effect<(index: number) => Effect.Effect<Turn, TurnError>, TurnError | RunStopped>

/** A client's conversations, when it has none to offer: each fails its case with why. */
const noConversations = (why: string): StepsOf => () => Effect.fail(cannotTakeStep(why))

/** The steps of a source that takes no conversation cases. */
const noSteps = noConversations("this source of turns takes no conversation cases")

/** A conversation case's steps from `steps`, with nothing to release. */
const plainConversation = (steps: StepsOf): SurfaceClientShape["withConversation"] => (testCase, surface, use) =>
  Effect.flatMap(steps(testCase, surface), (turnAt) => use({ take: turnAt }))

/** A client whose turns hold a resource: `obtain` acquires it in the scope, released once the turn is used. */
export const scopedClient = (
  obtain: (testCase: QuestionCase, surface: Surface) => Effect.Effect<Turn, TurnError | RunStopped, Scope.Scope>,
  steps: StepsOf = noSteps
): SurfaceClientShape => ({
  withTurn: (testCase, surface, use) => Effect.scoped(Effect.map(obtain(testCase, surface), use)),
  withConversation: plainConversation(steps)
})

/**
 * A client whose turns hold nothing (recordings, a table): no scope is opened and closed per case,
 * which is most of what grading a recorded turn would otherwise cost.
 */
export const plainClient = (
  load: (testCase: QuestionCase, surface: Surface) => Effect.Effect<Turn, TurnError | RunStopped>,
  steps: StepsOf = noSteps
): SurfaceClientShape => ({
  withTurn: (testCase, surface, use) => Effect.map(load(testCase, surface), use),
  withConversation: plainConversation(steps)
})

/** The path of a case's recorded turn in a fixtures folder. */
export const fixturePath = (path: Path.Path, dir: string, caseId: string): string => path.join(dir, `${caseId}.json`)

/**
 * A case's recorded turn, read and checked in one synchronous step. A recording is a few kilobytes:
 * one read costs less than an asynchronous read's round trip through the thread pool, and this is
 * what offline grading spends its time in. A recording that is not a regular file, or is over the
 * size limit, fails its case without being read.
 */
const readRecording = (
  file: string,
  caseId: string
): Either.Either<RecordedTurn | RecordedConversation, TurnError> => {
  const read = readTextSync(file)
  if (Either.isLeft(read)) {
    return Either.left(
      read.left._tag === "Absent"
        ? new TurnError({ reason: "no-recording", file })
        : new TurnError({ reason: "recording", file, detail: `cannot read: ${read.left.why}` })
    )
  }
  return Either.flatMap(
    Either.mapLeft(
      decodeJson(Recording, file, read.right, "lenient", fastRecording),
      (error) => new TurnError({ reason: "recording", file, detail: error.summary })
    ),
    (recorded) =>
      recorded.caseId !== caseId
        ? Either.left(new TurnError({ reason: "recording-mismatch", file, caseId: recorded.caseId }))
        : Either.right(recorded)
  )
}

const loadRecording = (file: string, testCase: QuestionCase): Either.Either<Turn, TurnError> =>
  Either.flatMap(readRecording(file, testCase.id), (recorded) =>
    "turns" in recorded
      ? Either.left(
        new TurnError({ reason: "recording", file, detail: "it records a conversation; the case asks one question" })
      )
      : recorded.question !== testCase.question
      ? Either.left(new TurnError({ reason: "recording-mismatch", file }))
      : Either.right({ answer: recorded.answer, trace: recorded.trace }))

/** Whether a recording's step did what the case's step does: the same text asked, the same decision. */
const sameStep = (recorded: RecordedStep, step: Step): boolean => {
  const action: { readonly ask?: string; readonly approve?: true; readonly deny?: string } = stepAction(step)
  return recorded.ask === action.ask && recorded.approve === action.approve && recorded.deny === action.deny
}

/**
 * A conversation case's recorded turns: each step's turn is the recording's turn at that index, which
 * must record the same step (the same question asked, the same decision) for the replay to stand for it.
 */
const loadConversation = (
  file: string,
  testCase: ConversationCase
): Either.Either<(index: number) => Effect.Effect<Turn, TurnError>, TurnError> =>
  Either.flatMap(readRecording(file, testCase.id), (recorded) =>
    !("turns" in recorded)
      ? Either.left(
        new TurnError({ reason: "recording", file, detail: "it records one question; the case is a conversation" })
      )
      : Either.right((index: number) => {
        const step = testCase.turns[index]!
        const turn = recorded.turns[index]
        if (turn === undefined) {
          return Effect.fail(
            new TurnError({
              reason: "recording",
              file,
              detail: `it holds ${plural(recorded.turns.length, "turn")}, none for ${
                stepName(index + 1, stepKind(step))
              }: record it again`
            })
          )
        }
        return sameStep(turn, step)
          ? Effect.succeed({ answer: turn.answer, trace: turn.trace })
          : Effect.fail(
            new TurnError({
              reason: "recording",
              file,
              detail: `its turn ${index + 1} records another step than the case's ${
                stepName(index + 1, stepKind(step))
              }: record it again`
            })
          )
      }))

/** A recorded turn as its file holds it, or why it cannot be written (a value nested too deep for JSON.stringify). */
export const encodeRecording = (recorded: RecordedTurn | RecordedConversation): Either.Either<string, string> =>
  Either.try({
    try: () => `${JSON.stringify(recorded, null, 2)}\n`,
    // JSON.stringify recurses: a value nested deep enough overflows the stack.
    catch: (error) =>
      error instanceof RangeError && /call stack/i.test(error.message)
        ? "its turn is nested too deep to write as JSON"
        : `its turn cannot be written as JSON: ${error instanceof Error ? error.message : String(error)}`
  })

/**
 * Serves recorded turns from `dir`, one `<case id>.json` per case; a folder inside the project is named
 * relative to it, so that a failure (and a page that shows it) names no path of the machine.
 */
export const makeFixture = (given: string): Effect.Effect<SurfaceClientShape, never, Path.Path> =>
  Effect.map(
    Path.Path,
    (path) => {
      const dir = path.isAbsolute(given) ? inProject(given) ?? given : given
      return plainClient(
        (testCase) => Effect.suspend(() => loadRecording(fixturePath(path, dir, testCase.id), testCase)),
        (testCase) => Effect.suspend(() => loadConversation(fixturePath(path, dir, testCase.id), testCase))
      )
    }
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
          withConversation: live.withConversation,
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
        const record = (testCase: Case, recorded: RecordedTurn | RecordedConversation): Effect.Effect<void> => {
          const file = fixturePath(path, dir, testCase.id)
          const text = encodeRecording(recorded)
          if (Either.isLeft(text)) return skip(testCase, text.left)
          return writeAtomically(file, text.right).pipe(
            Effect.catchAll((error) => skip(testCase, error.message)),
            Effect.provideService(FileSystem.FileSystem, fs)
          )
        }
        return {
          ...client,
          withTurn: <A>(testCase: QuestionCase, surface: Surface, use: (turn: Turn) => A) =>
            client.withTurn(testCase, surface, (turn) => [turn, use(turn)] as const).pipe(
              Effect.flatMap(([turn, used]) =>
                Effect.as(record(testCase, { caseId: testCase.id, question: testCase.question, ...turn }), used)
              )
            ),
          // The steps taken are recorded in order, after the conversation ends; as a question whose turn
          // could not be obtained, a conversation with a step whose turn could not be is not recorded.
          withConversation: <A>(
            testCase: ConversationCase,
            surface: Surface,
            use: (conversing: Conversing) => Effect.Effect<A, RunStopped>
          ) => {
            const taken: Array<RecordedStep> = []
            let failed = false
            return client.withConversation(testCase, surface, (conversing) =>
              use({
                take: (index) =>
                  conversing.take(index).pipe(
                    Effect.tap((turn) =>
                      Effect.sync(() => (taken[index] = { ...stepAction(testCase.turns[index]!), ...turn }))
                    ),
                    Effect.tapError(() => Effect.sync(() => (failed = true)))
                  )
              })).pipe(
                Effect.tap(() =>
                  failed || taken.length === 0 ? Effect.void : record(testCase, { caseId: testCase.id, turns: taken })
                )
              )
          }
        }
      })
    ).pipe(Layer.provide(inner))

  /** Turns from an in-memory table by case id; a case missing from it fails with a reason. For tests and embedding. */
  static readonly fromTable = (turns: ReadonlyMap<string, Turn | ReadonlyArray<Turn>>): Layer.Layer<SurfaceClient> =>
    Layer.succeed(
      SurfaceClient,
      plainClient((testCase) => {
        const turn = turns.get(testCase.id)
        return turn === undefined || Array.isArray(turn)
          ? Effect.fail(new TurnError({ reason: "no-turn", caseId: testCase.id }))
          : Effect.succeed(turn as Turn)
      }, (testCase) => {
        const listed = turns.get(testCase.id)
        const steps: ReadonlyArray<Turn> | undefined = listed === undefined
          ? undefined
          : Array.isArray(listed)
          ? listed
          : [listed as Turn]
        return steps === undefined
          ? Effect.fail(new TurnError({ reason: "no-turn", caseId: testCase.id }))
          : Effect.succeed((index: number) => {
            const turn = steps[index]
            return turn === undefined
              ? Effect.fail(
                cannotTakeStep(
                  `no turn for ${stepName(index + 1, stepKind(testCase.turns[index]!))} of case ${testCase.id}`
                )
              )
              : Effect.succeed(turn)
          })
      })
    )
}
