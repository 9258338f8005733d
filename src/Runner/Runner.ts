/**
 * The run: for each case, obtain its turn through the SurfaceClient, grade it while what the turn
 * opened is still open, then release it. A case whose turn cannot be obtained fails with the reason and
 * the run goes on; results keep golden-set order whatever the completion order. A rejected session,
 * or an app the first asks cannot reach at all, stops the run: no further case starts, and the scopes
 * of those in flight close.
 */
import { Cause, Clock, Deferred, Effect, Exit, Fiber, Option } from "effect"
import { resolveEvidence } from "../Evidence/Rules.js"
import { grade, gradeAll } from "../Graders/index.js"
import { type Case, type ConversationCase, isConversation, type Step, stepKind } from "../Schema/Case.js"
import { type RunStopped, TurnError } from "../Schema/Errors.js"
import { type CaseResult, stepName, type StepResult } from "../Schema/Result.js"
import type { Catalog, Surface } from "../Schema/Surface.js"
import type { Turn } from "../Schema/Trace.js"
import { keptTurn, surfacedItems } from "../Scorecard/Kept.js"
import { SurfaceClient } from "./SurfaceClient.js"

/**
 * How many cases start between two turns of Node's event loop. Recorded turns are read and graded
 * synchronously, so an offline run would otherwise keep to Effect's own queue from its first case to
 * its last, and a signal (Ctrl-C) would wait for the run's end to be heard.
 */
const casesBetweenTurns = 64

/** The identifier fields of each surface's evidence rules, resolved once a surface. */
const identifierFieldsOf = new WeakMap<Surface, ReadonlyArray<string>>()

/** Everything a turn surfaced, by its surface's evidence rules. */
const surfacedOf = (turn: Turn, surface: Surface): ReadonlyArray<string> => {
  let fields = identifierFieldsOf.get(surface)
  if (fields === undefined) {
    fields = resolveEvidence(surface).identifierFields
    identifierFieldsOf.set(surface, fields)
  }
  return surfacedItems(turn.trace, fields)
}

/** How a run goes. */
export interface RunOptions {
  /** Turns in flight at once (default 4). */
  readonly concurrency?: number | undefined
  /** Attempts per case, each a turn (a conversation) of its own; the case passes only if all pass (default 1). */
  readonly repeat?: number | undefined
  /** Called as each case finishes (all its attempts), in completion order. */
  readonly onCaseDone?: ((result: CaseResult) => Effect.Effect<void>) | undefined
  /**
   * Stop starting cases once this many have failed (`--bail N`); cases in flight finish, and the run
   * is partial: `runCases` returns only the cases that finished, and says it bailed.
   */
  readonly bail?: number | undefined
  /** Keep, on each case and attempt, the turn it was graded on, clipped as a results file keeps it. */
  readonly keepTurns?: boolean | undefined
}

/** What a run obtained: each finished case's result in the order given, and whether it stopped early. */
export interface RunOutcome {
  readonly results: ReadonlyArray<CaseResult>
  /** Whether `bail` stopped the run before every case had run. */
  readonly bailed: boolean
  /**
   * The failure each attempt's turn failed with, by case id and attempt (none where it was obtained or
   * failed for another reason): what a caller matches on, where a result keeps only its sentence.
   */
  readonly turnErrors: ReadonlyMap<string, ReadonlyArray<TurnError | undefined>>
}

/**
 * One case's verdict from its attempts: it passes only when every attempt passes (pass^k). With more
 * than one attempt, all are kept, and the case shows its first failing attempt (its first when all pass).
 */
