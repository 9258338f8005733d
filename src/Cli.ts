/**
 * The `eval` command tree: `run`, `validate` and `ratchet`, and the mapping of their outcomes to exit
 * codes (0 pass, 1 below the floor under `--check`, 2 bad input or usage, 70 internal error).
 */
import { Command, Options, ValidationError } from "@effect/cli"
import { FileSystem, type Path, type Terminal } from "@effect/platform"
import { Cause, Clock, Console, Effect, Layer, Option } from "effect"
import { readJson, writeAtomically } from "./Files.js"
import { defaultCasesFile, defaultSurfacesFile, type GoldenSet, loadGoldenSet, selectCases } from "./Runner/GoldenSet.js"
import { Runner } from "./Runner/Runner.js"
import { SurfaceClient } from "./Runner/SurfaceClient.js"
import { BadInput, RatchetRefused, UsageError } from "./Schema/Errors.js"
import { RunResult } from "./Schema/Result.js"
import { defaultBaselineFile, readBaseline, writeBaseline } from "./Scorecard/BaselineStore.js"
import { caseSetFingerprint } from "./Scorecard/CaseSet.js"
import { ratchet } from "./Scorecard/Ratchet.js"
import { renderPretty } from "./Scorecard/Render/Pretty.js"
import { noFloorYet, resultInconsistencies, showRate, summarize } from "./Scorecard/Scorecard.js"

/** The version the CLI reports. */
export const version = "0.1.0"

/** A `--check` run whose pass rate is below the floor (exit code 1); the scorecard already said so. */
export class BelowFloor {
  readonly _tag = "BelowFloor"
}

// ---------------------------------------------------------------------------------------------------
// Options

const casesOption = Options.text("cases").pipe(
  Options.withPseudoName("FILE"),
  Options.withDefault(defaultCasesFile),
  Options.withDescription("The golden set: a cases file, version 1.")
)
const surfacesOption = Options.text("surfaces").pipe(
  Options.withPseudoName("FILE"),
  Options.withDefault(defaultSurfacesFile),
  Options.withDescription("The surface catalog the cases are checked against.")
)
const baselineOption = Options.text("baseline").pipe(
  Options.withPseudoName("FILE"),
  Options.withDefault(defaultBaselineFile),
  Options.withDescription("The committed floor the pass rate must hold.")
)
const fixturesOption = Options.text("fixtures").pipe(
  Options.withPseudoName("DIR"),
  Options.optional,
  Options.withDescription("Grade recorded turns offline: a folder of <case id>.json files.")
)
const jsonOption = Options.text("json").pipe(
  Options.withPseudoName("FILE"),
  Options.optional,
  Options.withDescription("Also write the results file (JSON, version 1) here.")
)
const checkOption = Options.boolean("check").pipe(
  Options.withDescription("Exit 1 when the pass rate is below the committed floor.")
)
const ratchetOption = Options.boolean("ratchet").pipe(
  Options.withDescription("After the run, raise the floor to the pass rate it achieved (never lowers it).")
)
const filterOption = Options.text("filter").pipe(
  Options.withPseudoName("ID-or-TAG"),
  Options.repeated,
  Options.withDescription("Run only the cases with this id or tag (repeatable); a filter matching nothing is an error.")
)
const concurrencyOption = Options.integer("concurrency").pipe(
  Options.withPseudoName("N"),
  Options.withDefault(4),
  Options.withDescription("Cases obtained at once.")
)
const fromOption = Options.text("from").pipe(
  Options.withPseudoName("FILE"),
  Options.withDescription("The results file of a full run (`eval run --json`).")
)

// ---------------------------------------------------------------------------------------------------
// Handlers

const useColor = (): boolean => process.stdout.isTTY === true && (process.env["NO_COLOR"] ?? "") === ""

