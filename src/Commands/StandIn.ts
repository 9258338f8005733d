/**
 * `eval standin` serves the stand-in assistant until stopped; `eval demo` (`npm start`) starts it on
 * an ephemeral loopback port and runs the golden set live against it with `--check`.
 */
import { FileSystem, type Path } from "@effect/platform"
import { Console, Effect, Either, Option, Redacted } from "effect"
import { runGoldenSet } from "../Application/Run.js"
import { parseBaseUrl } from "../Application/Session.js"
import { packageFile } from "../PackageFiles.js"
import { programName } from "../ProgramName.js"
import { defaultBaselineFile, defaultCasesFile, defaultSurfacesFile } from "../ProjectFiles.js"
import type { ProtocolName } from "../Protocols/Registry.js"
import { loadGoldenSet } from "../Runner/GoldenSet.js"
import { cookieAuth } from "../Runner/Transport.js"
import { type Case, isConversation, openingQuestion, type QuestionCase } from "../Schema/Case.js"
import { type CommandError, UsageError } from "../Schema/Errors.js"
import { faultProblem, parseFault } from "../StandIn/Faults.js"
import { recallsFromMemory, respondWithFlaws } from "../StandIn/Flaws.js"
import { servedProtocols, stableFraction, type StandIn, start } from "../StandIn/Server.js"
import { plural } from "../Words.js"
import type { DemoArgs, StandInArgs } from "./Options.js"
import { checkRun } from "./Run.js"

/**
 * What the stand-in prints once it listens: where, how to sign in (the cookie, or the same token as a
 * header); when a surface speaks another protocol than this product's, each route it serves; and when
 * `--protocol` overrides the catalog's, what the run's catalog must say instead.
 */
export const startUpLines = (
  standIn: StandIn,
  surfaces: ReadonlyArray<string>,
  protocol?: ProtocolName
): ReadonlyArray<string> => {
  const foreign = standIn.protocols.some((p) => p !== "turn-eval")
  const [first, ...rest] = standIn.serves
  return [
    `stand-in assistant listening on ${standIn.url} (surfaces: ${surfaces.join(", ")}${
      foreign ? `; protocol: ${standIn.protocols.join(", ")}` : ""
    })`,
    ...(!foreign || first === undefined ? [] : [`serves:    ${first}`, ...rest.map((line) => `           ${line}`)]),
    ...(protocol === undefined || protocol === "turn-eval"
      ? []
      : [`catalog:   the run's catalog (--surfaces) must name "protocol": "${protocol}" on each surface`]),
    `sign in:   export EVAL_COOKIE='${Redacted.value(standIn.cookie())}'`,
    `   or:     export EVAL_AUTH_HEADER='authorization: Bearer ${
      Redacted.value(standIn.token())
    }'  (x-api-key: the same token works too)`
  ]
}

const loopback = /^(127\.\d+\.\d+\.\d+|localhost|::1)$/

/**
 * The questions `--flaky RATE` answers worse every second time: that fraction (rounded up) of the
 * golden set's cases a worse answer fails — those that hold every citation to what was surfaced and
 * whose answer cites something — picked stably by question. A fraction of all questions would mostly
 * pick ones whose worse answer is the same turn, and show no flaky case.
 */
export const flakyQuestions = (cases: ReadonlyArray<Case>, rate: number): ReadonlyArray<string> => {
  const candidates = cases.filter((c): c is QuestionCase => !isConversation(c)).filter((c) => {
    const turn = respondWithFlaws(c.surface, c.question)
    return c.expect.some((e) => e.kind === "cites-only-surfaced") && recallsFromMemory(turn) !== turn
  })
  const rank = (c: QuestionCase) => stableFraction(`flaky\u0000${c.question}`)
  return [...candidates].sort((a, b) => rank(a) - rank(b)).slice(0, Math.ceil(rate * candidates.length)).map((c) =>
    c.question
  )
}

