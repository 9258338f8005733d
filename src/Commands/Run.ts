/**
 * `eval run`: obtain every selected case's turn — from recorded turns or from a live app — grade it,
 * print the scorecard, write the results, hold and ratchet the floor.
 */
import { FileSystem, type Path } from "@effect/platform"
import { Config, Console, Duration, Effect, Either, Exit, Layer, Option, Redacted } from "effect"
import { noFloorYet, programName } from "../ProgramName.js"
import { type GoldenSet, loadGoldenSet, selectCases } from "../Runner/GoldenSet.js"
import { Runner } from "../Runner/Runner.js"
import { openJournal, readJournal } from "../Runner/Journal.js"
import { inShard, parseShard } from "../Runner/Shard.js"
import { SurfaceClient } from "../Runner/SurfaceClient.js"
import type { Case } from "../Schema/Case.js"
import { inert } from "../Schema/Inert.js"
import { BadInput, GateFailed, Refused, UsageError } from "../Schema/Errors.js"
import { idProblem, resolveRoutes } from "../Schema/Protocol.js"
import { type Auth, cookieAuth, sessionOf } from "../Runner/Transport.js"
import { shown } from "../Schema/Shown.js"
import type { CaseResult, ShardInfo } from "../Schema/Result.js"
import type { FloorChange } from "../Schema/Baseline.js"
import { readBaseline } from "../Scorecard/BaselineStore.js"
import { caseSetFingerprint } from "../Scorecard/CaseSet.js"
import { diffRuns, refuseDifferentSets } from "../Scorecard/Diff.js"
import { caseLine, showCaseDuration, surfaceWidth } from "../Scorecard/Render/Pretty.js"
import { renderProgress } from "../Scorecard/Render/Progress.js"
import { floorHistory } from "../Scorecard/Ratchet.js"
import { readResults } from "../Scorecard/ResultsStore.js"
import { attemptsOf, obtainedNoTurn } from "../Scorecard/Attempts.js"
import { repeatOf, summarize } from "../Scorecard/Scorecard.js"
import { useColor } from "../Terminal.js"
import { flagUsage, withAllowDifferentSets } from "./Hints.js"
import { applyRatchet } from "./Ratchet.js"
import { parseReporters, refuseOverwritingInputs, stdoutIsDocument, writeReports } from "./Report.js"

/** The arguments of `eval run`. */
export interface RunArgs {
  readonly cases: string
  readonly surfaces: string
  readonly baseline: string
  readonly fixtures: Option.Option<string>
  readonly baseUrl: Option.Option<string>
  /** OpenTelemetry trace files (or folders of them) to grade the turns of. */
  readonly otel: ReadonlyArray<string>
  readonly cookie: Option.Option<Redacted.Redacted<string>>
  readonly keep: boolean
  readonly timeout: number
  readonly record: Option.Option<string>
  readonly json: Option.Option<string>
  readonly check: boolean
  readonly ratchet: boolean
  readonly filter: ReadonlyArray<string>
  readonly concurrency: Option.Option<number>
  readonly repeat: number
  readonly shard: Option.Option<string>
  readonly reporter: ReadonlyArray<string>
  readonly compare: Option.Option<string>
  readonly allowDifferentSets: boolean
  /** Stop starting cases after this many failed cases. */
  readonly bail: Option.Option<number>
  /** Show no per-case lines or progress while the run goes. */
  readonly silent: boolean
}

/** Where turns come from. */
export type Source =
  | { readonly _tag: "Fixtures"; readonly dir: string }
  | { readonly _tag: "Live"; readonly baseUrl: URL; readonly auth: Auth }
  | { readonly _tag: "Otel"; readonly files: ReadonlyArray<string> }

/** The most attempts per case: enough to measure any flakiness worth gating on, without flooding the app. */
const maxRepeat = 100

/** Cases in flight at once against a live app when `--concurrency` is not given. */
const defaultLiveConcurrency = 4

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

