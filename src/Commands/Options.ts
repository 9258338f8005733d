/**
 * The options and arguments of every command, each flag defined once and reused by every command
 * that takes it (a command says in its own words what it does with a shared flag), and each command's
 * record of them, from which the type of its handler's arguments is derived. Imported by the command
 * tree, and by the handlers for those types alone: nothing here runs a command.
 */
import { Args, type Command, Options } from "@effect/cli"
import { programName } from "../ProgramName.js"
import { defaultBaselineFile, defaultCasesFile, defaultSurfacesFile } from "../ProjectFiles.js"
import { protocolNames } from "../Protocols/Registry.js"
import { reportersHelp } from "../Reporters/Reporters.js"
import { miscarriages } from "../StandIn/Miscarriages.js"

// ---------------------------------------------------------------------------------------------------
// The flags

/** `--cases FILE`: the golden set, said by each command for what it does with it. */
const cases = (description: string) =>
  Options.text("cases").pipe(
    Options.withPseudoName("FILE"),
    Options.withDefault(defaultCasesFile),
    Options.withDescription(description)
  )
const casesOption = cases("The golden set: a cases file, version 1.")
const surfacesOption = Options.text("surfaces").pipe(
  Options.withPseudoName("FILE"),
  Options.withDefault(defaultSurfacesFile),
  Options.withDescription("The surface catalog the cases are checked against.")
)
/** `--baseline FILE`: the committed floor. */
const baseline = (description: string) =>
  Options.text("baseline").pipe(
    Options.withPseudoName("FILE"),
    Options.withDefault(defaultBaselineFile),
    Options.withDescription(description)
  )
const baselineOption = baseline("The committed floor the pass rate must hold.")
/** `--fixtures DIR`: a folder of recorded turns, one `<case id>.json` per case. */
const fixtures = Options.text("fixtures").pipe(Options.withPseudoName("DIR"))
const fixturesOption = fixtures.pipe(
  Options.optional,
  Options.withDescription("Grade recorded turns offline: a folder of <case id>.json files.")
)
/** `--base-url URL`: a live app. */
const baseUrl = Options.text("base-url").pipe(Options.withPseudoName("URL"))
const baseUrlOption = baseUrl.pipe(
  Options.optional,
  Options.withDescription("Grade live turns from the app at this URL (a path in it prefixes every route).")
)
const otelOption = Options.text("otel").pipe(
  Options.withPseudoName("FILE"),
  Options.repeated,
  Options.withDescription(
    "Grade the turns in OpenTelemetry traces: an OTLP JSON file, or a folder of .json/.jsonl files; repeat --otel for " +
      "each further file or folder (--otel a.json --otel b.json). See docs/otel.md."
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
    "The session cookie of the app. Prefer the EVAL_COOKIE environment variable: arguments are visible to other " +
      "users. An app signed in by a header instead takes EVAL_AUTH_HEADER='Authorization: Bearer …' (or 'x-api-key: …')."
  )
)
const keepOption = Options.boolean("keep").pipe(
  Options.withDescription("Leave each live conversation in the account and print its id, for the turn inspector.")
)
/** `--timeout SECONDS`: what it bounds, and its default. */
const timeout = (seconds: number, description: string) =>
  Options.float("timeout").pipe(
    Options.withPseudoName("SECONDS"),
    Options.withDefault(seconds),
    Options.withDescription(description)
  )
const timeoutOption = timeout(
  120,
  "Bounds one live case's whole wall time: the ask (with its grace to name the conversation when cut short), the " +
    "reads and every retry. Deleting the conversation afterwards has a bound of its own, the same at most 30 s."
)
const cleanupTimeoutOption = timeout(30, "Bounds each delete, retries included.")
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
const reported = reportersHelp()
const reporterOption = Options.text("reporter").pipe(
  Options.withPseudoName("NAME[:OPTION][=FILE]"),
  Options.repeated,
  Options.withDescription(
    [
      `Report the results with ${reported.names} (repeatable), each to standard output or to FILE`,
      ...reported.notes,
      "e.g. --reporter pretty --reporter junit=report.xml --reporter github"
    ].join("; ")
  )
)
const repeatOption = Options.integer("repeat").pipe(
  Options.withPseudoName("K"),
  Options.withDefault(1),
  Options.withDescription(
    "Ask every case K times, each in a conversation of its own; a case passes only if all K pass (pass^k), and cases " +
      "that pass some attempts are listed as flaky. The floor holds only runs of the K it was set at."
  )
)
/** `--shard i/n`: part i of n of what the command goes through, so n machines share it. */
const shard = (description: string) =>
  Options.text("shard").pipe(Options.withPseudoName("i/n"), Options.optional, Options.withDescription(description))
