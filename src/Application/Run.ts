/**
 * What a run is — `eval run`, and `eval demo`, which is a run against a stand-in — given its plan (its
 * flags checked by the command, Commands/Run.ts): where turns come from (recorded turns, a live app,
 * OpenTelemetry traces); the cases selected (`--filter`, `--shard`); every turn obtained and graded;
 * the results summarised and reported; the floor held (`--check`) and moved (`--ratchet`). A merge of
 * shards ends as a run does, with `concludeRun`.
 */
import { FileSystem, type Path } from "@effect/platform"
import { Console, Duration, Effect, Either, Exit, Layer } from "effect"
import { programName } from "../ProgramName.js"
import type { ReportContext } from "../Reporters/Reporter.js"
import { refuseOverwritingInputs, type ReporterSpec, stdoutIsDocument, writeReports } from "../Reporters/Reports.js"
import { type GoldenSet, loadGoldenSet, selectCases } from "../Runner/GoldenSet.js"
import { openJournal } from "../Runner/Journal.js"
import { Runner } from "../Runner/Runner.js"
import { inShard, type Shard } from "../Runner/Shard.js"
import { SurfaceClient } from "../Runner/SurfaceClient.js"
import { type Auth, isPlainHttp, isUnreached, sessionOf } from "../Runner/Transport.js"
import { type Case, openingQuestion } from "../Schema/Case.js"
import { type CommandError, GateFailed, Refused, type TurnError, UsageError } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import { resolveRoutes } from "../Schema/Protocol.js"
import type { CaseResult, RunResult, ShardInfo } from "../Schema/Result.js"
import { shown } from "../Schema/Shown.js"
import { attemptsOf, obtainedNoTurn } from "../Scorecard/Attempts.js"
import { caseSetFingerprint } from "../Scorecard/CaseSet.js"
import { diffRuns, refuseDifferentSets } from "../Scorecard/Diff.js"
import { readResults } from "../Scorecard/ResultsStore.js"
import { summarize } from "../Scorecard/Scorecard.js"
import { flagUsage, flagWords, withAllowDifferentSets } from "./Flags.js"
import { applyRatchet, floorToHold, type NoFloor, noFloorText, type Part, type Stop, stoppedWords } from "./Floor.js"
import { noteLeftovers, reportLeftBehind } from "./LeftBehind.js"
import { caseProgress } from "./Progress.js"

/** Where turns come from. */
export type Source =
  | { readonly _tag: "Fixtures"; readonly dir: string }
  | {
    readonly _tag: "Live"
    readonly baseUrl: URL
    readonly auth: Auth
    /**
     * Whether each conversation is journalled until deleted, so that what a killed run left can be
     * cleaned up: not for an app that ends with the run (the demo's stand-in), which keeps nothing.
     */
    readonly journal: boolean
  }
  | { readonly _tag: "Otel"; readonly files: ReadonlyArray<string> }

/**
 * What a run does: `eval run`'s flags checked, alone and together, each with its default filled in
 * (`checkRun` in Commands/Run.ts), or a run not started from the command line (the demo's).
 */
export interface RunPlan {
  readonly baseline: string
  readonly source: Source
  readonly reporters: ReadonlyArray<ReporterSpec>
  readonly filter: ReadonlyArray<string>
  readonly shard: Shard | undefined
  readonly repeat: number
  /** Cases in flight at once. */
  readonly concurrency: number
  readonly bail: number | undefined
  /** Seconds one live case may take, retries included. */
  readonly timeout: number
  readonly keep: boolean
  readonly record: string | undefined
  readonly compare: string | undefined
  readonly allowDifferentSets: boolean
  readonly check: boolean
  readonly ratchet: boolean
  readonly silent: boolean
}

/** The longest a delete may take, whatever `--timeout` says: cleanup must not hold a stopping run for long. */
const maxDeleteSeconds = 30

const fail = (message: string) => Effect.fail(new UsageError({ message }))

/** Refuses `--check` and `--ratchet` on a part of the golden set: the floor is the whole set's. */
const refusePart = (part: Part, plan: Pick<RunPlan, "check" | "ratchet">): Effect.Effect<void, UsageError> => {
  if (!plan.check && !plan.ratchet) return Effect.void
  const flag = plan.check ? "--check" : "--ratchet"
  const shard = part._tag === "Shard"
  return fail(
    `${flag} holds the floor of the whole golden set; ${shard ? "a shard" : flagWords.filteredRun} cannot ${
      plan.check ? "be checked against it" : "move it"
    }${shard ? ` (merge the shards: ${programName} merge … --check)` : ""}`
  )
}

