/**
 * The command tree — `init`, `run`, `validate`, `ratchet`, `merge`, `report`, `diff`, `audit`,
 * `import`, `candidates`, `propose`, `cleanup`, `standin`, `demo` — and the mapping of how a command
 * ended to its exit code: 0 done, 1 a gate failed (below the floor, a violation, a regression) or a
 * cleanup left conversations, 2 bad input or usage (or a rejected session), 70 internal error.
 */
import { Args, Command, Options, ValidationError } from "@effect/cli"
import type { FileSystem, Path, Terminal } from "@effect/platform"
import { Cause, Console, Effect, Option } from "effect"
import { executableName, programName } from "./ProgramName.js"
import { defaultCasesFile, defaultSurfacesFile } from "./Runner/GoldenSet.js"
import type { ProtocolName } from "./Schema/Surface.js"
import { type CommandError, exitCodeOf, isCommandError, UsageError } from "./Schema/Errors.js"
import { inert, inertLines } from "./Schema/Inert.js"
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
    "Grade the turns in OpenTelemetry traces: an OTLP JSON file, or a folder of .json/.jsonl files; repeat --otel for each further file or folder (--otel a.json --otel b.json). See docs/otel.md."
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
    "The session cookie of the app. Prefer the EVAL_COOKIE environment variable: arguments are visible to other users. An app signed in by a header instead takes EVAL_AUTH_HEADER='Authorization: Bearer …' (or 'x-api-key: …')."
  )
)
const keepOption = Options.boolean("keep").pipe(
  Options.withDescription("Leave each live conversation in the account and print its id, for the turn inspector.")
)
const timeoutOption = Options.float("timeout").pipe(
  Options.withPseudoName("SECONDS"),
  Options.withDefault(120),
  Options.withDescription(
    "Bounds one live case's whole wall time: the ask (with its grace to name the conversation when cut short), the reads and every retry. Deleting the conversation afterwards has a bound of its own, the same at most 30 s."
  )
)
const cleanupTimeoutOption = Options.float("timeout").pipe(
  Options.withPseudoName("SECONDS"),
  Options.withDefault(30),
  Options.withDescription("Bounds each delete, retries included.")
)
const recordOption = Options.text("record").pipe(
  Options.withPseudoName("DIR"),
  Options.optional,
  Options.withDescription("Also write every obtained turn as a recorded turn, to replay with --fixtures DIR.")
)
const jsonOption = Options.text("json").pipe(
  Options.withPseudoName("FILE"),
  Options.optional,
  Options.withDescription("Also write the results file (JSON, version 1) here: the same as --reporter json=FILE.")
)
const reporterOption = Options.text("reporter").pipe(
  Options.withPseudoName("NAME[:OPTION][=FILE]"),
  Options.repeated,
  Options.withDescription(
    "Report the results with pretty (the default), json, junit, github, markdown or html (repeatable), each to standard output or to FILE; html is one self-contained page to open in a browser; junit:file-attribute also writes each testcase's file attribute (GitLab shows it; the Jenkins and Ant schemas reject it); e.g. --reporter pretty --reporter junit=report.xml --reporter github"
  )
)
const repeatOption = Options.integer("repeat").pipe(
  Options.withPseudoName("K"),
  Options.withDefault(1),
  Options.withDescription(
    "Ask every case K times, each in a conversation of its own; a case passes only if all K pass (pass^k), and cases that pass some attempts are listed as flaky. The floor holds only runs of the K it was set at."
  )
)
const runShardOption = Options.text("shard").pipe(
  Options.withPseudoName("i/n"),
  Options.optional,
  Options.withDescription(
    `Run only part i of n of the golden set (stable, by case id), so n machines share it; ${programName} merge joins the parts' --json results.`
  )
)
const compareOption = Options.text("compare").pipe(
  Options.withPseudoName("OLD.json"),
  Options.optional,
  Options.withDescription("Also show what changed since the results in OLD.json: regressions with their facts, fixes, new and removed cases.")
)
const allowDifferentSetsOption = Options.boolean("allow-different-sets").pipe(
  Options.withDescription("Compare runs over different case sets (an edited, filtered or sharded golden set) case by case.")
)
const bailOption = Options.integer("bail").pipe(
  Options.withPseudoName("N"),
  Options.optional,
  Options.withDescription(
    "Stop starting cases after N cases failed; the cases in flight finish and their conversations are deleted. The run is then partial: --check exits 1, --ratchet refuses, and the results say \"bailed\": true."
  )
)
const silentOption = Options.boolean("silent").pipe(
  Options.withDescription(
    "Print nothing while the run goes: no line per case as it finishes (off a terminal) and no progress line (on one); the reports come at the end as usual."
  )
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
  Options.withDescription(`The results file of a full run (\`${programName} run --json\`).`)
)
const surfaceOption = Options.text("surface").pipe(
  Options.withPseudoName("NAME"),
  Options.withDescription("The surface whose turns are audited; turns of other surfaces are skipped.")
)
const expectOption = Options.text("expect").pipe(
  Options.withPseudoName("KIND[=ARG]"),
  Options.repeated,
  Options.withDescription(
    "An invariant every turn must hold (repeatable): cites-only-surfaced, never-calls=deploy, answer-excludes=rm -rf, calls-at-most=3, calls-in-order=read_config,propose_change, …"
  )
)
const expectJsonOption = Options.text("expect-json").pipe(
  Options.withPseudoName("JSON"),
  Options.repeated,
  Options.withDescription(
    `An invariant of any kind, written as in a cases file (repeatable): '{"kind": "calls-tool", "tool": "catalog", "with": {"service": "payments-api"}}'.`
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
const flakyOption = Options.float("flaky").pipe(
  Options.withPseudoName("RATE"),
  Options.withDefault(0),
  Options.withDescription(
    "The fraction of questions answered differently from one ask to the next (every second ask also cites a page from memory), to try --repeat on."
  )
)
const appUrlOption = Options.text("base-url").pipe(
  Options.withPseudoName("URL"),
  Options.withDescription("The app at this URL (a path in it prefixes every route), read as the signed-in user.")
)
const turnOption = Options.text("turn").pipe(
  Options.withPseudoName("TURN-ID"),
  Options.withDescription(`The rated turn to draft a case from (${programName} candidates lists them).`)
)
const draftFixturesOption = Options.text("fixtures").pipe(
  Options.withPseudoName("DIR"),
  Options.withDefault("cases/fixtures"),
  Options.withDescription("Where --append records the rated turn, as <case id>.json.")
)
const idOption = Options.text("id").pipe(
  Options.withPseudoName("CASE-ID"),
  Options.optional,
  Options.withDescription("The new case's id (default: the surface and the question's words).")
)
const appendOption = Options.boolean("append").pipe(
  Options.withDescription(
    "Check the draft against the catalog, add it to the golden set and record the rated turn. Without it nothing is written."
  )
)

const seedRatingsOption = Options.boolean("seed-ratings").pipe(
  Options.withDescription(
    `Start with a rated-down turn per known flaw of the stand-in, to try ${programName} candidates and ${programName} propose on.`
  )
)

// Written out rather than imported, so the command tree loads no schema; the record is exhaustive, so none is missed.
const protocolChoices: { readonly [P in ProtocolName]: null } = { "turn-eval": null, "ai-sdk": null, langgraph: null, "ag-ui": null }
const protocolOption = Options.choice("protocol", Object.keys(protocolChoices) as Array<ProtocolName>).pipe(
  Options.optional,
  Options.withDescription(
    "The wire format to serve every surface over (default: each surface's own protocol in the catalog): turn-eval (this product's routes), ai-sdk (the AI SDK's UI message stream at the surface's endpoint, chats deleted by its delete route), langgraph (LangGraph Server's /threads routes, the surface's assistantId or name as the assistant) or ag-ui (AG-UI events at the surface's endpoint, nothing kept). Faults map onto each: ask is the request that asks (on langgraph the run, and for id= the thread's creation), conversation and trace langgraph's thread and state reads, delete the delete route; id= needs turn-eval or langgraph, opened= anything but ag-ui."
  )
)

const faultOption = Options.text("fault").pipe(
  Options.withPseudoName("ROUTE:FAULT[@RATE]"),
  Options.repeated,
  Options.withDescription(
    "Inject a fault (repeatable): ROUTE ask, conversation, trace, delete or ratings; FAULT an HTTP status (503, 503/2 with Retry-After), hang, reset, not-json, wrong-shape, huge, redirect=ORIGIN, or on the ask opened=STATUS (opens the conversation, then fails naming it) or id=ID (names it by another id, such as ..); RATE the fraction of questions hit."
  )
)

// ---------------------------------------------------------------------------------------------------
// Handlers, loaded when their command runs: `--help` and `validate` start without the HTTP client
// or the stand-in.

/** A command's handler, loaded from its module when the command runs. */
const lazy = <M, A, B, E, R>(
  load: () => Promise<M>,
  pick: (module: M) => (args: A) => Effect.Effect<B, E, R>
) =>
(args: A): Effect.Effect<B, E, R> => Effect.flatMap(Effect.promise(load), (module) => pick(module)(args))

const runHandler = lazy(() => import("./Commands/Run.js"), (m) => m.runHandler)
const validateHandler = lazy(() => import("./Commands/Validate.js"), (m) => m.validateHandler)
const ratchetHandler = lazy(() => import("./Commands/Ratchet.js"), (m) => m.ratchetHandler)
const standInHandler = lazy(() => import("./Commands/StandIn.js"), (m) => m.standInHandler)
const importHandler = lazy(() => import("./Commands/Import.js"), (m) => m.importHandler)
const auditHandler = lazy(() => import("./Commands/Audit.js"), (m) => m.auditHandler)
const mergeHandler = lazy(() => import("./Commands/Merge.js"), (m) => m.mergeHandler)
const reportHandler = lazy(() => import("./Commands/ReportCommand.js"), (m) => m.reportHandler)
const diffHandler = lazy(() => import("./Commands/Diff.js"), (m) => m.diffHandler)
const demoHandler = lazy(() => import("./Commands/StandIn.js"), (m) => m.demoHandler)
const candidatesHandler = lazy(() => import("./Commands/Propose.js"), (m) => m.candidatesHandler)
const proposeHandler = lazy(() => import("./Commands/Propose.js"), (m) => m.proposeHandler)
const cleanupHandler = lazy(() => import("./Commands/Cleanup.js"), (m) => m.cleanupHandler)
const initHandler = lazy(() => import("./Commands/Init.js"), (m) => m.initHandler)

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
  concurrency: concurrencyOption,
  repeat: repeatOption,
  shard: runShardOption,
  reporter: reporterOption,
  compare: compareOption,
  allowDifferentSets: allowDifferentSetsOption,
  bail: bailOption,
  silent: silentOption
}, runHandler).pipe(
  Command.withDescription(
    `Grade every case's turn and print the scorecard. Example: ${programName} run --fixtures cases/fixtures --check, or live: EVAL_COOKIE='session=…' ${programName} run --base-url http://127.0.0.1:5173 --check`
  )
)

