/**
 * `eval run`: obtain every selected case's turn — from recorded turns, a live app or OpenTelemetry
 * traces — grade it, print the scorecard, write the results, hold and ratchet the floor. The command
 * checks its flags into a plan, all before anything is read; what a run is lives in the application
 * (`Application/Run.ts`), which runs the plan.
 */
import { FileSystem } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { flagUsage } from "../Application/Flags.js"
import { type GoldenSetFrom, runGoldenSet, type RunPlan, type Source } from "../Application/Run.js"
import { parseBaseUrl, sessionAuth } from "../Application/Session.js"
import { parseReporters } from "../Reporters/Reports.js"
import { parseShard } from "../Runner/Shard.js"
import { UsageError } from "../Schema/Errors.js"
import type { RunArgs } from "./Options.js"

const fail = (message: string) => Effect.fail(new UsageError({ message }))

/**
 * What a run is asked to do: `eval run`'s arguments (their types are the flags' own), of which a run
 * not started from the command line (the demo's) gives only what differs from run's defaults. Where
 * turns come from is `source` when given (the demo's stand-in), else what `--fixtures`, `--base-url`
 * with `--cookie`, or `--otel` say.
 */
export type RunRequest =
  & Partial<Omit<RunArgs, "cases" | "surfaces">>
  & Pick<RunArgs, "baseline" | "timeout">
  & { readonly source?: Source }

/** The most attempts per case: enough to measure any flakiness worth gating on, without flooding the app. */
const maxRepeat = 100

/** Cases in flight at once against a live app when `--concurrency` is not given. */
const defaultLiveConcurrency = 4

/**
 * Checks a run's flags, alone and together, before anything is read or run, and fills in their
 * defaults: the numbers in range, one source of turns (a live app's URL and session checked), the
 * reporters, and the shard. What needs the golden set or the baseline (a filter that matches nothing,
 * `--check` of a part of the set, a floor set at another K) is checked where they are read, still
 * before any turn is obtained.
 */
export const checkRun = (request: RunRequest): Effect.Effect<RunPlan, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const concurrency = Option.getOrUndefined(request.concurrency ?? Option.none())
    const bail = Option.getOrUndefined(request.bail ?? Option.none())
    const repeat = request.repeat ?? 1
    const record = Option.getOrUndefined(request.record ?? Option.none())
    const check = request.check ?? false
    const ratchet = request.ratchet ?? false
    const filter = request.filter ?? []
    const shardFlag = Option.getOrUndefined(request.shard ?? Option.none())
    if (concurrency !== undefined && concurrency < 1) return yield* fail("--concurrency must be at least 1")
    if (!(request.timeout > 0)) return yield* fail("--timeout must be more than 0 seconds")
    if (bail !== undefined && bail < 1) return yield* fail("--bail must be at least 1")
    if (repeat < 1 || repeat > maxRepeat) return yield* fail(`--repeat must be from 1 to ${maxRepeat}`)
    if (repeat > 1 && record !== undefined) {
      return yield* fail("--record keeps one turn per case, and --repeat obtains several: record with a run of its own")
    }
    const source = request.source ?? (yield* sourceOf(request))
    const reporters = yield* parseReporters(request.reporter ?? [], request.json ?? Option.none())
    if (shardFlag !== undefined && filter.length > 0) {
      return yield* fail("--shard splits the whole golden set; it cannot be combined with --filter")
    }
    const shard = shardFlag === undefined
      ? undefined
      : yield* Either.mapLeft(parseShard(shardFlag), (problem) => flagUsage("--shard", problem))
    return {
      baseline: request.baseline,
      source,
      reporters,
      filter,
      shard,
      repeat,
      // 4 against a live app, whose latency they overlap; 1 for recorded turns, which are read without
      // waiting, so more would only add scheduling.
      concurrency: concurrency ?? (source._tag === "Live" ? defaultLiveConcurrency : 1),
      bail,
      timeout: request.timeout,
      keep: request.keep ?? false,
      record,
      compare: Option.getOrUndefined(request.compare ?? Option.none()),
      allowDifferentSets: request.allowDifferentSets ?? false,
      check,
      ratchet,
      silent: request.silent ?? false
    }
  })

/** Decides where turns come from: exactly one of `--fixtures`, `--base-url` and `--otel`. */
const sourceOf = (
  flags: Pick<Partial<RunArgs>, "fixtures" | "baseUrl" | "otel" | "cookie">
): Effect.Effect<Source, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const otel = flags.otel ?? []
    const fixtures = Option.getOrUndefined(flags.fixtures ?? Option.none())
    const baseUrl = Option.getOrUndefined(flags.baseUrl ?? Option.none())
    if (otel.length > 0 && (fixtures !== undefined || baseUrl !== undefined)) {
      return yield* fail("--otel cannot be used with --fixtures or --base-url: pick one source of turns")
    }
    if (otel.length > 0) return { _tag: "Otel", files: otel } as const
    if (fixtures !== undefined && baseUrl !== undefined) {
      return yield* fail("--fixtures and --base-url cannot be used together: pick one source of turns")
    }
    if (baseUrl !== undefined) {
      const url = yield* parseBaseUrl(baseUrl)
      return {
        _tag: "Live",
        baseUrl: url,
        auth: yield* sessionAuth(flags.cookie ?? Option.none()),
        journal: true
      } as const
    }
    if (fixtures === undefined) {
      return yield* fail(
        "say where turns come from: --fixtures DIR (recorded turns), --base-url URL (a live app) or --otel FILE (OpenTelemetry traces)"
      )
    }
    const fs = yield* FileSystem.FileSystem
    const info = yield* Effect.option(fs.stat(fixtures))
    if (Option.isNone(info) || info.value.type !== "Directory") {
      return yield* fail(`--fixtures ${fixtures}: no such folder`)
    }
    return { _tag: "Fixtures", dir: fixtures } as const
  })

/** `eval run`: its flags checked into a plan, then the plan run over the golden set the request names. */
export const runHandler = (request: RunRequest & GoldenSetFrom) =>
  Effect.flatMap(checkRun(request), (plan) => runGoldenSet(plan, request))