/** `eval standin`: serve the stand-in on loopback until interrupted. */
export const standInHandler = (args: StandInArgs): Effect.Effect<void, CommandError, FileSystem.FileSystem> =>
  Effect.scoped(
    Effect.gen(function*() {
      if (!loopback.test(args.host)) {
        return yield* new UsageError({
          message: `--host ${args.host}: the stand-in listens on loopback only (127.0.0.1, ::1)`
        })
      }
      if (args.maxConversations < 1) return yield* new UsageError({ message: "--max-conversations must be at least 1" })
      if (args.latency < 0) return yield* new UsageError({ message: "--latency must not be negative" })
      if (!(args.flaky >= 0 && args.flaky <= 1)) {
        return yield* new UsageError({ message: "--flaky must be from 0 to 1" })
      }
      const faults = yield* Effect.forEach(args.fault, (spec) =>
        Either.match(parseFault(spec), {
          onLeft: (message) => Effect.fail(new UsageError({ message })),
          onRight: Effect.succeed
        }))
      const set = yield* loadGoldenSet(args.cases, args.surfaces)
      const protocol = Option.getOrUndefined(args.protocol)
      const protocols = servedProtocols({ catalog: set.catalog, protocol })
      for (const [i, fault] of faults.entries()) {
        const problem = faultProblem(fault, protocols)
        if (problem !== undefined) {
          return yield* new UsageError({ message: `--fault ${JSON.stringify(args.fault[i])}: ${problem}` })
        }
      }
      if (args.seedRatings && !protocols.includes("turn-eval")) {
        return yield* new UsageError({
          message: `--seed-ratings: ratings are read back over this product's own protocol, and no surface speaks it (${
            protocols.join(", ")
          })`
        })
      }
      const flaky = flakyQuestions(set.cases, args.flaky)
      const flakyIds = set.cases.filter((c) => flaky.includes(openingQuestion(c))).map((c) => c.id)
      const standIn = yield* start({
        catalog: set.catalog,
        protocol,
        host: args.host,
        port: args.port,
        latency: { ask: args.latency },
        maxConversations: args.maxConversations,
        faults,
        flaky,
        miscarriage: Option.getOrUndefined(args.miscarry),
        seedRatings: args.seedRatings
      }).pipe(
        Effect.mapError((error) =>
          new UsageError({ message: `cannot listen on ${args.host}:${args.port}: ${error.message}` })
        )
      )
      yield* Console.log(
        [
          ...startUpLines(standIn, Object.keys(set.catalog.surfaces), protocol),
          `then run:  ${programName} run --base-url ${standIn.url}`,
          ...(flakyIds.length === 0
            ? []
            : [`flaky:     every second ask of ${flakyIds.join(", ")} also cites a page from memory`]),
          ...Option.match(args.miscarry, {
            onNone: () => [],
            onSome: (how) => [`miscarry:  every decision on a proposal is carried out wrongly (${how})`]
          }),
          ...(args.seedRatings
            ? [
              `${
                plural(standIn.ratings().length, "turn is", "turns are")
              } rated thumbs-down: ${programName} candidates ` +
              `--base-url ${standIn.url}`
            ]
            : []),
          "Ctrl-C stops it."
        ].join("\n")
      )
      return yield* Effect.never
    })
  )

/**
 * The golden set, catalog and floor the demo runs: the ones given, or, in a folder with no golden set
 * where none was named, the package's own, so the demo runs anywhere the package is installed.
 */
const demoFiles = (args: DemoArgs) =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const named = args.cases !== defaultCasesFile || args.surfaces !== defaultSurfacesFile ||
      args.baseline !== defaultBaselineFile
    if (named || (yield* fs.exists(args.cases).pipe(Effect.orElseSucceed(() => true)))) {
      return { cases: args.cases, surfaces: args.surfaces, baseline: args.baseline }
    }
    return {
      cases: packageFile(defaultCasesFile),
      surfaces: packageFile(defaultSurfacesFile),
      baseline: packageFile(defaultBaselineFile)
    }
  })

/** `eval demo`: the golden set, live over HTTP, against a stand-in started in this process. */
export const demoHandler = (args: DemoArgs): Effect.Effect<void, CommandError, FileSystem.FileSystem | Path.Path> =>
  Effect.scoped(
    Effect.gen(function*() {
      const files = yield* demoFiles(args)
      const set = yield* loadGoldenSet(files.cases, files.surfaces)
      const standIn = yield* start({ catalog: set.catalog }).pipe(
        Effect.mapError((error) =>
          new UsageError({ message: `cannot start the stand-in on loopback: ${error.message}` })
        )
      )
      if (files.cases !== args.cases) {
        yield* Console.log(
          `no ${args.cases} in this folder: asking the package's own golden set (${programName} init writes a starter)`
        )
      }
      yield* Console.log(
        `stand-in assistant on ${standIn.url}; asking it the golden set live (${programName} run --base-url … --check)\n`
      )
      // `run --base-url … --check`, quietly, signed in as the stand-in's user; the stand-in ends with the
      // demo, and its conversations with it: nothing to journal.
      const plan = yield* checkRun({
        baseline: files.baseline,
        source: {
          _tag: "Live",
          baseUrl: yield* parseBaseUrl(standIn.url),
          auth: cookieAuth(standIn.cookie()),
          journal: false
        },
        concurrency: args.concurrency,
        timeout: 30,
        check: true,
        silent: true
      })
      yield* runGoldenSet(plan, { set }).pipe(
        Effect.ensuring(Effect.suspend(() => {
          const stats = standIn.stats()
          return Console.log(
            `\nstand-in: ${plural(stats.requests.ask, "ask")} (questions and decisions), ${
              plural(stats.requests.conversation, "conversation read")
            }, ${plural(stats.requests.trace, "trace read")}, ${plural(stats.created, "conversation")} opened, ` +
              `${stats.deleted} deleted, ${standIn.conversations().length} left`
          )
        }))
      )
    })
  )