const validateCommand = Command.make("validate", {
  cases: casesOption,
  surfaces: surfacesOption,
  baseline: baselineOption
}, validateHandler).pipe(
  Command.withDescription(`Check the catalog, the golden set against it, and the baseline. Example: ${programName} validate`)
)

const ratchetCommand = Command.make("ratchet", {
  from: fromOption,
  cases: casesOption,
  surfaces: surfacesOption,
  baseline: baselineOption
}, ratchetHandler).pipe(
  Command.withDescription(
    `Raise the floor to the pass rate a full run achieved; never lower it. Example: ${programName} ratchet --from results.json`
  )
)

const mergeCommand = Command.make("merge", {
  files: Args.text({ name: "SHARD.json" }).pipe(
    Args.atLeast(1),
    Args.withDescription(`The results of every shard of one run (${programName} run --shard i/n --json FILE).`)
  ),
  cases: casesOption,
  surfaces: surfacesOption,
  baseline: baselineOption,
  check: checkOption,
  ratchet: ratchetOption,
  reporter: reporterOption,
  json: jsonOption
}, mergeHandler).pipe(
  Command.withDescription(
    `Join the results of a sharded run into the results of the whole golden set, then hold the floor; refuses overlapping or missing shards. Example: ${programName} merge shard-*.json --check --reporter junit=report.xml`
  )
)