/** The SurfaceClient for recorded turns or a live app; a live one uses the catalog's routes. */
const clientFor = (
  source: Exclude<Source, { readonly _tag: "Otel" }>,
  set: GoldenSet,
  plan: Pick<RunPlan, "keep" | "timeout" | "concurrency">
): Layer.Layer<SurfaceClient, never, FileSystem.FileSystem | Path.Path> =>
  source._tag === "Fixtures"
    ? SurfaceClient.Fixture(source.dir)
    : Layer.unwrapScoped(Effect.gen(function*() {
      const routes = resolveRoutes(set.catalog.routes)
      const console = yield* Effect.console
      // Every conversation is journalled until deleted, so that what a killed run left can be cleaned up.
      const journal = plan.keep || !source.journal ? undefined : yield* openJournal({
        baseUrl: source.baseUrl,
        session: sessionOf(source.auth),
        deleteRoute: routes.delete ?? "",
        warn: (text) => console.unsafe.error(`warning: ${inert(text)}`)
      })
      return SurfaceClient.Live({
        baseUrl: source.baseUrl,
        auth: source.auth,
        routes,
        timeout: Duration.seconds(plan.timeout),
        deleteTimeout: Duration.seconds(Math.min(plan.timeout, maxDeleteSeconds)),
        keep: plan.keep,
        // As many cases' deletes under way as cases asking: the conversations open at once stay within
        // twice the concurrency, however slow the app is to delete.
        maxDeleting: plan.concurrency,
        journal
      }).pipe(Layer.provide(Layer.unwrapEffect(
        Effect.promise(() => import("../Runner/Http.js")).pipe(Effect.map((m) => m.HttpLive))
      )))
    }))

/** What a run covers: the cases `--filter` or `--shard` selects, and which part of the golden set that is. */
export interface Selection {
  readonly cases: ReadonlyArray<Case>
  /** The shard, as the results record it. */
  readonly shard: ShardInfo | undefined
  /** The part of the golden set the cases are, when they are not all of it: held to no floor. */
  readonly part: Part | undefined
}

/** Selects the cases of a run: those `--filter` names, or `--shard i/n` of the whole golden set by case id. */
export const selectRun = (
  set: GoldenSet,
  plan: Pick<RunPlan, "filter" | "shard">
): Effect.Effect<Selection, UsageError> =>
  Effect.gen(function*() {
    const { shard } = plan
    if (shard === undefined) {
      const cases = yield* selectCases(set, plan.filter).pipe(
        Effect.mapError((error) => flagUsage("--filter", error.message))
      )
      return {
        cases,
        shard: undefined,
        part: cases.length < set.cases.length
          ? { _tag: "Filtered", cases: cases.length, of: set.cases.length }
          : undefined
      }
    }
    const cases = set.cases.filter((c) => inShard(shard, c.id))
    return {
      cases,
      shard: { index: shard.index, count: shard.count, of: caseSetFingerprint(set.cases) },
      part: { _tag: "Shard", index: shard.index, count: shard.count, cases: cases.length, of: set.cases.length }
    }
  })

/**
 * Results with their case's question, what it guards and its tags, so that a results file read later
 * (a report, a page) shows the case without the golden set. Ids are unique in a golden set.
 */
const withCaseText = (cases: ReadonlyArray<Case>, results: ReadonlyArray<CaseResult>): ReadonlyArray<CaseResult> => {
  const byId = new Map(cases.map((c) => [c.id, c]))
  return results.map((result) => {
    const c = byId.get(result.id)
    if (c === undefined) return result
    const { id, passed, surface, ...rest } = result
    return {
      id,
      surface,
      passed,
      question: openingQuestion(c),
      guards: c.guards,
      ...(c.tags === undefined ? {} : { tags: c.tags }),
      ...rest
    }
  })
}

/**
 * The hint for a failure a run may obtain no turn at all with. A failure that names its request, or a
 * web page's (which names its URL and what it usually means), has said enough already.
 */
const hintFor = (error: TurnError | undefined): string | undefined => {
  if (error === undefined || error.request !== undefined) return undefined
  switch (error.reason) {
    case "unreachable":
      return isPlainHttp(error.code)
        ? "the app speaks http, not https?"
        : isUnreached(error.code)
        ? "is the dev server running, and the URL right?"
        : undefined
    case "no-recording":
      return "is --fixtures the folder of the recorded turns?"
    case "status":
      return error.status === 404 ? "are the routes right (\"routes\" in the catalog)?" : undefined
    default:
      return undefined
  }
}

