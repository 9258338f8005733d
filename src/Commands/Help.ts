/**
 * `--help`, as a test runner's reads: the usage line runnable as printed, what the command does, its
 * flags grouped (where turns come from, which cases, the floor, output, live, the stand-in), one line
 * each with its own words and its default, and examples. Made from the flags' definitions
 * (`Flags.ts`) and the commands' words (`Descriptions.ts`); a flag whose definition opens with more than
 * a line of words says it here in short, and `docs/` say the rest.
 */
import { programName } from "../ProgramName.js"
import { commandWords } from "./Descriptions.js"
import { commandOptions, type Flag, flagsOf, type Positional, positionalsOf } from "./Flags.js"

/** The groups flags are listed in, in order, each with its flags. */
export const flagGroups: ReadonlyArray<readonly [string, ReadonlyArray<string>]> = [
  ["Where turns come from", ["--fixtures", "--base-url", "--otel", "--traces", "--from", "--turn"]],
  ["Which cases", [
    "--cases",
    "--surfaces",
    "--surface",
    "--filter",
    "--shard",
    "--repeat",
    "--expect",
    "--expect-json"
  ]],
  ["The floor", ["--baseline", "--check", "--ratchet", "--bail", "--allow-different-sets"]],
  ["Output", ["--json", "--reporter", "--compare", "--format", "--record", "--out", "--id", "--append", "--silent"]],
  ["Live", ["--cookie", "--keep", "--timeout", "--concurrency", "--forget"]],
  [
    "The stand-in",
    [
      "--host",
      "--port",
      "--latency",
      "--max-conversations",
      "--fault",
      "--flaky",
      "--miscarry",
      "--seed-ratings",
      "--protocol"
    ]
  ]
]

/** Short words for flags whose definition opens with more than a line (`docs/` and the README say the rest). */
const short: Readonly<Record<string, string>> = {
  "--otel": "Grade the turns in OpenTelemetry traces, a file or a folder (docs/otel.md)",
  "--base-url": "Grade live turns from the app at this URL",
  "--reporter": "pretty, json, junit, github, markdown or html, to stdout or =FILE",
  "--compare": "Also show what changed since the results in OLD.json",
  "--timeout": "Bounds one live case's whole wall time, every request and retry of it",
  "--concurrency": "Cases obtained at once (4 for a live app; 1 for recorded turns)",
  "--repeat": "Ask every case K times; a case passes only if all K pass (pass^k)",
  "--shard": "Run only part i of n of the golden set, by case id (merge joins the parts)",
  "--bail": "Stop starting cases after N cases failed",
  "--silent": "Print nothing while the run goes, only the scorecard",
  "--filter": "Run only the cases with this id or tag",
  "--allow-different-sets": "Compare runs over different case sets, case by case",
  "--format": "How to print the diff: pretty, markdown or json",
  "--expect": "An invariant every turn must hold, such as never-calls=deploy",
  "--expect-json": "An invariant of any kind, as a cases file writes it: '{\"kind\": \"calls-tool\", …}'",
  "--forget": "Drop from the journal what could not be cleaned up",
  "--fault": "Inject a fault, such as trace:503@0.2 (docs/protocol.md)",
  "--traces": "JSON lines, a recorded turn per line (- reads standard input)",
  "--flaky": "The fraction of questions answered differently from one ask to the next",
  "--miscarry": "Carry out every decision on a proposal wrongly",
  "--seed-ratings": "Start with a rated-down turn per known flaw of the stand-in",
  "--protocol": "The wire format every surface is served over (default: each surface's own)",
  "--cookie": "The session cookie (prefer EVAL_COOKIE; or EVAL_AUTH_HEADER for a header)",
  "--keep": "Leave each live conversation in the account and print its id",
  "--record": "Also write every obtained turn as a recorded turn, to replay with --fixtures DIR",
  "--json": "Also write the results file (JSON) here: the same as --reporter json=FILE",
  "--cases": "The golden set",
  "--surfaces": "The surface catalog",
  "--baseline": "The committed floor"
}

/** The widest a help line is. */
const columns = 100

/** Text wrapped at word boundaries to `columns`, every line after the first indented by `indent`. */
export const wrapped = (text: string, indent: number, first = indent): string => {
  const lines: Array<string> = []
  let line = ""
  for (const word of text.split(/\s+/).filter((w) => w !== "")) {
    const room = columns - (lines.length === 0 ? first : indent)
    if (line !== "" && line.length + 1 + word.length > room) {
      lines.push(line)
      line = word
    } else line = line === "" ? word : `${line} ${word}`
  }
  lines.push(line)
  return lines.join(`\n${" ".repeat(indent)}`)
}