const reportCommand = Command.make("report", {
  results: Args.text({ name: "RESULTS.json" }).pipe(
    Args.withDescription(`A results file written earlier (${programName} run --json FILE, or merge --json FILE), version 1 or 2.`)
  ),
  reporter: reporterOption,
  compare: compareOption,
  allowDifferentSets: allowDifferentSetsOption,
  baseline: Options.text("baseline").pipe(
    Options.withPseudoName("FILE"),
    Options.withDefault(defaultBaselineFile),
    Options.withDescription("The baseline whose history of the floor the reports show; it need not exist.")
  ),
  cases: Options.text("cases").pipe(
    Options.withPseudoName("FILE"),
    Options.withDefault(defaultCasesFile),
    Options.withDescription(
      "The golden-set file the GitHub annotations point into (each case on its line) and junit:file-attribute names; it need not exist."
    )
  )
}, reportHandler).pipe(
  Command.withDescription(
    `Write any report of a results file written earlier, running nothing: the same reporters as run (--reporter, repeatable), the changes since an earlier run (--compare) and the floor's history from the baseline. Example: ${programName} report results.json --reporter junit=reports/eval.xml --reporter markdown=reports/summary.md`
  )
)

const diffCommand = Command.make("diff", {
  older: Args.text({ name: "OLD.json" }).pipe(Args.withDescription("The earlier run's results file.")),
  newer: Args.text({ name: "NEW.json" }).pipe(Args.withDescription("The later run's results file.")),
  check: Options.boolean("check").pipe(Options.withDescription("Exit 1 when a case that passed in OLD fails in NEW.")),
  allowDifferentSets: allowDifferentSetsOption,
  format: Options.choice("format", ["pretty", "markdown", "json"]).pipe(
    Options.withDefault("pretty"),
    Options.withDescription("How to print the diff: pretty (the default), markdown (for a pull-request comment) or json.")
  )
}, diffHandler).pipe(
  Command.withDescription(
    `Show what changed between two runs: regressions with their facts, fixes, new and removed cases, the pass-rate change. Example: ${programName} diff main.json branch.json --check`
  )
)