// eslint-disable-next-line no-control-regex
const ansi = /\u001b\[[0-9;]*m/g
const plain = (args: ReadonlyArray<unknown>) => args.map((a) => typeof a === "string" ? a.replace(ansi, "") : a)

/** The console with ANSI styling removed: the help text is styled whatever the output is. */
const plainConsole = (console: Console.Console): Console.Console => ({
  ...console,
  log: (...args) => console.log(...plain(args)),
  error: (...args) => console.error(...plain(args))
})

const today = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString().slice(0, 10))

/** Applies the ratchet for a run over `set`, writing the baseline when the floor rises. */
const applyRatchet = (set: GoldenSet, baselineFile: string, result: RunResult) =>
  Effect.gen(function*() {
    const current = yield* readBaseline(baselineFile)
    const decision = yield* ratchet(current, result, caseSetFingerprint(set.cases), yield* today)
    if (decision._tag === "Kept") {
      const how = decision.achieved === decision.floor ? "it" : `only ${showRate(decision.achieved)}`
      yield* Console.log(
        `floor stays at ${showRate(decision.floor)}: this run achieved ${how} (${result.passedCount}/${result.total} passed)`
      )
      return
    }
    yield* writeBaseline(baselineFile, decision.baseline)
    yield* Console.log(
      decision.from === null
        ? `floor set to ${showRate(decision.to)} (${result.passedCount}/${result.total} passed); wrote ${baselineFile}`
        : `floor raised ${showRate(decision.from)} → ${
          showRate(decision.to)
        } (${result.passedCount}/${result.total} passed); wrote ${baselineFile}`
    )
  })

interface RunArgs {
  readonly cases: string
  readonly surfaces: string
  readonly baseline: string
  readonly fixtures: Option.Option<string>
  readonly json: Option.Option<string>
  readonly check: boolean
  readonly ratchet: boolean
  readonly filter: ReadonlyArray<string>
  readonly concurrency: number
}

/** Grades the selected cases through whichever SurfaceClient is provided, then holds the floor. */
const gradeRun = (args: RunArgs) =>
  Effect.gen(function*() {
    const set = yield* loadGoldenSet(args.cases, args.surfaces)
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
    const results = yield* runner.run(set.catalog, cases, { concurrency: args.concurrency })
    const floor = partial ? null : Option.match(baseline, { onNone: () => null, onSome: (b) => b.floor })
    const result = summarize(results, caseSetFingerprint(cases), floor)
    const noFloor = partial ? `the floor is not applied to a --filter'ed run (${cases.length} of ${set.cases.length} cases)` : noFloorYet
    yield* Console.log(renderPretty(result, { color: useColor(), noFloor }))
    if (Option.isSome(args.json)) {
      yield* writeAtomically(args.json.value, `${JSON.stringify(result, null, 2)}\n`)
    }
    if (args.ratchet) yield* applyRatchet(set, args.baseline, result)
    if (args.check && result.passed === false) return yield* Effect.fail(new BelowFloor())
  })

/** `eval run`: obtain every selected case's turn, grade it, print the scorecard, hold the floor. */
export const runHandler = (args: RunArgs) =>
  Effect.gen(function*() {
    if (args.concurrency < 1) return yield* new UsageError({ message: "--concurrency must be at least 1" })
    if (Option.isNone(args.fixtures)) {
      return yield* new UsageError({ message: "say where turns come from: --fixtures DIR (recorded turns)" })
    }
    const dir = args.fixtures.value
    const fs = yield* FileSystem.FileSystem
    const info = yield* Effect.option(fs.stat(dir))
    if (Option.isNone(info) || info.value.type !== "Directory") {
      return yield* new UsageError({ message: `--fixtures ${dir}: no such folder` })
    }
    const client = SurfaceClient.Fixture(dir)
    return yield* gradeRun(args).pipe(Effect.provide(Runner.Default.pipe(Layer.provide(client))))
  })

