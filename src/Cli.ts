/**
 * The `eval` command tree — `run`, `validate`, `ratchet`, `audit`, `standin`, `demo` — and the mapping of how a
 * command ended to its exit code: 0 done, 1 below the floor under `--check`, 2 bad input or usage
 * (or a rejected session), 70 internal error.
 */
import { Command, Options, ValidationError } from "@effect/cli"
import type { FileSystem, Path, Terminal } from "@effect/platform"
import { Cause, Console, Effect, Option } from "effect"
import type { AuditArgs } from "./Commands/Audit.js"
import type { ImportArgs } from "./Commands/Import.js"
import type { RatchetArgs } from "./Commands/Ratchet.js"
import type { RunArgs } from "./Commands/Run.js"
import type { DemoArgs, StandInArgs } from "./Commands/StandIn.js"
import type { ValidateArgs } from "./Commands/Validate.js"
import { defaultCasesFile, defaultSurfacesFile } from "./Runner/GoldenSet.js"
import {
  BadInput,
  BelowFloor,
  RatchetRefused,
  SessionRejected,
  UnreadableLines,
  UsageError,
  ViolationsFound
} from "./Schema/Errors.js"
import { defaultBaselineFile } from "./Scorecard/BaselineStore.js"
import { useColor } from "./Terminal.js"

/** The version the CLI reports. */
export const version = "0.1.0"

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
const baseUrlOption = Options.text("base-url").pipe(
  Options.withPseudoName("URL"),
  Options.optional,
  Options.withDescription("Grade live turns from the app at this URL (a path in it prefixes every route).")
)
const otelOption = Options.text("otel").pipe(
  Options.withPseudoName("FILE"),
  Options.repeated,
  Options.withDescription(
    "Grade the turns in OpenTelemetry traces: OTLP JSON files, or folders of .json/.jsonl files (repeatable). See docs/otel.md."
  )
)
const outOption = Options.text("out").pipe(
  Options.withPseudoName("DIR"),
  Options.withDescription("The folder to write the recorded turns to, one <case id>.json per linked case.")
)
const cookieOption = Options.redacted("cookie").pipe(
  Options.withPseudoName("NAME=VALUE"),
  Options.optional,
  Options.withDescription(
    "The session cookie of a live run. Prefer the EVAL_COOKIE environment variable: arguments are visible to other users."
  )
)
const keepOption = Options.boolean("keep").pipe(
  Options.withDescription("Leave each live conversation in the account and print its id, for the turn inspector.")
)
const timeoutOption = Options.float("timeout").pipe(
  Options.withPseudoName("SECONDS"),
  Options.withDefault(120),
  Options.withDescription("Bounds obtaining one live turn, retries included.")
)
const recordOption = Options.text("record").pipe(
  Options.withPseudoName("DIR"),
  Options.optional,
  Options.withDescription("Also write every obtained turn as a recorded turn, to replay with --fixtures DIR.")
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
  Options.optional,
  Options.withDescription(
    "Cases obtained at once (default 4 for a live app; 1 for recorded turns, which are read without waiting)."
  )
)
const fromOption = Options.text("from").pipe(
  Options.withPseudoName("FILE"),
  Options.withDescription("The results file of a full run (`eval run --json`).")
)
const surfaceOption = Options.text("surface").pipe(
  Options.withPseudoName("NAME"),
  Options.withDescription("The surface whose turns are audited; turns of other surfaces are skipped.")
)
const expectOption = Options.text("expect").pipe(
  Options.withPseudoName("KIND[=ARG]"),
  Options.repeated,
  Options.withDescription(
    "An invariant every turn must hold (repeatable): cites-only-surfaced, never-calls=deploy, answer-excludes=rm -rf, …"
  )
)
const tracesOption = Options.text("traces").pipe(
  Options.withPseudoName("FILE.jsonl"),
  Options.repeated,
  Options.withDescription("JSON lines, a recorded turn per line (repeatable; - reads standard input).")
)
const shardOption = Options.text("shard").pipe(
  Options.withPseudoName("i/n"),
  Options.optional,
  Options.withDescription("Audit only part i of n of the turns (by turn id), so n machines share an archive.")
)
const hostOption = Options.text("host").pipe(
  Options.withPseudoName("ADDRESS"),
  Options.withDefault("127.0.0.1"),
  Options.withDescription("The loopback address to listen on.")
)
const portOption = Options.integer("port").pipe(
  Options.withPseudoName("PORT"),
  Options.withDefault(8787),
  Options.withDescription("The port to listen on (0: any free port).")
)
const latencyOption = Options.integer("latency").pipe(
  Options.withPseudoName("MS"),
  Options.withDefault(0),
  Options.withDescription("Milliseconds the ask route waits before answering.")
)
const maxConversationsOption = Options.integer("max-conversations").pipe(
  Options.withPseudoName("N"),
  Options.withDefault(16),
  Options.withDescription("Open conversations an account may hold; asks past it are answered 429.")
)
const faultOption = Options.text("fault").pipe(
  Options.withPseudoName("ROUTE:FAULT[@RATE]"),
  Options.repeated,
  Options.withDescription(
    "Inject a fault (repeatable): ROUTE ask, conversation, trace or delete; FAULT an HTTP status (503, 503/2 with Retry-After), hang, reset, not-json, wrong-shape, huge or redirect=ORIGIN; RATE the fraction of questions hit."
  )
)