const standInCommand = Command.make("standin", {
  cases: casesOption,
  surfaces: surfacesOption,
  host: hostOption,
  port: portOption,
  latency: latencyOption,
  maxConversations: maxConversationsOption,
  fault: faultOption,
  flaky: flakyOption,
  seedRatings: seedRatingsOption,
  protocol: protocolOption
}, standInHandler).pipe(
  Command.withDescription(
    `Serve the stand-in assistant (the catalog's surfaces, over the surface protocol) on loopback until stopped. Example: ${programName} standin --port 8787 --fault trace:503@0.2`
  )
)

const auditCommand = Command.make("audit", {
  surfaces: surfacesOption,
  surface: surfaceOption,
  expect: expectOption,
  expectJson: expectJsonOption,
  traces: tracesOption,
  shard: shardOption
}, auditHandler).pipe(
  Command.withDescription(
    `Grade every turn of JSON-lines exports against invariants, streaming; exit 1 on a violation. Example: ${programName} audit --surface docs --expect cites-only-surfaced --expect never-calls=deploy --traces turns.jsonl`
  )
)

const importCommand = Command.make("import", {
  otel: otelOption,
  out: outOption,
  cases: casesOption,
  surfaces: surfacesOption
}, importHandler).pipe(
  Command.withDescription(
    `Read OpenTelemetry traces (GenAI conventions, the AI SDK, OpenInference), link their turns to cases and write them as recorded turns; list the turns it could not link. Example: ${programName} import --otel traces.json --out cases/imported`
  )
)

const candidatesCommand = Command.make("candidates", {
  baseUrl: appUrlOption,
  cookie: cookieOption,
  surfaces: surfacesOption
}, candidatesHandler).pipe(
  Command.withDescription(
    `List the turns users rated thumbs-down in the app (turn, conversation, comment), to draft cases from. Example: EVAL_COOKIE='session=…' ${programName} candidates --base-url http://127.0.0.1:5173`
  )
)

const proposeCommand = Command.make("propose", {
  turn: turnOption,
  baseUrl: appUrlOption,
  cookie: cookieOption,
  cases: casesOption,
  surfaces: surfacesOption,
  fixtures: draftFixturesOption,
  id: idOption,
  append: appendOption
}, proposeHandler).pipe(
  Command.withDescription(
    `Draft a case from a thumbs-down turn: the facts it broke and held, marked as drafted; --append adds it to the golden set with the turn recorded. Example: ${programName} propose --turn turn_8f2 --base-url http://127.0.0.1:5173 --append`
  )
)