/** The first sentence of a definition's words, without its full stop. */
const firstSentence = (text: string): string => {
  const end = /\.(?:\s|$)/.exec(text)
  return (end === null ? text : text.slice(0, end.index)).trim()
}

/** A flag as its line names it: `--cases FILE`, `--otel FILE…` for one that repeats. */
const flagName = (flag: Flag): string => {
  const argument = flag.argument ?? (flag.choices !== undefined ? "NAME" : undefined)
  return `${flag.name}${argument === undefined ? "" : ` ${argument}`}${flag.repeatable ? " …" : ""}`
}

/** What a flag's line says: its words, and its default or the choices it takes. */
const flagWords = (command: string, flag: Flag): string => {
  const own = command === "report" && flag.name === "--cases"
    ? "The golden set the annotations point into"
    : short[flag.name] ?? firstSentence(flag.description)
  const after = flag.default !== undefined
    ? ` (default: ${flag.default})`
    : flag.choices !== undefined && !own.includes(flag.choices[0]!)
    ? ` (${flag.choices.join(", ")})`
    : ""
  return `${own}${after}${flag.repeatable ? "; repeatable" : ""}`
}

/** The usage line, runnable as printed: the command, its positional arguments, then `[options]`. */
const usageOf = (command: string, positionals: ReadonlyArray<Positional>): string =>
  [
    programName,
    command,
    ...positionals.map((p) => p.repeatable ? `${p.name}…` : p.name),
    "[options]"
  ].join(" ")

/** The help of one command. */
export const commandHelp = (command: string): string => {
  const options = commandOptions.find(([name]) => name === command)?.[1] ?? {}
  const flags = flagsOf(options)
  const positionals = positionalsOf(options)
  const words = commandWords[command]!
  const lines = [`Usage: ${usageOf(command, positionals)}`, "", wrapped(words.summary, 0)]
  if (positionals.length > 0) {
    lines.push("", "Arguments")
    const width = Math.max(...positionals.map((p) => p.name.length))
    for (const p of positionals) {
      lines.push(`  ${p.name.padEnd(width)}  ${wrapped(firstSentence(p.description), width + 4)}`)
    }
  }
  // A flag named at more length than the column has its words on the line below.
  const width = Math.min(22, Math.max(0, ...flags.map((f) => flagName(f).length)))
  for (const [title, names] of flagGroups) {
    const inGroup = names.flatMap((name) => flags.filter((f) => f.name === name))
    if (inGroup.length === 0) continue
    lines.push("", title)
    for (const flag of inGroup) {
      const name = flagName(flag)
      const said = wrapped(flagWords(command, flag), width + 4)
      if (name.length > width) lines.push(`  ${name}`, `  ${" ".repeat(width)}  ${said}`)
      else lines.push(`  ${name.padEnd(width)}  ${said}`)
    }
  }
  lines.push("", "Examples", ...words.examples.map((e) => `  ${wrapped(e, 4, 2)}`))
  return lines.join("\n")
}

/** The help of the program: the commands, each with its summary's first sentence. */
export const programHelp = (version: string): string => {
  const width = Math.max(...commandOptions.map(([name]) => name.length))
  return [
    `${programName} ${version}: a deterministic regression suite for AI assistants`,
    "",
    `Usage: ${programName} <command> [options]`,
    "",
    "Commands",
    ...commandOptions.map(([name]) => `  ${name.padEnd(width)}  ${commandWords[name]!.brief}`),
    "",
    `${programName} <command> --help shows a command's options; ${programName} --version its version.`
  ].join("\n")
}

/**
 * The help a command line asks for (`--help` or `-h` anywhere before `--`), or nothing: a command's,
 * or the program's when it names no command.
 */
export const helpFor = (args: ReadonlyArray<string>, version: string): string | undefined => {
  const end = args.indexOf("--")
  const asked = (end === -1 ? args : args.slice(0, end)).some((a) => a === "--help" || a === "-h")
  if (!asked) return undefined
  const command = args[0]
  return command !== undefined && commandOptions.some(([name]) => name === command)
    ? commandHelp(command)
    : programHelp(version)
}