/**
 * The session cookie from `--cookie` or `EVAL_COOKIE`, checked for shape without ever being shown. A
 * cookie holding a control character, DEL or a character beyond U+00FF cannot go in a header: it is
 * refused here, naming where it came from, rather than failing every case on the way out.
 */
export const sessionCookie = (flag: Option.Option<Redacted.Redacted<string>>) =>
  Effect.gen(function*() {
    const fromEnv = yield* Config.option(Config.redacted("EVAL_COOKIE")).pipe(Effect.orElseSucceed(() => Option.none()))
    const present = (c: Redacted.Redacted<string>) => Redacted.value(c) !== ""
    const fromFlag = Option.filter(flag, present)
    const cookie = Option.orElse(fromFlag, () => Option.filter(fromEnv, present))
    if (Option.isNone(cookie)) {
      return yield* new UsageError({
        message: "a live run needs the session: set EVAL_COOKIE='name=value' (or pass --cookie), or EVAL_AUTH_HEADER='Authorization: Bearer …'"
      })
    }
    if (!/^[^=\s;]+=[^\r\n]*$/.test(Redacted.value(cookie.value))) {
      return yield* new UsageError({ message: "the session cookie must look like name=value, on one line" })
    }
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u001f\u007f]|[^\u0000-\u00ff]/.test(Redacted.value(cookie.value))) {
      return yield* new UsageError({
        message: `${
          Option.isSome(fromFlag) ? "--cookie" : "EVAL_COOKIE"
        }: the session cookie may hold no control character and no character beyond U+00FF`
      })
    }
    return cookie.value
  })

/** Header names a session header may not take: the transport sets them, or they would reframe the request. */
const reservedHeaders = new Set([
  "accept",
  "connection",
  "content-length",
  "content-type",
  "expect",
  "host",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade"
])

/**
 * The session header from `EVAL_AUTH_HEADER` (`Authorization: Bearer …`, `x-api-key: …`), checked for
 * shape without ever being shown, or `undefined` when it is not set.
 */
const sessionHeader = Effect.gen(function*() {
  const fromEnv = yield* Config.option(Config.redacted("EVAL_AUTH_HEADER")).pipe(Effect.orElseSucceed(() => Option.none()))
  if (Option.isNone(fromEnv) || Redacted.value(fromEnv.value).trim() === "") return undefined
  const text = Redacted.value(fromEnv.value)
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/s.exec(text)
  if (match === null || match[2] === "") {
    return yield* new UsageError({
      message: "EVAL_AUTH_HEADER: expected one header as 'Name: value', such as 'Authorization: Bearer …' or 'x-api-key: …'"
    })
  }
  const header = match[1]!.toLowerCase()
  if (reservedHeaders.has(header)) {
    return yield* new UsageError({ message: `EVAL_AUTH_HEADER: the ${header} header is the transport's; name the header that carries the session` })
  }
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f]|[^\u0000-\u00ff]/.test(match[2]!)) {
    return yield* new UsageError({
      message: "EVAL_AUTH_HEADER: the header's value may hold no control character and no character beyond U+00FF"
    })
  }
  return { header, value: Redacted.make(match[2]!) } satisfies Auth
})

/**
 * The run's session: the cookie from `--cookie` or `EVAL_COOKIE`, or the header from `EVAL_AUTH_HEADER`
 * — one of them, never both, so that which one signs in is never a guess.
 */
export const sessionAuth = (flag: Option.Option<Redacted.Redacted<string>>) =>
  Effect.gen(function*() {
    const header = yield* sessionHeader
    const envCookie = yield* Config.option(Config.redacted("EVAL_COOKIE")).pipe(Effect.orElseSucceed(() => Option.none()))
    const hasCookie = Option.exists(flag, (c) => Redacted.value(c) !== "") ||
      Option.exists(envCookie, (c) => Redacted.value(c) !== "")
    if (header === undefined) return cookieAuth(yield* sessionCookie(flag))
    if (hasCookie) {
      return yield* new UsageError({
        message: `both a session cookie (${Option.isSome(flag) ? "--cookie" : "EVAL_COOKIE"}) and EVAL_AUTH_HEADER are set: keep the one that signs in to this app`
      })
    }
    return header
  })