/** `eval validate`: the catalog, the golden set against it, and the baseline when there is one. */
export const validateHandler = (args: { cases: string; surfaces: string; baseline: string }) =>
  Effect.gen(function*() {
    const set = yield* loadGoldenSet(args.cases, args.surfaces)
    const baseline = yield* readBaseline(args.baseline)
    const surfaces = [...new Set(set.cases.map((c) => c.surface))]
    yield* Console.log(
      `${set.casesFile}: ${set.cases.length} cases over ${surfaces.length} surfaces (${
        surfaces.join(", ")
      }), valid against ${set.surfacesFile}`
    )
    yield* Console.log(
      Option.match(baseline, {
        onNone: () => `${args.baseline}: ${noFloorYet}`,
        onSome: (b) => `${args.baseline}: floor ${showRate(b.floor)}`
      })
    )
  })

/** `eval ratchet`: raise the floor to what a full run achieved, from its results file. */
export const ratchetHandler = (args: { from: string; cases: string; surfaces: string; baseline: string }) =>
  Effect.gen(function*() {
    const set = yield* loadGoldenSet(args.cases, args.surfaces)
    const result = yield* readJson(RunResult, args.from)
    const inconsistent = resultInconsistencies(result)
    if (inconsistent.length > 0) return yield* new BadInput({ file: args.from, problems: inconsistent })
    yield* applyRatchet(set, args.baseline, result)
  })

// ---------------------------------------------------------------------------------------------------
// Commands

const runCommand = Command.make("run", {
  cases: casesOption,
  surfaces: surfacesOption,
  baseline: baselineOption,
  fixtures: fixturesOption,
  json: jsonOption,
  check: checkOption,
  ratchet: ratchetOption,
  filter: filterOption,
  concurrency: concurrencyOption
}, runHandler).pipe(
  Command.withDescription(
    "Grade every case's turn and print the scorecard. Example: eval run --fixtures cases/fixtures --check"
  )
)

const validateCommand = Command.make("validate", {
  cases: casesOption,
  surfaces: surfacesOption,
  baseline: baselineOption
}, validateHandler).pipe(
  Command.withDescription("Check the catalog, the golden set against it, and the baseline. Example: eval validate")
)

const ratchetCommand = Command.make("ratchet", {
  from: fromOption,
  cases: casesOption,
  surfaces: surfacesOption,
  baseline: baselineOption
}, ratchetHandler).pipe(
  Command.withDescription(
    "Raise the floor to the pass rate a full run achieved; never lower it. Example: eval ratchet --from results.json"
  )
)

const evalCommand = Command.make("eval", {}, () =>
  Effect.fail(new UsageError({ message: "name a command: run, validate or ratchet (eval --help lists them)" }))).pipe(
    Command.withDescription("A deterministic regression suite for AI assistants: grade recorded turns against a golden set."),
    Command.withSubcommands([runCommand, validateCommand, ratchetCommand])
  )

const cli = Command.run(evalCommand, { name: "eval", version, executable: "eval" })

/** The exit code a command's end maps to, printing what the user must read on stderr. */
const finish = <E>(cause: Cause.Cause<E>): Effect.Effect<number> => {
  if (Cause.isInterruptedOnly(cause)) return Effect.succeed(130)
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error: unknown = failure.value
    if (error instanceof BelowFloor) return Effect.succeed(1)
    if (ValidationError.isValidationError(error)) return Effect.succeed(2)
    if (error instanceof BadInput) return Effect.as(Console.error(error.message), 2)
    if (error instanceof UsageError || error instanceof RatchetRefused) {
      return Effect.as(Console.error(`error: ${error.message}`), 2)
    }
  }
  const squashed = Cause.squash(cause)
  const message = squashed instanceof Error ? squashed.message : String(squashed)
  return Effect.as(Console.error(`internal error: ${message}`), 70)
}

/** Runs the CLI on `argv` (with the node and script paths first) and returns the exit code. */
export const main = (
  argv: ReadonlyArray<string>
): Effect.Effect<number, never, FileSystem.FileSystem | Path.Path | Terminal.Terminal> =>
  cli(argv).pipe(
    Effect.as(0),
    Effect.catchAllCause(finish),
    (program) => useColor() ? program : Console.consoleWith((console) => Console.withConsole(program, plainConsole(console)))
  )
