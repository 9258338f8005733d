/**
 * `eval run`: obtain every selected case's turn — from recorded turns or from a live app — grade it,
 * print the scorecard, write the results, hold and ratchet the floor.
 */
import { FileSystem, type Path } from "@effect/platform"
import { Config, Console, Duration, Effect, Exit, Layer, Option, Redacted } from "effect"
import { writeAtomically } from "../Files.js"
import { type GoldenSet, loadGoldenSet, selectCases } from "../Runner/GoldenSet.js"
import { Runner } from "../Runner/Runner.js"
import { SurfaceClient } from "../Runner/SurfaceClient.js"
import { inert } from "../Schema/Decode.js"
import { BelowFloor, UsageError } from "../Schema/Errors.js"
import { resolveRoutes } from "../Schema/Protocol.js"
import { readBaseline } from "../Scorecard/BaselineStore.js"
import { caseSetFingerprint } from "../Scorecard/CaseSet.js"
import { renderPretty } from "../Scorecard/Render/Pretty.js"
import { noFloorYet, summarize } from "../Scorecard/Scorecard.js"
import { useColor } from "../Terminal.js"
import { applyRatchet } from "./Ratchet.js"

/** The arguments of `eval run`. */
export interface RunArgs {
  readonly cases: string
  readonly surfaces: string
  readonly baseline: string
  readonly fixtures: Option.Option<string>
  readonly baseUrl: Option.Option<string>
  /** OpenTelemetry trace files (or folders of them) to grade the turns of. */
  readonly otel?: ReadonlyArray<string>
  readonly cookie: Option.Option<Redacted.Redacted<string>>
  readonly keep: boolean
  readonly timeout: number
  readonly record: Option.Option<string>
  readonly json: Option.Option<string>
  readonly check: boolean
  readonly ratchet: boolean
  readonly filter: ReadonlyArray<string>
  readonly concurrency: Option.Option<number>
}

/** Where turns come from. */
export type Source =
  | { readonly _tag: "Fixtures"; readonly dir: string }
  | { readonly _tag: "Live"; readonly baseUrl: URL; readonly cookie: Redacted.Redacted<string> }
  | { readonly _tag: "Otel"; readonly files: ReadonlyArray<string> }

/** The longest a delete may take, whatever `--timeout` says: cleanup must not hold a stopping run for long. */
const maxDeleteSeconds = 30

/** A base URL the live client can use: http(s), and no credentials in it. */
export const parseBaseUrl = (text: string): Effect.Effect<URL, UsageError> =>
  Effect.try({
    try: () => new URL(text),
    catch: () => new UsageError({ message: `--base-url ${text}: expected an http(s) URL such as http://127.0.0.1:5173` })
  }).pipe(
    Effect.filterOrFail(
      (url) => url.protocol === "http:" || url.protocol === "https:",
      () => new UsageError({ message: `--base-url ${text}: expected an http(s) URL such as http://127.0.0.1:5173` })
    ),
    Effect.filterOrFail(
      (url) => url.username === "" && url.password === "",
      (url) =>
        new UsageError({
          message: `--base-url ${url.protocol}//${url.host}${url.pathname}: expected an http(s) URL without credentials; the session goes in EVAL_COOKIE`
        })
    )
  )

/** The session cookie from `--cookie` or `EVAL_COOKIE`, checked for shape without ever being shown. */
const sessionCookie = (flag: Option.Option<Redacted.Redacted<string>>) =>
  Effect.gen(function*() {
    const fromEnv = yield* Config.option(Config.redacted("EVAL_COOKIE")).pipe(Effect.orElseSucceed(() => Option.none()))
    const present = (c: Redacted.Redacted<string>) => Redacted.value(c) !== ""
    const cookie = Option.orElse(Option.filter(flag, present), () => Option.filter(fromEnv, present))
    if (Option.isNone(cookie)) {
      return yield* new UsageError({
        message: "a live run needs the session cookie: set EVAL_COOKIE='name=value' (or pass --cookie)"
      })
    }
    if (!/^[^=\s;]+=[^\r\n]*$/.test(Redacted.value(cookie.value))) {
      return yield* new UsageError({ message: "the session cookie must look like name=value, on one line" })
    }
    return cookie.value
  })

/** Decides where turns come from: exactly one of `--fixtures`, `--base-url` and `--otel`. */
export const sourceOf = (args: RunArgs): Effect.Effect<Source, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const otel = args.otel ?? []
    if (otel.length > 0 && (Option.isSome(args.fixtures) || Option.isSome(args.baseUrl))) {
      return yield* new UsageError({ message: "--otel cannot be used with --fixtures or --base-url: pick one source of turns" })
    }
    if (otel.length > 0) return { _tag: "Otel", files: otel } as const
    if (Option.isSome(args.fixtures) && Option.isSome(args.baseUrl)) {
      return yield* new UsageError({ message: "--fixtures and --base-url cannot be used together: pick one source of turns" })
    }
    if (Option.isSome(args.baseUrl)) {
      const baseUrl = yield* parseBaseUrl(args.baseUrl.value)
      return { _tag: "Live", baseUrl, cookie: yield* sessionCookie(args.cookie) } as const
    }
    if (Option.isNone(args.fixtures)) {
      return yield* new UsageError({
        message:
          "say where turns come from: --fixtures DIR (recorded turns), --base-url URL (a live app) or --otel FILE (OpenTelemetry traces)"
      })
    }
    const dir = args.fixtures.value
    const fs = yield* FileSystem.FileSystem
    const info = yield* Effect.option(fs.stat(dir))
    if (Option.isNone(info) || info.value.type !== "Directory") {
      return yield* new UsageError({ message: `--fixtures ${dir}: no such folder` })
    }
    return { _tag: "Fixtures", dir } as const
  })