/** Decides where turns come from: exactly one of `--fixtures`, `--base-url` and `--otel`. */
export const sourceOf = (args: RunArgs): Effect.Effect<Source, UsageError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    if (args.otel.length > 0 && (Option.isSome(args.fixtures) || Option.isSome(args.baseUrl))) {
      return yield* new UsageError({ message: "--otel cannot be used with --fixtures or --base-url: pick one source of turns" })
    }
    if (args.otel.length > 0) return { _tag: "Otel", files: args.otel } as const
    if (Option.isSome(args.fixtures) && Option.isSome(args.baseUrl)) {
      return yield* new UsageError({ message: "--fixtures and --base-url cannot be used together: pick one source of turns" })
    }
    if (Option.isSome(args.baseUrl)) {
      const baseUrl = yield* parseBaseUrl(args.baseUrl.value)
      return { _tag: "Live", baseUrl, auth: yield* sessionAuth(args.cookie) } as const
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

/**
 * The SurfaceClient for a source; live runs use the catalog's routes and journal their conversations
 * (unless `journal` is false: an app that ends with the run, like the demo's stand-in, keeps nothing).
 */
export const clientFor = (
  source: Exclude<Source, { readonly _tag: "Otel" }>,
  set: GoldenSet,
  args: Pick<RunArgs, "keep" | "timeout"> & Partial<Pick<RunArgs, "concurrency">>,
  options: { readonly journal: boolean } = { journal: true }
): Layer.Layer<SurfaceClient, never, FileSystem.FileSystem | Path.Path> =>
  source._tag === "Fixtures"
    ? SurfaceClient.Fixture(source.dir)
    : Layer.unwrapScoped(Effect.gen(function*() {
      const routes = resolveRoutes(set.catalog.routes)
      // Every conversation is journalled until deleted, so that what a killed run left can be cleaned up.
      const journal = args.keep || !options.journal ? undefined : yield* openJournal({
        baseUrl: source.baseUrl,
        session: sessionOf(source.auth),
        deleteRoute: routes.delete ?? "",
        warn: (text) => process.stderr.write(`warning: ${inert(text)}\n`)
      })
      return SurfaceClient.Live({
        baseUrl: source.baseUrl,
        auth: source.auth,
        routes,
        timeout: Duration.seconds(args.timeout),
        deleteTimeout: Duration.seconds(Math.min(args.timeout, maxDeleteSeconds)),
        keep: args.keep,
        // As many cases' deletes under way as cases asking: the conversations open at once stay within
        // twice the concurrency, however slow the app is to delete.
        maxDeleting: Option.getOrElse(args.concurrency ?? Option.none(), () => defaultLiveConcurrency),
        ...(journal === undefined ? {} : { journal })
      }).pipe(Layer.provide(Layer.unwrapEffect(Effect.promise(() => import("../Runner/Http.js")).pipe(Effect.map((m) => m.HttpLive)))))
    }))

/**
 * Cases in flight at once: 4 against a live app, whose latency they overlap; 1 for recorded turns,
 * which are read without waiting, so more would only add scheduling.
 */
const concurrencyOf = (args: RunArgs): number =>
  Option.getOrElse(args.concurrency, () => Option.isSome(args.baseUrl) ? defaultLiveConcurrency : 1)

/** The `eval cleanup` command line for a base URL. */
export const cleanupCommand = (baseUrl: URL): string => `${programName} cleanup --base-url ${inert(baseUrl.href)}`

/**
 * Says which conversations a live run left in the account: kept on request, not deleted (with why;
 * those with a usable id stay in the journal for `eval cleanup`), and the cases whose ask may have
 * opened one it never named.
 */
const reportLeftBehind = (say: (text: string) => Effect.Effect<void>, baseUrl: URL | undefined) =>
  Effect.gen(function*() {
    const client = yield* SurfaceClient
    if (client.leftBehind === undefined) return
    const { kept, undeleted, unknown } = yield* client.leftBehind
    const clipped = (id: string): string => inert(shown(id))
    const width = Math.min(64, Math.max(0, ...[...kept, ...undeleted].map((c) => clipped(c.conversationId).length)))
    const padded = (id: string): string => clipped(id).padEnd(width)
    const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`
    if (kept.length > 0) {
      yield* say(
        [
          `\nkept ${plural(kept.length, "conversation")} for the turn inspector:`,
          ...kept.map((c) => `  ${padded(c.conversationId)}  ${c.caseId}`)
        ].join("\n")
      )
    }
    if (undeleted.length > 0) {
      // Those with an id a route can hold stay in the journal, for `eval cleanup` to try again.
      const retry = baseUrl !== undefined && undeleted.some((c) => idProblem(c.conversationId) === undefined)
        ? `; \`${cleanupCommand(baseUrl)}\` tries again, or delete ${undeleted.length === 1 ? "it" : "them"} by hand`
        : `; delete ${undeleted.length === 1 ? "it" : "them"} by hand`
      yield* Console.error(
        [
          `${plural(undeleted.length, "conversation")} could not be deleted${retry}:`,
          ...undeleted.map((c) => `  ${padded(c.conversationId)}  ${c.caseId}: ${inert(c.reason ?? "")}`)
        ].join("\n")
      )
    }
    if (unknown.length > 0) {
      yield* Console.error(
        [
          `${plural(unknown.length, "case")} may have left a conversation the run never learned of; look in the app's account:`,
          ...unknown.map((c) => `  ${c.caseId}: ${inert(c.reason)}`)
        ].join("\n")
      )
    }
  })