const runShardOption = shard(
  `Run only part i of n of the golden set (stable, by case id), so n machines share it; ${programName} merge joins ` +
    `the parts' --json results.`
)
const compareOption = Options.text("compare").pipe(
  Options.withPseudoName("OLD.json"),
  Options.optional,
  Options.withDescription(
    "Also show what changed since the results in OLD.json: regressions with their facts, fixes, new and removed cases."
  )
)
const allowDifferentSetsOption = Options.boolean("allow-different-sets").pipe(
  Options.withDescription(
    "Compare runs over different case sets (an edited, filtered or sharded golden set) case by case."
  )
)
const bailOption = Options.integer("bail").pipe(
  Options.withPseudoName("N"),
  Options.optional,
  Options.withDescription(
    "Stop starting cases after N cases failed; the cases in flight finish and their conversations are deleted. The " +
      "run is then partial: --check exits 1, --ratchet refuses, and the results say \"bailed\": true."
  )
)
const silentOption = Options.boolean("silent").pipe(
  Options.withDescription(
    "Print nothing while the run goes: no line per case as it finishes (off a terminal) and no progress line (on " +
      "one); the reports come at the end as usual."
  )
)
/** `--check`: the gate, exit 1 when it fails. */
const check = (description: string) => Options.boolean("check").pipe(Options.withDescription(description))
const checkOption = check("Exit 1 when the pass rate is below the committed floor.")
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
    "An invariant every turn must hold (repeatable): cites-only-surfaced, never-calls=deploy, answer-excludes=rm -rf, " +
      "calls-at-most=3, calls-in-order=read_config,propose_change, …"
  )
)
const expectJsonOption = Options.text("expect-json").pipe(
  Options.withPseudoName("JSON"),
  Options.repeated,
  Options.withDescription(
    `An invariant of any kind, written as in a cases file (repeatable): '{"kind": "calls-tool", "tool": "catalog", ` +
      `"with": {"service": "payments-api"}}'.`
  )
)
const tracesOption = Options.text("traces").pipe(
  Options.withPseudoName("FILE.jsonl"),
  Options.repeated,
  Options.withDescription("JSON lines, a recorded turn per line (repeatable; - reads standard input).")
)
const auditShardOption = shard("Audit only part i of n of the turns (by turn id), so n machines share an archive.")
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
    "The fraction of questions answered differently from one ask to the next (every second ask also cites a page from " +
      "memory), to try --repeat on."
  )
)
const miscarryOption = Options.choice("miscarry", miscarriages).pipe(
  Options.withPseudoName("HOW"),
  Options.optional,
  Options.withDescription(
    "Carry out every decision on a proposal wrongly, to see runs-as-proposed and never-calls fail: another-input, " +
      "twice, not-run, also-gated (another gated tool as well) or after-denial."
  )
)
const appUrlOption = baseUrl.pipe(
  Options.withDescription("The app at this URL (a path in it prefixes every route), read as the signed-in user.")
)
const turnOption = Options.text("turn").pipe(
  Options.withPseudoName("TURN-ID"),
  Options.withDescription(`The rated turn to draft a case from (${programName} candidates lists them).`)
)
const draftFixturesOption = fixtures.pipe(
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

// The registry is only the protocols' definitions: their clients and wires load when they are used.
const protocolOption = Options.choice("protocol", protocolNames).pipe(
  Options.optional,
  Options.withDescription(
    "The wire format to serve every surface over (default: each surface's own protocol in the catalog): turn-eval " +
      "(this product's routes), ai-sdk (the AI SDK's UI message stream at the surface's endpoint, chats deleted by " +
      "its delete route), langgraph (LangGraph Server's /threads routes, the surface's assistantId or name as the " +
      "assistant) or ag-ui (AG-UI events at the surface's endpoint, nothing kept). Faults map onto each: ask is the " +
      "request that asks (on langgraph the run, and for id= the thread's creation), conversation and trace " +
      "langgraph's thread and state reads, delete the delete route; id= needs turn-eval or langgraph, opened= anything but ag-ui."
  )
)

const faultOption = Options.text("fault").pipe(
  Options.withPseudoName("ROUTE:FAULT[@RATE]"),
  Options.repeated,
  Options.withDescription(
    "Inject a fault (repeatable): ROUTE ask, conversation, trace, delete or ratings; FAULT an HTTP status (503, 503/2 " +
      "with Retry-After), hang, reset, not-json, wrong-shape, huge, redirect=ORIGIN, or on the ask opened=STATUS " +
      "(opens the conversation, then fails naming it), id=ID (names it by another id, such as ..), reused-id (starts a " +
      "call again under an earlier call's id) or no-result (drops the first call's result); RATE the fraction of questions hit."
  )
)

// ---------------------------------------------------------------------------------------------------
// Each command's options and arguments, and the arguments its handler takes

/** `eval run`. */
export const runOptions = {
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
}
/** The arguments of `eval run`. */
export type RunArgs = Command.Command.ParseConfig<typeof runOptions>

/** `eval validate`. */
export const validateOptions = { cases: casesOption, surfaces: surfacesOption, baseline: baselineOption }
/** The arguments of `eval validate`. */
export type ValidateArgs = Command.Command.ParseConfig<typeof validateOptions>

/** `eval ratchet`. */
export const ratchetOptions = {
  from: fromOption,
  cases: casesOption,
  surfaces: surfacesOption,
  baseline: baselineOption
}
/** The arguments of `eval ratchet`. */
export type RatchetArgs = Command.Command.ParseConfig<typeof ratchetOptions>

/** `eval merge`. */
export const mergeOptions = {
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
}
/** The arguments of `eval merge`. */
export type MergeArgs = Command.Command.ParseConfig<typeof mergeOptions>

/** `eval report`. */
export const reportOptions = {
  results: Args.text({ name: "RESULTS.json" }).pipe(
    Args.withDescription(
      `A results file written earlier (${programName} run --json FILE, or merge --json FILE), version 1 or 2.`
    )
  ),
  reporter: reporterOption,
  compare: compareOption,
  allowDifferentSets: allowDifferentSetsOption,
  baseline: baseline("The baseline whose history of the floor the reports show; it need not exist."),
  cases: cases(
    "The golden-set file the GitHub annotations point into (each case on its line) and junit:file-attribute names; it need not exist."
  )
}
/** The arguments of `eval report`. */
export type ReportArgs = Command.Command.ParseConfig<typeof reportOptions>

/** `eval diff`. */
export const diffOptions = {
  older: Args.text({ name: "OLD.json" }).pipe(Args.withDescription("The earlier run's results file.")),
  newer: Args.text({ name: "NEW.json" }).pipe(Args.withDescription("The later run's results file.")),
  check: check("Exit 1 when a case that passed in OLD fails in NEW."),
  allowDifferentSets: allowDifferentSetsOption,
  format: Options.choice("format", ["pretty", "markdown", "json"]).pipe(
    Options.withDefault("pretty"),
    Options.withDescription(
      "How to print the diff: pretty (the default), markdown (for a pull-request comment) or json."
    )
  )
}
/** The arguments of `eval diff`. */
export type DiffArgs = Command.Command.ParseConfig<typeof diffOptions>

/** `eval standin`. */
export const standInOptions = {
  cases: casesOption,
  surfaces: surfacesOption,
  host: hostOption,
  port: portOption,
  latency: latencyOption,
  maxConversations: maxConversationsOption,
  fault: faultOption,
  flaky: flakyOption,
  miscarry: miscarryOption,
  seedRatings: seedRatingsOption,
  protocol: protocolOption
}
/** The arguments of `eval standin`. */
export type StandInArgs = Command.Command.ParseConfig<typeof standInOptions>

/** `eval audit`. */
export const auditOptions = {
  surfaces: surfacesOption,
  surface: surfaceOption,
  expect: expectOption,
  expectJson: expectJsonOption,
  traces: tracesOption,
  shard: auditShardOption
}
/** The arguments of `eval audit`. */
export type AuditArgs = Command.Command.ParseConfig<typeof auditOptions>

/** `eval import`. */
export const importOptions = { otel: otelOption, out: outOption, cases: casesOption, surfaces: surfacesOption }
/** The arguments of `eval import`. */
export type ImportArgs = Command.Command.ParseConfig<typeof importOptions>

/** `eval candidates`. */
export const candidatesOptions = { baseUrl: appUrlOption, cookie: cookieOption, surfaces: surfacesOption }
/** The arguments of `eval candidates`. */
export type CandidatesArgs = Command.Command.ParseConfig<typeof candidatesOptions>

/** `eval propose`. */
export const proposeOptions = {
  turn: turnOption,
  baseUrl: appUrlOption,
  cookie: cookieOption,
  cases: casesOption,
  surfaces: surfacesOption,
  fixtures: draftFixturesOption,
  id: idOption,
  append: appendOption
}
/** The arguments of `eval propose`. */
export type ProposeArgs = Command.Command.ParseConfig<typeof proposeOptions>

const forgetOption = Options.boolean("forget").pipe(
  Options.withDescription(
    "After trying, drop from the journal what could not be cleaned up (threads an app without a thread search " +
      "cannot find, conversations whose delete failed) and list each: once you have seen to them in the app."
  )
)

/** `eval cleanup`. */
export const cleanupOptions = {
  baseUrl: appUrlOption,
  cookie: cookieOption,
  timeout: cleanupTimeoutOption,
  forget: forgetOption
}
/** The arguments of `eval cleanup`. */
export type CleanupArgs = Command.Command.ParseConfig<typeof cleanupOptions>

/** `eval demo`. */
export const demoOptions = {
  cases: casesOption,
  surfaces: surfacesOption,
  baseline: baselineOption,
  concurrency: concurrencyOption
}
/** The arguments of `eval demo`. */
export type DemoArgs = Command.Command.ParseConfig<typeof demoOptions>