const cleanupCommand = Command.make("cleanup", {
  baseUrl: appUrlOption,
  cookie: cookieOption,
  timeout: cleanupTimeoutOption
}, cleanupHandler).pipe(
  Command.withDescription(
    `Delete the conversations earlier live runs left in the app (killed, quit at once, or whose delete failed), as recorded in the journal of this base URL and session, and list each id; exit 1 if any could not be deleted. Example: EVAL_COOKIE='session=…' ${programName} cleanup --base-url http://127.0.0.1:5173`
  )
)

const demoCommand = Command.make("demo", {
  cases: casesOption,
  surfaces: surfacesOption,
  baseline: baselineOption,
  concurrency: concurrencyOption
}, demoHandler).pipe(
  Command.withDescription(
    `Start the stand-in on an ephemeral port and run the golden set live against it with --check; a folder with no golden set gets the package's own. Example: ${programName} demo`
  )
)

const initCommand = Command.make("init", {}, initHandler).pipe(
  Command.withDescription(
    `Write a starter golden set, catalog, baseline, two recorded turns (one failing) and a GitHub Actions workflow into this folder, never overwriting a file, and print the next commands. Example: ${programName} init`
  )
)

/** The command tree under a root of this name: the name its usage lines and completions show. */
const rootCommand = (name: string) =>
  Command.make(name, {}, () =>
    Effect.fail(
      new UsageError({
        message:
          `name a command: init, run, validate, ratchet, merge, report, diff, audit, import, candidates, propose, cleanup, standin or demo (${programName} --help lists them)`
      })
    )).pipe(
      Command.withDescription("A deterministic regression suite for AI assistants: grade recorded turns against a golden set."),
      Command.withSubcommands([
        initCommand,
        runCommand,
        validateCommand,
        ratchetCommand,
        mergeCommand,
        reportCommand,
        diffCommand,
        auditCommand,
        importCommand,
        candidatesCommand,
        proposeCommand,
        cleanupCommand,
        standInCommand,
        demoCommand
      ])
    )

/**
 * The CLI for `argv`. Help and usage lines name the program as the user invoked it; a completion
 * script registers the bin, the one word a shell can complete (`npm run eval --` is not one).
 */
const cliFor = (argv: ReadonlyArray<string>) => {
  const name = argv.includes("--completions") ? executableName : programName
  return Command.run(rootCommand(name), { name, version, executable: executableName })(argv)
}

// ---------------------------------------------------------------------------------------------------
// Exit codes

/** The exit code a command's end maps to, printing what the user must read on stderr. */
const finish = (cause: Cause.Cause<unknown>): Effect.Effect<number> => {
  if (Cause.isInterruptedOnly(cause)) return Effect.succeed(130)
  const failure = Cause.failureOption(cause)
  if (Option.isSome(failure) && ValidationError.isValidationError(failure.value)) return Effect.succeed(2)
  if (Option.isSome(failure) && isCommandError(failure.value)) return reportEnd(failure.value)
  const squashed = Cause.squash(cause)
  const message = squashed instanceof Error ? squashed.message : String(squashed)
  return Effect.as(Console.error(`internal error: ${inert(message.length > 2000 ? `${message.slice(0, 2000)}…` : message)}`), 70)
}

/**
 * Says what the user must read of how a command ended — nothing for a failed gate, whose report said
 * it — and gives its exit code. Messages quote what the user and the app wrote: nothing in them may
 * start a line of its own.
 */
const reportEnd = (error: CommandError): Effect.Effect<number> => {
  const code = exitCodeOf(error)
  if (error._tag === "GateFailed") return Effect.succeed(code)
  const text = error._tag === "BadInput" ? inertLines(error.message) : `error: ${inertLines(error.message)}`
  return Effect.as(Console.error(text), code)
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
  cliFor(argv).pipe(
    Effect.as(0),
    Effect.catchAllCause(finish),
    (program) => useColor() ? program : Console.consoleWith((console) => Console.withConsole(program, plainConsole(console)))
  )