/**
 * Tells, before anything else, of conversations that earlier runs left in the journal for this app
 * and session (a run killed before it could delete them), and the command that deletes them.
 */
export const noteLeftovers = (baseUrl: URL, auth: Auth) =>
  Effect.gen(function*() {
    const { leftovers, otherSessions } = yield* readJournal(baseUrl, sessionOf(auth))
    if (leftovers.length > 0) {
      yield* Console.error(
        `note: earlier runs left ${leftovers.length} conversation${leftovers.length === 1 ? "" : "s"} undeleted in this account at ${
          inert(baseUrl.href)
        }; \`${cleanupCommand(baseUrl)}\` deletes them`
      )
    } else if (otherSessions > 0) {
      yield* Console.error(
        `note: earlier runs of another session left ${otherSessions} conversation${otherSessions === 1 ? "" : "s"} at ${
          inert(baseUrl.href)
        }; \`${cleanupCommand(baseUrl)}\` signed in as that session deletes them`
      )
    }
  })

/** What a run covers: the cases `--filter` and `--shard` select, and why no floor applies to a part. */
interface Selection {
  readonly cases: ReadonlyArray<Case>
  readonly shard: ShardInfo | undefined
  /** Why the floor is not applied, for a partial run. */
  readonly partial: string | undefined
}

/** Selects the cases of a run: `--filter`, then `--shard i/n` of the whole golden set by case id. */
export const selectRun = (set: GoldenSet, args: Pick<RunArgs, "filter" | "shard">): Effect.Effect<Selection, UsageError> =>
  Effect.gen(function*() {
    if (Option.isNone(args.shard)) {
      const cases = yield* selectCases(set, args.filter).pipe(
        Effect.mapError((error) => flagUsage("--filter", error.message))
      )
      return {
        cases,
        shard: undefined,
        partial: cases.length < set.cases.length
          ? `the floor is not applied to a --filter'ed run (${cases.length} of ${set.cases.length} cases)`
          : undefined
      }
    }
    if (args.filter.length > 0) {
      return yield* new UsageError({ message: "--shard splits the whole golden set; it cannot be combined with --filter" })
    }
    const shard = yield* Either.match(parseShard(args.shard.value), {
      onLeft: (problem) => Effect.fail(flagUsage("--shard", problem)),
      onRight: Effect.succeed
    })
    const cases = set.cases.filter((c) => inShard(shard, c.id))
    return {
      cases,
      shard: { index: shard.index, count: shard.count, of: caseSetFingerprint(set.cases) },
      partial: `shard ${shard.index}/${shard.count} (${cases.length} of ${set.cases.length} cases): ${programName} merge applies the floor to the whole`
    }
  })

