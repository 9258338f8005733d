/**
 * What each command's flags are, read from their definitions (`Options.ts`): name, argument, type,
 * default and description. The command line is checked against them before @effect/cli parses it, so
 * that a misspelt flag, a flag without its value, a number that is none or a choice that is none of its
 * names is refused in one line that names the flag and suggests the nearest name.
 */
import { programName } from "../ProgramName.js"
import { didYouMean } from "../Words.js"
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
} from "./Options.js"

/** One flag of a command, as its definition says it. */
export interface Flag {
  /** `--cases`. */
  readonly name: string
  /** What its value is called (`FILE`), for a flag that takes one. */
  readonly argument?: string
  /** The value's type: `Text`, `Integer`, `Float`, `Bool`, `Choice`, `Redacted`, … */
  readonly type: string
  /** The names a choice takes. */
  readonly choices?: ReadonlyArray<string>
  /** Its default, shown as text; none when it has none worth showing. */
  readonly default?: string
  readonly repeatable: boolean
  /** What it does, in the definition's words. */
  readonly description: string
}

/** Every command and its options, in the order `--help` lists them. */
export const commandOptions: ReadonlyArray<readonly [string, Readonly<Record<string, unknown>>]> = [
  ["init", {}],
  ["run", runOptions],
  ["validate", validateOptions],
  ["ratchet", ratchetOptions],
  ["merge", mergeOptions],
  ["report", reportOptions],
  ["diff", diffOptions],
  ["audit", auditOptions],
  ["import", importOptions],
  ["candidates", candidatesOptions],
  ["propose", proposeOptions],
  ["cleanup", cleanupOptions],
  ["standin", standInOptions],
  ["demo", demoOptions]
]

/** The flags every command takes from @effect/cli itself. */
const builtIn = ["--help", "-h", "--version", "--wizard", "--completions", "--log-level"]

type Node = Readonly<Record<string, unknown>> & { readonly _tag?: unknown }

const isNode = (value: unknown): value is Node => typeof value === "object" && value !== null

/** The text of a help document's span or paragraph. */
const textOf = (doc: unknown): string => {
  if (!isNode(doc)) return ""
  if (doc["_tag"] === "Sequence") return textOf(doc["left"]) + textOf(doc["right"])
  const value = doc["value"]
  return typeof value === "string" ? value : textOf(value)
}

/** A default as `--help` shows it: none for an absent option, `false` or an empty list. */
const shownDefault = (fallback: unknown): string | undefined => {
  if (fallback === false || fallback === undefined || fallback === null) return undefined
  if (isNode(fallback) && fallback["_tag"] === "None") return undefined
  if (Array.isArray(fallback)) return fallback.length === 0 ? undefined : fallback.join(", ")
  return typeof fallback === "object" ? undefined : String(fallback)
}

/** The flags an option definition (@effect/cli's `Options`, walked by its tags) stands for. */
const flagsIn = (
  option: unknown,
  around: { readonly default?: string; readonly repeatable?: boolean } = {}
): ReadonlyArray<Flag> => {
  if (!isNode(option)) return []
  switch (option["_tag"]) {
    case "Single": {
      // A positional argument (`Args`) is a single with no flag name: it is no flag.
      if (typeof option["fullName"] !== "string") return []
      const primitive = isNode(option["primitiveType"]) ? option["primitiveType"] : {}
      const pseudo = option["pseudoName"]
      const argument = isNode(pseudo) && typeof pseudo["value"] === "string" ? pseudo["value"] : undefined
      const alternatives = primitive["alternatives"]
      const choices = Array.isArray(alternatives)
        ? alternatives.flatMap((a) => Array.isArray(a) && typeof a[0] === "string" ? [a[0]] : [])
        : undefined
      return [{
        name: String(option["fullName"]),
        ...(argument === undefined ? {} : { argument }),
        type: String(primitive["_tag"] ?? "Text"),
        ...(choices === undefined ? {} : { choices }),
        ...(around.default === undefined ? {} : { default: around.default }),
        repeatable: around.repeatable === true,
        description: textOf(option["description"])
      }]
    }
    case "WithDefault": {
      const shown = shownDefault(option["fallback"])
      return flagsIn(option["options"], { ...around, ...(shown === undefined ? {} : { default: shown }) })
    }
    case "Variadic":
      return flagsIn(option["argumentOption"], { ...around, repeatable: true })
    case "Map":
    case "WithFallback":
      return flagsIn(option["options"], around)
    default:
      // Alternatives and pairs (`OrElse`, `Both`): each side's flags.
      return [...flagsIn(option["left"], around), ...flagsIn(option["right"], around)]
  }
}

