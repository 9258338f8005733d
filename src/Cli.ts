/**
 * The command tree — `init`, `run`, `validate`, `ratchet`, `merge`, `report`, `diff`, `audit`,
 * `import`, `candidates`, `propose`, `cleanup`, `standin`, `demo` — and the mapping of how a command
 * ended to its exit code: 0 done, 1 a gate failed (below the floor, a violation, a regression) or a
 * cleanup left conversations, 2 bad input or usage (or a rejected session), 70 internal error. Each
 * command's flags are in `Commands/Options.ts`; its handler, loaded when it runs, in `Commands/`.
 */
import { Command, ValidationError } from "@effect/cli"
import type { FileSystem, Path, Terminal } from "@effect/platform"
import { Cause, Console, Effect, Option } from "effect"
import { describedAs } from "./Commands/Descriptions.js"
import { commandLineProblem } from "./Commands/Flags.js"
import { helpFor } from "./Commands/Help.js"
import {
  auditOptions,
  candidatesOptions,
  cleanupOptions,
  demoOptions,
  diffOptions,
  importOptions,
  mergeOptions,
  proposeOptions,
  ratchetOptions,
  reportOptions,
  runOptions,
  standInOptions,
  validateOptions
} from "./Commands/Options.js"
import { executableName, programName } from "./ProgramName.js"
import { type CommandError, exitCodeOf, isCommandError, UsageError } from "./Schema/Errors.js"
import { inert, inertLines } from "./Schema/Inert.js"
import { useColor } from "./Terminal.js"

/** The version the CLI reports. */
export const version = "0.1.0"

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
const reportHandler = lazy(() => import("./Commands/Report.js"), (m) => m.reportHandler)
const diffHandler = lazy(() => import("./Commands/Diff.js"), (m) => m.diffHandler)
const demoHandler = lazy(() => import("./Commands/StandIn.js"), (m) => m.demoHandler)
const candidatesHandler = lazy(() => import("./Commands/Propose.js"), (m) => m.candidatesHandler)
const proposeHandler = lazy(() => import("./Commands/Propose.js"), (m) => m.proposeHandler)
const cleanupHandler = lazy(() => import("./Commands/Cleanup.js"), (m) => m.cleanupHandler)
const initHandler = lazy(() => import("./Commands/Init.js"), (m) => m.initHandler)

// ---------------------------------------------------------------------------------------------------
// Commands

const runCommand = Command.make("run", runOptions, runHandler).pipe(
  Command.withDescription(describedAs("run"))
)

const validateCommand = Command.make("validate", validateOptions, validateHandler).pipe(
  Command.withDescription(describedAs("validate"))
)

const ratchetCommand = Command.make("ratchet", ratchetOptions, ratchetHandler).pipe(
  Command.withDescription(describedAs("ratchet"))
)

const mergeCommand = Command.make("merge", mergeOptions, mergeHandler).pipe(
  Command.withDescription(describedAs("merge"))
)

const reportCommand = Command.make("report", reportOptions, reportHandler).pipe(
  Command.withDescription(describedAs("report"))
)

const diffCommand = Command.make("diff", diffOptions, diffHandler).pipe(
  Command.withDescription(describedAs("diff"))
)

const standInCommand = Command.make("standin", standInOptions, standInHandler).pipe(
  Command.withDescription(describedAs("standin"))
)

const auditCommand = Command.make("audit", auditOptions, auditHandler).pipe(
  Command.withDescription(describedAs("audit"))
)

const importCommand = Command.make("import", importOptions, importHandler).pipe(
  Command.withDescription(describedAs("import"))
)

const candidatesCommand = Command.make("candidates", candidatesOptions, candidatesHandler).pipe(
  Command.withDescription(describedAs("candidates"))
)

const proposeCommand = Command.make("propose", proposeOptions, proposeHandler).pipe(
  Command.withDescription(describedAs("propose"))
)

const cleanupCommand = Command.make("cleanup", cleanupOptions, cleanupHandler).pipe(
  Command.withDescription(describedAs("cleanup"))
)

const demoCommand = Command.make("demo", demoOptions, demoHandler).pipe(
  Command.withDescription(describedAs("demo"))
)

const initCommand = Command.make("init", {}, initHandler).pipe(
  Command.withDescription(describedAs("init"))
)

/** The command tree under a root of this name: the name its usage lines and completions show. */
const rootCommand = (name: string) =>
  Command.make(name, {}, () =>
    Effect.fail(
      new UsageError({
        message:
          `name a command: init, run, validate, ratchet, merge, report, diff, audit, import, candidates, propose, ` +
          `cleanup, standin or demo (${programName} --help lists them)`
      })
    )).pipe(
      Command.withDescription(
        "A deterministic regression suite for AI assistants: grade recorded turns against a golden set."
      ),
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
  return Effect.as(
    Console.error(`internal error: ${inert(message.length > 2000 ? `${message.slice(0, 2000)}…` : message)}`),
    70
  )
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
  Effect.suspend(() => {
    const args = argv.slice(2)
    // --help is this product's own: each flag on a line of its own words, grouped.
    const help = args.includes("--completions") || args.includes("--wizard") ? undefined : helpFor(args, version)
    if (help !== undefined) return Console.log(help)
    // A misspelt flag or a value of the wrong type is refused in one line that names it, before parsing.
    const problem = commandLineProblem(args)
    return problem === undefined ? cliFor(argv) : Effect.fail(new UsageError({ message: problem }))
  }).pipe(
    Effect.as(0),
    Effect.catchAllCause(finish),
    (program) =>
      useColor() ? program : Console.consoleWith((console) => Console.withConsole(program, plainConsole(console)))
  )