/**
 * How a run shows its progress. On a terminal's stderr, a long run redraws one progress line; off a
 * terminal (a CI log, a pipe) each case's scorecard line is printed to stderr as it finishes, in
 * completion order, with its wall time, so a log never falls silent while cases run. `silent` shows
 * neither.
 */
const caseProgress = (cases: ReadonlyArray<Case>, silent: boolean) =>
  Effect.sync(() => {
    const terminal = process.stderr.isTTY === true && (process.env["CI"] ?? "") === ""
    const total = cases.length
    const width = surfaceWidth(cases.map((c) => c.surface))
    const color = useColor()
    const started = Date.now()
    let done = 0
    let passing = 0
    let drawn = false
    let last = 0
    // Streamed lines are written a few at a time (within 50 ms of their case): one write per case
    // would cost an offline run of thousands of cases a tenth of its time.
    let lines: Array<string> = []
    let timer: ReturnType<typeof setTimeout> | undefined
    const flush = () => {
      if (timer !== undefined) clearTimeout(timer)
      timer = undefined
      if (lines.length > 0) process.stderr.write(lines.join(""))
      lines = []
    }
    return {
      onCaseDone: (result: CaseResult) =>
        Effect.sync(() => {
          done++
          if (result.passed) passing++
          if (silent) return
          if (!terminal) {
            lines.push(`${caseLine(result, width, color)}  ${showCaseDuration(result.durationMs ?? 0)}\n`)
            if (lines.length >= 256) flush()
            else timer ??= setTimeout(flush, 50)
            return
          }
          const now = Date.now()
          // Only a long run gets a line, redrawn at most ten times a second.
          if (total <= 1 || now - started < 1_000 || (now - last < 100 && done < total)) return
          last = now
          drawn = true
          process.stderr.write(`\r\u001b[2K${renderProgress({ done, total, passing, elapsedMs: now - started })}`)
        }),
      clear: Effect.sync(() => {
        flush()
        if (drawn) process.stderr.write("\r\u001b[2K")
      }),
      elapsedMs: Effect.sync(() => Date.now() - started)
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
    return { id, surface, passed, question: c.question, guards: c.guards, ...(c.tags === undefined ? {} : { tags: c.tags }), ...rest }
  })
}

/** Hints for the reasons a run may obtain no turn at all. */
const hints: ReadonlyArray<readonly [RegExp, string]> = [
  [/connection refused|host not found|TLS/, "is the dev server running, and the URL right?"],
  [/^no recorded turn: /, "is --fixtures the folder of the recorded turns?"],
  [/HTTP 404/, "are the routes right (\"routes\" in the catalog)?"]
]

/**
 * Why a run measured nothing — no case obtained its turn — naming the most common reason, or
 * `undefined` when some case was graded.
 */
export const measuredNothing = (results: ReadonlyArray<CaseResult>): string | undefined => {
  if (!obtainedNoTurn(results)) return undefined
  const errors = results.flatMap((c) => attemptsOf(c).map((a) => ({ id: c.id, error: a.error })))
  // Reasons are grouped as they would read without the case's own id or the URL it went to.
  const groups = new Map<string, { readonly example: string; count: number }>()
  for (const { error, id } of errors) {
    const kind = error!.split(id).join("…").replace(/ — (GET|POST|DELETE) \S+$/, "")
    const group = groups.get(kind)
    if (group === undefined) groups.set(kind, { example: error!, count: 1 })
    else group.count++
  }
  const { count, example: reason } = [...groups.values()].sort((a, b) => b.count - a.count)[0]!
  const hint = hints.find(([pattern]) => pattern.test(reason))?.[1]
  return `no case obtained its turn, so the run measured nothing and no floor is held: ${inert(shown(reason))}${
    hint === undefined || reason.includes(" — ") ? "" : ` — ${hint}`
  } (${count} of ${errors.length} ${errors.length === 1 ? "turn" : "turns"})`
}