export const combineAttempts = (attempts: ReadonlyArray<CaseResult>, durationMs?: number): CaseResult => {
  const first = attempts[0]!
  const took = durationMs === undefined ? {} : { durationMs }
  if (attempts.length === 1) return { ...first, ...took }
  const shown = attempts.find((a) => !a.passed) ?? first
  return {
    id: first.id,
    surface: first.surface,
    passed: attempts.every((a) => a.passed),
    ...(shown.turnId === undefined ? {} : { turnId: shown.turnId }),
    ...(shown.error === undefined ? {} : { error: shown.error }),
    expectations: shown.expectations,
    attempts: attempts.map((a) => ({
      passed: a.passed,
      ...(a.turnId === undefined ? {} : { turnId: a.turnId }),
      ...(a.error === undefined ? {} : { error: a.error }),
      expectations: a.expectations,
      ...(a.durationMs === undefined ? {} : { durationMs: a.durationMs }),
      ...(a.turn === undefined ? {} : { turn: a.turn }),
      ...(a.turns === undefined ? {} : { turns: a.turns })
    })),
    ...took,
    ...(shown.turn === undefined ? {} : { turn: shown.turn }),
    ...(shown.turns === undefined ? {} : { turns: shown.turns })
  }
}

/** A case's result, and the failure it was not obtained with, if it was a TurnError. */
interface Ran {
  readonly result: CaseResult
  readonly turnError?: TurnError | undefined
}

/** The step of a conversation case, as its result starts: its number, what it does and its text. */
const stepHead = (step: Step, index: number) => {
  const kind = stepKind(step)
  const message = "ask" in step ? step.ask : "deny" in step ? step.deny : undefined
  return { step: index + 1, kind, ...(message === undefined ? {} : { message }) } as const
}

/**
 * A conversation case's result from its steps: it passes when every step was taken and every
 * expectation of every step passes; `error` names the first step that could not be taken.
 */
export const conversationResult = (testCase: ConversationCase, steps: ReadonlyArray<StepResult>): CaseResult => {
  const failed = steps.find((s) => s.error !== undefined)
  const first = steps.find((s) => s.turnId !== undefined)
  return {
    id: testCase.id,
    surface: testCase.surface,
    passed: steps.every((s) =>
      s.error === undefined && s.skipped === undefined && s.expectations.every((e) => e.passed)
    ),
    ...(first?.turnId === undefined ? {} : { turnId: first.turnId }),
    ...(failed === undefined ? {} : { error: `${stepName(failed.step, failed.kind)}: ${failed.error}` }),
    expectations: steps.flatMap((s) => s.expectations),
    turns: steps
  }
}

/** Why a turn cannot be graded for a case, when its trace is of another surface than the case's. */
const otherSurface = (testCase: Case, turn: Turn): string | undefined =>
  turn.trace.surface === testCase.surface
    ? undefined
    : `trace is for surface ${JSON.stringify(turn.trace.surface)}, not ${JSON.stringify(testCase.surface)}`

/** The result of a case whose turn could not be obtained. */
export const erroredCase = (testCase: Case, reason: string): CaseResult => ({
  id: testCase.id,
  surface: testCase.surface,
  passed: false,
  error: reason,
  expectations: []
})