// ---------------------------------------------------------------------------------------------------
// Handlers, loaded when their command runs: `--help` and `validate` start without the HTTP client
// or the stand-in.

const runHandler = (args: RunArgs) =>
  Effect.flatMap(Effect.promise(() => import("./Commands/Run.js")), (m) => m.runHandler(args))
const validateHandler = (args: ValidateArgs) =>
  Effect.flatMap(Effect.promise(() => import("./Commands/Validate.js")), (m) => m.validateHandler(args))
const ratchetHandler = (args: RatchetArgs) =>
  Effect.flatMap(Effect.promise(() => import("./Commands/Ratchet.js")), (m) => m.ratchetHandler(args))
const standInHandler = (args: StandInArgs) =>
  Effect.flatMap(Effect.promise(() => import("./Commands/StandIn.js")), (m) => m.standInHandler(args))
const importHandler = (args: ImportArgs) =>
  Effect.flatMap(Effect.promise(() => import("./Commands/Import.js")), (m) => m.importHandler(args))
const auditHandler = (args: AuditArgs) =>
  Effect.flatMap(Effect.promise(() => import("./Commands/Audit.js")), (m) => m.auditHandler(args))
const demoHandler = (args: DemoArgs) =>
  Effect.flatMap(Effect.promise(() => import("./Commands/StandIn.js")), (m) => m.demoHandler(args))

// ---------------------------------------------------------------------------------------------------
// Commands