/** A command's flags, in the order its options are defined. */
export const flagsOf = (options: Readonly<Record<string, unknown>>): ReadonlyArray<Flag> =>
  Object.values(options).flatMap((option) => flagsIn(option))

/** A positional argument of a command: its name (`OLD.json`), whether it repeats, and what it is. */
export interface Positional {
  readonly name: string
  readonly repeatable: boolean
  readonly description: string
}

/** The positional arguments a definition (@effect/cli's `Args`) stands for. */
const positionalsIn = (arg: unknown, repeatable = false): ReadonlyArray<Positional> => {
  if (!isNode(arg)) return []
  if (arg["_tag"] === "Single" && typeof arg["fullName"] !== "string") {
    const pseudo = arg["pseudoName"]
    const name = isNode(pseudo) && typeof pseudo["value"] === "string" ? pseudo["value"] : String(arg["name"])
    return [{ name, repeatable, description: textOf(arg["description"]) }]
  }
  if (arg["_tag"] === "Variadic" && isNode(arg["args"])) return positionalsIn(arg["args"], true)
  if (arg["_tag"] === "Map" || arg["_tag"] === "WithDefault") {
    return positionalsIn(arg["args"] ?? arg["options"], repeatable)
  }
  return []
}

/** A command's positional arguments, in order. */
export const positionalsOf = (options: Readonly<Record<string, unknown>>): ReadonlyArray<Positional> =>
  Object.values(options).flatMap((option) => positionalsIn(option))

const commandNames = commandOptions.map(([name]) => name)

/** Whether a value is one an integer flag takes. */
const isInteger = (value: string): boolean => /^-?\d+$/.test(value.trim())

/** Whether a value is one a number flag takes. */
const isNumber = (value: string): boolean => value.trim() !== "" && Number.isFinite(Number(value))

/** What is wrong with a flag's value, if anything. */
const valueProblem = (flag: Flag, value: string): string | undefined => {
  const shown = JSON.stringify(value)
  if (flag.type === "Integer" && !isInteger(value)) return `${flag.name} takes a whole number, got ${shown}`
  if (flag.type === "Float" && !isNumber(value)) return `${flag.name} takes a number, got ${shown}`
  if (flag.choices !== undefined && !flag.choices.includes(value)) {
    return `${flag.name} takes one of ${flag.choices.join(", ")}, got ${shown}${didYouMean(value, flag.choices)}`
  }
  return undefined
}

/**
 * What is wrong with a command line (the arguments after node and the script), in one line, or
 * nothing: an unknown command or flag (with the nearest name), a flag without its value, a value of
 * the wrong type. Arguments after `--` are not flags; the value after a flag that takes one is its own.
 */
export const commandLineProblem = (args: ReadonlyArray<string>): string | undefined => {
  const [command, ...rest] = args
  if (command === undefined || builtIn.includes(command)) return undefined
  if (command.startsWith("-")) {
    return `${command} is no flag of ${programName} itself: name a command first (${programName} --help lists them)`
  }
  const options = commandOptions.find(([name]) => name === command)?.[1]
  if (options === undefined) {
    return `unknown command ${JSON.stringify(command)}${
      didYouMean(command, commandNames)
    }: ${programName} --help lists the commands`
  }
  const flags = flagsOf(options)
  const help = `${programName} ${command} --help lists its flags`
  for (let i = 0; i < rest.length; i++) {
    const token = rest[i]!
    if (token === "--") return undefined
    if (!token.startsWith("--") || builtIn.includes(token)) continue
    const [name, inline] = token.includes("=")
      ? [token.slice(0, token.indexOf("=")), token.slice(token.indexOf("=") + 1)]
      : [token, undefined]
    const flag = flags.find((f) => f.name === name)
    if (flag === undefined) {
      return `unknown flag ${name} for ${programName} ${command}${didYouMean(name, flags.map((f) => f.name))}: ${help}`
    }
    if (flag.type === "Bool") continue
    const value = inline ?? rest[i + 1]
    if (value === undefined || (inline === undefined && value.startsWith("--"))) {
      return `${name} needs a value${flag.argument === undefined ? "" : ` (${flag.argument})`}: ${help}`
    }
    if (inline === undefined) i++
    const problem = valueProblem(flag, value)
    if (problem !== undefined) return `${problem}: ${help}`
  }
  return undefined
}