/** Runs cases through a SurfaceClient. */
export class Runner extends Effect.Service<Runner>()("eval/Runner", {
  effect: Effect.gen(function*() {
    const client = yield* SurfaceClient

    const runCase = (
      catalog: Catalog,
      testCase: Case,
      keep: boolean
    ): Effect.Effect<Ran, RunStopped> => {
      const surface = catalog.surfaces[testCase.surface]
      if (surface === undefined) {
        return Effect.succeed({ result: erroredCase(testCase, `unknown surface ${JSON.stringify(testCase.surface)}`) })
      }
      if (isConversation(testCase)) return runConversation(testCase, surface, keep)
      // A trace of another surface is graded as no case: the recording or the app mixed something up.
      const verdict = (turn: Turn): CaseResult => {
        const other = otherSurface(testCase, turn)
        return other === undefined ? grade(testCase, turn, surface) : erroredCase(testCase, other)
      }
      const graded = keep
        ? (turn: Turn): CaseResult => ({ ...verdict(turn), turn: keptTurn(turn, surfacedOf(turn, surface)) })
        : verdict
      return caught(testCase, client.withTurn(testCase, surface, (turn): Ran => ({ result: graded(turn) })))
    }

    /** A case's run, its failures made its result: only a stopped run or an interruption goes on. */
    const caught = (testCase: Case, ran: Effect.Effect<Ran, TurnError | RunStopped>): Effect.Effect<Ran, RunStopped> =>
      ran.pipe(
        Effect.catchAllCause((cause): Effect.Effect<Ran, RunStopped> => {
          const failure = Cause.failureOption(cause)
          if (Option.isSome(failure)) {
            return failure.value._tag === "TurnError"
              ? Effect.succeed({ result: erroredCase(testCase, failure.value.message), turnError: failure.value })
              : Effect.fail(failure.value)
          }
          return Cause.isInterruptedOnly(cause)
            ? Effect.failCause(cause as Cause.Cause<never>)
            : Effect.succeed({ result: erroredCase(testCase, `internal error: ${String(Cause.squash(cause))}`) })
        })
      )

    /**
     * A conversation case: its steps in order, each graded over its own turn while the conversation is
     * open (an approve step with the proposal it approved). A step that cannot be taken — an approve or
     * deny after a turn that left no proposal, a turn that could not be obtained — fails the case, and
     * the steps after it are skipped, with why.
     */
    const runConversation = (
      testCase: ConversationCase,
      surface: Surface,
      keep: boolean
    ): Effect.Effect<Ran, RunStopped> =>
      caught(
        testCase,
        client.withConversation(testCase, surface, (conversing) =>
          Effect.gen(function*() {
            const steps: Array<StepResult> = []
            let previous: Turn | undefined
            let stopped: string | undefined
            let turnError: TurnError | undefined
            for (const [index, step] of testCase.turns.entries()) {
              const head = stepHead(step, index)
              if (stopped !== undefined) {
                steps.push({ ...head, expectations: [], skipped: `${stopped} could not be taken` })
                continue
              }
              const name = stepName(head.step, head.kind)
              if (head.kind !== "ask" && (previous === undefined || previous.trace.proposal === null)) {
                steps.push({
                  ...head,
                  expectations: [],
                  error: previous === undefined
                    ? `nothing to ${head.kind}: it is the conversation's first step`
                    : `nothing to ${head.kind}: turn ${index} ${previous.trace.outcome}`
                })
                stopped = name
                continue
              }
              const from = yield* Clock.currentTimeMillis
              const turn = yield* conversing.take(index).pipe(
                Effect.catchTag("TurnError", (error) => Effect.succeed(error))
              )
              const durationMs = (yield* Clock.currentTimeMillis) - from
              if (turn instanceof TurnError) turnError ??= turn
              // A step whose turn could not be obtained, or is of another surface, is not graded.
              const problem = turn instanceof TurnError ? turn.message : otherSurface(testCase, turn)
              if (problem !== undefined || turn instanceof TurnError) {
                steps.push({ ...head, expectations: [], error: problem!, durationMs })
                stopped = name
                continue
              }
              const context = head.kind === "approve" ? { approved: previous!.trace.proposal! } : undefined
              steps.push({
                ...head,
                turnId: turn.trace.turnId,
                expectations: gradeAll(step.expect, turn, surface, context, head.step),
                durationMs,
                ...(keep ? { turn: keptTurn(turn, surfacedOf(turn, surface)) } : {})
              })
              previous = turn
            }
            return { result: conversationResult(testCase, steps), turnError }
          }))
      )

    /** Runs the cases; with `bail`, only those that finished are returned. */
    const runCases = (
      catalog: Catalog,
      cases: ReadonlyArray<Case>,
      options: RunOptions = {}
    ): Effect.Effect<RunOutcome, RunStopped> =>
      Effect.gen(function*() {
        const repeat = Math.max(1, Math.floor(options.repeat ?? 1))
        // Every attempt is a unit of its own, so the attempts of one case overlap like different
        // cases do; a case is done when its last attempt is.
        const attempts = cases.map(() => new Array<CaseResult>(repeat))
        const remaining = cases.map(() => repeat)
        // When each case's first attempt started and its last one ended, for its wall time.
        const started = cases.map(() => Number.POSITIVE_INFINITY)
        const ended = cases.map(() => 0)
        const results = new Array<CaseResult | undefined>(cases.length)
        const turnErrors = new Map<string, Array<TurnError | undefined>>()
        let failed = 0
        let bailed = false
        const units = cases.flatMap((testCase, index) =>
          Array.from({ length: repeat }, (_, attempt) => ({ testCase, index, attempt }))
        )
        const caseDone = (index: number): Effect.Effect<void> => {
          remaining[index]! -= 1
          if (remaining[index] !== 0) return Effect.void
          const result = combineAttempts(attempts[index]!, Math.max(0, ended[index]! - started[index]!))
          results[index] = result
          // The result holds what it needs of its attempts.
          attempts[index]!.length = 0
          if (!result.passed) failed++
          if (options.bail !== undefined && failed >= options.bail) bailed = true
          return options.onCaseDone === undefined ? Effect.void : options.onCaseDone(result)
        }
        // No case fails inside a worker: a rejected session is signalled here instead, and every
        // worker is interrupted and awaited, so every in-flight case has ended (its conversation handed
        // to deletion) before the run ends. (forEach's own fail-fast path can return while a sibling is
        // still running its finalizers.)
        const rejected = yield* Deferred.make<never, RunStopped>()
        const runUnit = ({ attempt, index, testCase }: (typeof units)[number]): Effect.Effect<void> =>
          Effect.gen(function*() {
            const from = yield* Clock.currentTimeMillis
            const { result, turnError } = yield* runCase(catalog, testCase, options.keepTurns === true)
            if (turnError !== undefined) {
              const errors = turnErrors.get(testCase.id) ?? []
              errors[attempt] = turnError
              turnErrors.set(testCase.id, errors)
            }
            const to = yield* Clock.currentTimeMillis
            started[index] = Math.min(started[index]!, from)
            ended[index] = Math.max(ended[index]!, to)
            attempts[index]![attempt] = { ...result, durationMs: to - from }
            return yield* caseDone(index)
          }).pipe(
            Effect.catchTag("RunStopped", (error) => Effect.zipRight(Deferred.fail(rejected, error), Effect.never))
          )
        // `concurrency` workers, each taking the next unit when it is done with one: `forEach` over the
        // units would keep every unit's exit until the end, memory that grows with the golden set.
        let next = 0
        // Every `casesBetweenTurns` cases, each worker waits for the event loop's next turn (its poll
        // phase, where signals and I/O are heard) before it starts another: all of them, or the others
        // would go on grading while one waits.
        let turn: Promise<void> | undefined
        let turnAt = 0
        const worker: Effect.Effect<void> = Effect.suspend(() => {
          // Once the run has bailed, no further attempt starts: its case is left out of the results.
          if (bailed || next >= units.length) return Effect.void
          if (turn === undefined && next - turnAt >= casesBetweenTurns) {
            turnAt = next
            turn = new Promise<void>((resolve) => setImmediate(resolve)).then(() => (turn = undefined))
          }
          const waiting = turn
          return waiting === undefined
            ? Effect.flatMap(runUnit(units[next++]!), () => worker)
            : Effect.flatMap(Effect.promise(() => waiting), () => worker)
        })
        const workers = Math.max(1, Math.min(options.concurrency ?? 4, units.length))
        const all = Effect.forEach(Array.from({ length: workers }), () => worker, {
          concurrency: "unbounded",
          discard: true
        }).pipe(
          Effect.map((): RunOutcome => {
            const finished = results.filter((r): r is CaseResult => r !== undefined)
            return { results: finished, bailed: bailed && finished.length < cases.length, turnErrors }
          })
        )
        return yield* Effect.uninterruptibleMask((restore) =>
          Effect.flatMap(Effect.fork(Effect.interruptible(all)), (running) =>
            restore(Effect.raceFirst(Fiber.join(running), Deferred.await(rejected))).pipe(
              Effect.onExit((exit) =>
                Exit.isSuccess(exit) ? Effect.void : Fiber.interrupt(running)
              )
            ))
        )
      })

    return {
      /** Runs the cases and returns their results in the order given. */
      run: (
        catalog: Catalog,
        cases: ReadonlyArray<Case>,
        options: Omit<RunOptions, "bail"> = {}
      ): Effect.Effect<ReadonlyArray<CaseResult>, RunStopped> =>
        Effect.map(runCases(catalog, cases, options), (outcome) => outcome.results),
      runCases
    }
  })
}) {}