const runCommand = Command.make("run", {
  cases: casesOption,
  surfaces: surfacesOption,
  baseline: baselineOption,
  fixtures: fixturesOption,
  baseUrl: baseUrlOption,
  otel: otelOption,
  cookie: cookieOption,
  keep: keepOption,
  timeout: timeoutOption,
  record: recordOption,
  json: jsonOption,
  check: checkOption,
  ratchet: ratchetOption,
  filter: filterOption,
  concurrency: concurrencyOption
}, runHandler).pipe(
  Command.withDescription(
    "Grade every case's turn and print the scorecard. Example: eval run --fixtures cases/fixtures --check, or live: EVAL_COOKIE='session=…' eval run --base-url http://127.0.0.1:5173 --check"
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

const standInCommand = Command.make("standin", {
  cases: casesOption,
  surfaces: surfacesOption,
  host: hostOption,
  port: portOption,
  latency: latencyOption,
  maxConversations: maxConversationsOption,
  fault: faultOption
}, standInHandler).pipe(
  Command.withDescription(
    "Serve the stand-in assistant (the catalog's surfaces, over the surface protocol) on loopback until stopped. Example: eval standin --port 8787 --fault trace:503@0.2"
  )
)

const auditCommand = Command.make("audit", {
  surfaces: surfacesOption,
  surface: surfaceOption,
  expect: expectOption,
  traces: tracesOption,
  shard: shardOption
}, auditHandler).pipe(
  Command.withDescription(
    "Grade every turn of JSON-lines exports against invariants, streaming; exit 1 on a violation. Example: eval audit --surface docs --expect cites-only-surfaced --expect never-calls=deploy --traces turns.jsonl"
  )
)

const importCommand = Command.make("import", {
  otel: otelOption,
  out: outOption,
  cases: casesOption,
  surfaces: surfacesOption
}, importHandler).pipe(
  Command.withDescription(
    "Read OpenTelemetry traces (GenAI conventions, the AI SDK, OpenInference), link their turns to cases and write them as recorded turns; list the turns it could not link. Example: eval import --otel traces.json --out cases/imported"
  )
)

const demoCommand = Command.make("demo", {
  cases: casesOption,
  surfaces: surfacesOption,
  baseline: baselineOption,
  concurrency: concurrencyOption
}, demoHandler).pipe(
  Command.withDescription(
    "Start the stand-in on an ephemeral port and run the golden set live against it with --check (npm start). Example: eval demo"
  )
)

const evalCommand = Command.make("eval", {}, () =>
  Effect.fail(
    new UsageError({ message: "name a command: run, validate, ratchet, audit, standin or demo (eval --help lists them)" })
  )).pipe(
    Command.withDescription("A deterministic regression suite for AI assistants: grade recorded turns against a golden set."),
    Command.withSubcommands([
      runCommand,
      validateCommand,
      ratchetCommand,
      auditCommand,
      importCommand,
      standInCommand,
      demoCommand
    ])
  )

const cli = Command.run(evalCommand, { name: "eval", version, executable: "eval" })

// ---------------------------------------------------------------------------------------------------
// Exit codes

/** The exit code a command's end maps to, printing what the user must read on stderr. */
const finish = <E>(cause: Cause.Cause<E>): Effect.Effect<number> => {
  if (Cause.isInterruptedOnly(cause)) return Effect.succeed(130)
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure)) {
    const error: unknown = failure.value
    if (error instanceof BelowFloor || error instanceof ViolationsFound) return Effect.succeed(1)
    if (ValidationError.isValidationError(error)) return Effect.succeed(2)
    if (error instanceof BadInput) return Effect.as(Console.error(error.message), 2)
    if (
      error instanceof UsageError || error instanceof RatchetRefused || error instanceof SessionRejected ||
      error instanceof UnreadableLines
    ) {
      return Effect.as(Console.error(`error: ${error.message}`), 2)
    }
  }
  const squashed = Cause.squash(cause)
  const message = squashed instanceof Error ? squashed.message : String(squashed)
  return Effect.as(Console.error(`internal error: ${message}`), 70)
}

// eslint-disable-next-line no-control-regex
const ansi = /\u001b\[[0-9;]*m/g
const plain = (args: ReadonlyArray<unknown>) => args.map((a) => typeof a === "string" ? a.replace(ansi, "") : a)

/** The console with ANSI styling removed: the help text is styled whatever the output is. */
const plainConsole = (console: Console.Console): Console.Console => ({
  ...console,
  log: (...args) => console.log(...plain(args)),
  error: (...args) => console.error(...plain(args))
})

/** Runs the CLI on `argv` (with the node and script paths first) and returns the exit code. */
export const main = (
  argv: ReadonlyArray<string>
): Effect.Effect<number, never, FileSystem.FileSystem | Path.Path | Terminal.Terminal> =>
  cli(argv).pipe(
    Effect.as(0),
    Effect.catchAllCause(finish),
    (program) => useColor() ? program : Console.consoleWith((console) => Console.withConsole(program, plainConsole(console)))
  )