/**
 * The floor a run of `repeat` attempts per case is held to: the committed one, unless the run covers a
 * part of the golden set (`partial` says which) or the floor was set at another K. `--check` without a
 * floor that applies, or `--ratchet` of a floor set at another K, is a usage error, told before
 * anything runs. Also the floor's moves so far, for the reports, whether or not the floor applies.
 */
export const floorToHold = (
  args: { readonly baseline: string; readonly check: boolean; readonly ratchet: boolean },
  repeat: number,
  partial: string | undefined
): Effect.Effect<
  { readonly floor: number | null; readonly noFloor: string; readonly history: ReadonlyArray<FloorChange> },
  BadInput | UsageError,
  FileSystem.FileSystem
> =>
  Effect.gen(function*() {
    const baseline = yield* readBaseline(args.baseline)
    if (Option.isNone(baseline)) {
      if (args.check) return yield* new UsageError({ message: `${args.baseline}: ${noFloorYet}` })
      return { floor: null, noFloor: partial ?? noFloorYet, history: [] }
    }
    const history = floorHistory(baseline.value)
    const k = repeatOf(baseline.value)
    if (partial === undefined && k === repeat) return { floor: baseline.value.floor, noFloor: noFloorYet, history }
    const times = (n: number) => `--repeat ${n}`
    const noFloor = partial ??
      `the floor in ${args.baseline} was set with ${times(k)}; it is not applied to a run with ${times(repeat)} (compare like with like)`
    if ((args.check || args.ratchet) && partial === undefined) {
      return yield* new UsageError({
        message: `${args.check ? "--check" : "--ratchet"}: ${noFloor}${args.ratchet && !args.check ? ", nor moved by it" : ""}`
      })
    }
    return { floor: null, noFloor, history }
  })