/**
 * Why a run measured nothing — no case obtained its turn — naming the most common reason, or
 * `undefined` when some case was graded. `turnErrors` holds the failures behind the results' errors.
 */
const measuredNothing = (
  results: ReadonlyArray<CaseResult>,
  turnErrors: ReadonlyMap<string, ReadonlyArray<TurnError | undefined>>
): string | undefined => {
  if (!obtainedNoTurn(results)) return undefined
  const errors = results.flatMap((c) =>
    attemptsOf(c).map((a, attempt) => ({ id: c.id, error: a.error!, failure: turnErrors.get(c.id)?.[attempt] }))
  )
  // Reasons are grouped as they would read without the case's own id or the request it made.
  const groups = new Map<string, { readonly example: (typeof errors)[number]; count: number }>()
  for (const example of errors) {
    const kind = (example.failure?.sentence ?? example.error).split(example.id).join("…")
    const group = groups.get(kind)
    if (group === undefined) groups.set(kind, { example, count: 1 })
    else group.count++
  }
  const { count, example } = [...groups.values()].sort((a, b) => b.count - a.count)[0]!
  const hint = hintFor(example.failure)
  return `no case obtained its turn, so the run measured nothing and no floor is held: ${inert(shown(example.error))}${
    hint === undefined ? "" : ` — ${hint}`
  } (${count} of ${errors.length} ${errors.length === 1 ? "turn" : "turns"})`
}

/** Where notes for people go: standard error when standard output carries a document a program reads. */
export const sayFor = (reporters: ReadonlyArray<ReporterSpec>) => (text: string): Effect.Effect<void> =>
  stdoutIsDocument(reporters) ? Console.error(text) : Console.log(text)

/** How a run ends, once it is summarised. */
export interface RunEnd<R = never> {
  readonly set: GoldenSet
  readonly plan: Pick<RunPlan, "baseline" | "reporters" | "check" | "ratchet">
  readonly result: RunResult
  readonly context: ReportContext
  /** Told once the reports are written (what a live run left in the app). */
  readonly afterReports?: Effect.Effect<void, never, R> | undefined
  /** Why the run measured nothing (no case obtained its turn), when it did. */
  readonly measuredNothing?: string | undefined
  /** How the run stopped early (`--bail`), when it did. */
  readonly stop?: Stop | undefined
}

/**
 * The end of every run, whole or merged: its reports; then a run that measured nothing is refused,
 * the floor moves (`--ratchet`) on a full run only, and is held (`--check`) — a run that stopped early
 * fails it.
 */
export const concludeRun = <R = never>(end: RunEnd<R>): Effect.Effect<void, CommandError, FileSystem.FileSystem | R> =>
  Effect.gen(function*() {
    const { plan, result } = end
    yield* writeReports(result, plan.reporters, end.context)
    if (end.afterReports !== undefined) yield* end.afterReports
    if (end.measuredNothing !== undefined) {
      return yield* new Refused({ reason: "not-a-measurement", message: end.measuredNothing })
    }
    if (plan.ratchet && end.stop !== undefined) {
      return yield* new Refused({
        reason: "ratchet",
        message: `--ratchet: the run ${stoppedWords(end.stop)}: the floor moves only on a full run`
      })
    }
    if (plan.ratchet) yield* applyRatchet(end.set, plan.baseline, result, sayFor(plan.reporters))
    if (plan.check && (end.stop !== undefined || result.passed === false)) {
      return yield* new GateFailed({ reason: "below-floor" })
    }
  })

/**
 * Grades the selected cases of `set` through `client`, reports the results, then holds the floor. A
 * comparison or a floor that will be refused is refused before any turn is obtained.
 */