/** The SurfaceClient for a source; live runs use the catalog's routes. */
export const clientFor = (
  source: Exclude<Source, { readonly _tag: "Otel" }>,
  set: GoldenSet,
  args: Pick<RunArgs, "keep" | "timeout">
): Layer.Layer<SurfaceClient, never, FileSystem.FileSystem | Path.Path> =>
  source._tag === "Fixtures"
    ? SurfaceClient.Fixture(source.dir)
    : SurfaceClient.Live({
      baseUrl: source.baseUrl,
      cookie: source.cookie,
      routes: resolveRoutes(set.catalog.routes),
      timeout: Duration.seconds(args.timeout),
      deleteTimeout: Duration.seconds(Math.min(args.timeout, maxDeleteSeconds)),
      keep: args.keep
    }).pipe(Layer.provide(Layer.unwrapEffect(Effect.promise(() => import("../Runner/Http.js")).pipe(Effect.map((m) => m.HttpLive)))))

/**
 * Cases in flight at once: 4 against a live app, whose latency they overlap; 1 for recorded turns,
 * which are read without waiting, so more would only add scheduling.
 */
const concurrencyOf = (args: RunArgs): number =>
  Option.getOrElse(args.concurrency, () => Option.isSome(args.baseUrl) ? 4 : 1)

/** Says which conversations a live run left in the account: kept on request, or not deleted. */
const reportLeftBehind = Effect.gen(function*() {
  const client = yield* SurfaceClient
  if (client.leftBehind === undefined) return
  const { kept, undeleted } = yield* client.leftBehind
  const width = Math.max(0, ...[...kept, ...undeleted].map((c) => c.conversationId.length))
  if (kept.length > 0) {
    yield* Console.log(
      [
        `\nkept ${kept.length} conversation${kept.length === 1 ? "" : "s"} for the turn inspector:`,
        ...kept.map((c) => `  ${inert(c.conversationId).padEnd(width)}  ${c.caseId}`)
      ].join("\n")
    )
  }
  if (undeleted.length > 0) {
    yield* Console.error(
      [
        `${undeleted.length} conversation${undeleted.length === 1 ? "" : "s"} could not be deleted; delete ${
          undeleted.length === 1 ? "it" : "them"
        } by hand:`,
        ...undeleted.map((c) => `  ${inert(c.conversationId).padEnd(width)}  ${c.caseId}: ${inert(c.reason ?? "")}`)
      ].join("\n")
    )
  }
})

/** Grades the selected cases of `set` through `client`, prints the scorecard, then holds the floor. */
export const gradeRun = (
  args: RunArgs,
  set: GoldenSet,
  client: Layer.Layer<SurfaceClient, never, FileSystem.FileSystem | Path.Path>
) =>
  Effect.gen(function*() {
    const cases = yield* selectCases(set, args.filter)
    const partial = cases.length < set.cases.length
    if (partial && args.check) {
      return yield* new UsageError({
        message: "--check holds the floor of the whole golden set; a --filter'ed run cannot be checked against it"
      })
    }
    const baseline = yield* readBaseline(args.baseline)
    if (args.check && Option.isNone(baseline)) {
      return yield* new UsageError({ message: `${args.baseline}: ${noFloorYet}` })
    }
    const runner = yield* Runner
    const results = yield* runner.run(set.catalog, cases, { concurrency: concurrencyOf(args) }).pipe(
      Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : reportLeftBehind)
    )
    const floor = partial ? null : Option.match(baseline, { onNone: () => null, onSome: (b) => b.floor })
    const result = summarize(results, caseSetFingerprint(cases), floor)
    const noFloor = partial
      ? `the floor is not applied to a --filter'ed run (${cases.length} of ${set.cases.length} cases)`
      : noFloorYet
    yield* Console.log(renderPretty(result, { color: useColor(), noFloor }))
    yield* reportLeftBehind
    if (Option.isSome(args.json)) {
      yield* writeAtomically(args.json.value, `${JSON.stringify(result, null, 2)}\n`)
    }
    if (args.ratchet) yield* applyRatchet(set, args.baseline, result)
    if (args.check && result.passed === false) return yield* new BelowFloor()
  }).pipe(
    Effect.provide(
      Runner.Default.pipe(
        Layer.provideMerge(
          Option.match(args.record, { onNone: () => client, onSome: (dir) => SurfaceClient.recording(dir, client) })
        )
      )
    )
  )

/** `eval run`. */
export const runHandler = (args: RunArgs) =>
  Effect.gen(function*() {
    if (Option.getOrElse(args.concurrency, () => 1) < 1) {
      return yield* new UsageError({ message: "--concurrency must be at least 1" })
    }
    if (!(args.timeout > 0)) return yield* new UsageError({ message: "--timeout must be more than 0 seconds" })
    const source = yield* sourceOf(args)
    if (Option.isSome(args.record)) {
      const dir = args.record.value
      const fs = yield* FileSystem.FileSystem
      yield* fs.makeDirectory(dir, { recursive: true }).pipe(
        Effect.mapError(() => new UsageError({ message: `--record ${dir}: cannot create that folder` }))
      )
    }
    const set = yield* loadGoldenSet(args.cases, args.surfaces)
    const client = source._tag === "Otel"
      ? yield* Effect.flatMap(Effect.promise(() => import("../Otel/Source.js")), (m) => m.otelSource(source.files, set))
      : clientFor(source, set, args)
    return yield* gradeRun(args, set, client)
  })