/** Grades the selected cases of `set` through `client`, reports the results, then holds the floor. */
export const gradeRun = (
  args: RunArgs,
  set: GoldenSet,
  client: Layer.Layer<SurfaceClient, never, FileSystem.FileSystem | Path.Path>,
  baseUrl?: URL
) =>
  Effect.gen(function*() {
    const reporters = yield* parseReporters(args.reporter, args.json)
    const say = (text: string) => stdoutIsDocument(reporters) ? Console.error(text) : Console.log(text)
    const { cases, partial, shard } = yield* selectRun(set, args)
    if (partial !== undefined && (args.check || args.ratchet)) {
      return yield* new UsageError({
        message: `${args.check ? "--check" : "--ratchet"} holds the floor of the whole golden set; ${
          shard === undefined ? "a --filter'ed run" : "a shard"
        } cannot ${args.check ? "be checked against it" : "move it"}${shard === undefined ? "" : " (merge the shards: ${programName} merge … --check)"}`
      })
    }
    const compareFile = Option.getOrUndefined(args.compare)
    yield* refuseOverwritingInputs(reporters, [
      [set.casesFile, "the golden set"],
      [set.surfacesFile, "the catalog"],
      [args.baseline, "the baseline"],
      ...(compareFile === undefined ? [] : [[compareFile, "the results compared with"] as const])
    ])
    const caseSet = caseSetFingerprint(cases)
    // A comparison that will be refused is refused before any turn is obtained.
    const older = compareFile === undefined ? undefined : yield* readResults(compareFile)
    if (older !== undefined) {
      yield* refuseDifferentSets(older.caseSet, caseSet, {
        allowDifferentSets: args.allowDifferentSets,
        names: [compareFile!, "this run"]
      }).pipe(Either.mapLeft(withAllowDifferentSets))
    }
    const held = yield* floorToHold(args, args.repeat, partial)
    const runner = yield* Runner
    const progress = yield* caseProgress(cases, args.silent)
    const bail = Option.getOrUndefined(args.bail)
    const { bailed, results: graded } = yield* runner.runCases(set.catalog, cases, {
      concurrency: concurrencyOf(args),
      repeat: args.repeat,
      keepTurns: true,
      onCaseDone: progress.onCaseDone,
      ...(bail === undefined ? {} : { bail })
    }).pipe(
      Effect.ensuring(progress.clear),
      Effect.onExit((exit) => Exit.isSuccess(exit) ? Effect.void : reportLeftBehind(say, baseUrl))
    )
    const results = withCaseText(cases, graded)
    // A run in which no case obtained its turn measured nothing: its pass rate is no verdict.
    const nothing = measuredNothing(results)
    // A run that stopped early covers the cases that finished, and is held to no floor.
    const stopped = bailed
      ? `stopped after ${bail} failed case${bail === 1 ? "" : "s"} (--bail ${bail}): ${cases.length - results.length} of ${cases.length} cases not run`
      : undefined
    const finished = new Set(results.map((r) => r.id))
    const durationMs = yield* progress.elapsedMs
    const result = summarize(
      results,
      bailed ? caseSetFingerprint(cases.filter((c) => finished.has(c.id))) : caseSet,
      bailed || nothing !== undefined ? null : held.floor,
      {
        repeat: args.repeat,
        ...(shard === undefined ? {} : { shard }),
        ...(bailed ? { bailed: true } : {}),
        durationMs
      }
    )
    const diff = older === undefined
      ? undefined
      : { diff: yield* diffRuns(older, result, { allowDifferentSets: true }), against: compareFile! }
    yield* writeReports(result, reporters, {
      casesFile: set.casesFile,
      noFloor: nothing !== undefined
        ? "no case obtained its turn: the run measured nothing"
        : stopped !== undefined
        ? `${stopped}; a partial run is held to no floor`
        : held.noFloor,
      durationMs,
      ...(diff === undefined ? {} : { diff }),
      ...(held.history.length === 0 ? {} : { history: held.history })
    })
    yield* reportLeftBehind(say, baseUrl)
    if (nothing !== undefined) return yield* new Refused({ reason: "not-a-measurement", message: nothing })
    if (args.ratchet && stopped !== undefined) {
      return yield* new Refused({ reason: "ratchet", message: `--ratchet: the run ${stopped}: the floor moves only on a full run` })
    }
    if (args.ratchet) yield* applyRatchet(set, args.baseline, result, say)
    if (args.check && (bailed || result.passed === false)) return yield* new GateFailed({ reason: "below-floor" })
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
    if (Option.isSome(args.bail) && args.bail.value < 1) return yield* new UsageError({ message: "--bail must be at least 1" })
    if (args.repeat < 1 || args.repeat > maxRepeat) {
      return yield* new UsageError({ message: `--repeat must be from 1 to ${maxRepeat}` })
    }
    if (args.repeat > 1 && Option.isSome(args.record)) {
      return yield* new UsageError({
        message: "--record keeps one turn per case, and --repeat obtains several: record with a run of its own"
      })
    }
    const source = yield* sourceOf(args)
    if (source._tag === "Live") yield* noteLeftovers(source.baseUrl, source.auth)
    if (Option.isSome(args.record)) {
      const dir = args.record.value
      const fs = yield* FileSystem.FileSystem
      yield* fs.makeDirectory(dir, { recursive: true }).pipe(
        Effect.mapError(() => new UsageError({ message: `--record ${dir}: cannot create that folder` }))
      )
    }
    const set = yield* loadGoldenSet(args.cases, args.surfaces)
    const client = source._tag === "Otel"
      ? yield* Effect.flatMap(
        Effect.promise(() => import("../Runner/OtelClient.js")),
        (m) => m.otelSource(source.files, set)
      )
      : clientFor(source, set, args)
    return yield* gradeRun(args, set, client, source._tag === "Live" ? source.baseUrl : undefined)
  })