export const gradeRun = (
  plan: RunPlan,
  set: GoldenSet,
  client: Layer.Layer<SurfaceClient, never, FileSystem.FileSystem | Path.Path>
): Effect.Effect<void, CommandError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const { cases, part, shard } = yield* selectRun(set, plan)
    if (part !== undefined) yield* refusePart(part, plan)
    const compareFile = plan.compare
    yield* refuseOverwritingInputs(plan.reporters, [
      [set.casesFile, "the golden set"],
      [set.surfacesFile, "the catalog"],
      [plan.baseline, "the baseline"],
      ...(compareFile === undefined ? [] : [[compareFile, "the results compared with"] as const])
    ])
    const caseSet = caseSetFingerprint(cases)
    const older = compareFile === undefined ? undefined : yield* readResults(compareFile)
    if (older !== undefined) {
      yield* refuseDifferentSets(older.caseSet, caseSet, {
        allowDifferentSets: plan.allowDifferentSets,
        names: [compareFile!, "this run"]
      }).pipe(Either.mapLeft(withAllowDifferentSets))
    }
    const held = yield* floorToHold({ ...plan, cases: set.casesFile }, plan.repeat, part)
    // The hints at the end name `eval cleanup` only for conversations the journal holds.
    const say = sayFor(plan.reporters)
    // Told first, not only in the verdict: a run of another set is not held to the floor it may expect.
    if (held.floor === null && held.noFloor._tag === "OtherSet") yield* say(noFloorText(held.noFloor))
    const leftBehind = reportLeftBehind(
      say,
      plan.source._tag === "Live" && plan.source.journal ? plan.source.baseUrl : undefined
    )
    const runner = yield* Runner
    const progress = yield* caseProgress(cases, plan.silent)
    const { bailed, results: graded, turnErrors } = yield* runner.runCases(set.catalog, cases, {
      concurrency: plan.concurrency,
      repeat: plan.repeat,
      keepTurns: true,
      onCaseDone: progress.onCaseDone,
      bail: plan.bail
    }).pipe(
      Effect.ensuring(progress.clear),
      Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : leftBehind)
    )
    const results = withCaseText(cases, graded)
    // A run in which no case obtained its turn measured nothing: its pass rate is no verdict.
    const nothing = measuredNothing(results, turnErrors)
    // A run that stopped early covers the cases that finished, and is held to no floor.
    const stop = bailed ? { bail: plan.bail!, notRun: cases.length - results.length, of: cases.length } : undefined
    const noFloor: NoFloor | undefined = nothing !== undefined
      ? { _tag: "NotMeasured" }
      : stop !== undefined
      ? { _tag: "Stopped", stop }
      : held.floor === null
      ? held.noFloor
      : undefined
    const finished = new Set(results.map((r) => r.id))
    const durationMs = yield* progress.elapsedMs
    const result = summarize(
      results,
      bailed ? caseSetFingerprint(cases.filter((c) => finished.has(c.id))) : caseSet,
      noFloor === undefined ? held.floor : null,
      {
        repeat: plan.repeat,
        shard,
        ...(bailed ? { bailed: true } : {}),
        durationMs
      }
    )
    const diff = older === undefined
      ? undefined
      : { diff: yield* diffRuns(older, result, { allowDifferentSets: true }), against: compareFile! }
    yield* concludeRun({
      set,
      plan,
      result,
      context: {
        casesFile: set.casesFile,
        noFloor: noFloor === undefined ? undefined : noFloorText(noFloor),
        durationMs,
        diff,
        ...(held.history.length === 0 ? {} : { history: held.history })
      },
      afterReports: leftBehind,
      measuredNothing: nothing,
      stop
    })
  }).pipe(
    Effect.provide(
      Runner.Default.pipe(
        Layer.provideMerge(plan.record === undefined ? client : SurfaceClient.recording(plan.record, client))
      )
    )
  )

/** The golden set a run grades: loaded already, or read from its cases file and catalog. */
export type GoldenSetFrom =
  | { readonly set: GoldenSet }
  | { readonly cases: string; readonly surfaces: string }

/**
 * A run: conversations earlier runs left in a live app told of; the golden set
 * read; turns obtained from the source, graded, reported; the floor held and moved.
 */
export const runGoldenSet = (
  plan: RunPlan,
  golden: GoldenSetFrom
): Effect.Effect<void, CommandError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const { source } = plan
    if (source._tag === "Live" && source.journal) yield* noteLeftovers(source.baseUrl, source.auth)
    if (plan.record !== undefined) {
      const dir = plan.record
      const fs = yield* FileSystem.FileSystem
      yield* fs.makeDirectory(dir, { recursive: true }).pipe(
        Effect.mapError(() => new UsageError({ message: `--record ${dir}: cannot create that folder` }))
      )
    }
    const set = "set" in golden ? golden.set : yield* loadGoldenSet(golden.cases, golden.surfaces)
    const client = source._tag === "Otel"
      ? yield* Effect.flatMap(
        Effect.promise(() => import("../Runner/OtelClient.js")),
        (m) => m.otelSource(source.files, set)
      )
      : clientFor(source, set, plan)
    return yield* gradeRun(plan, set, client)
  })
