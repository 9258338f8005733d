/**
 * `eval audit`: grade every turn of JSON-lines exports against invariant expectations, streaming.
 * Exit code 0 when every turn holds them, 1 when some do not, 2 for bad input (unreadable lines
 * included).
 */
import { FileSystem } from "@effect/platform"
import { Console, Effect, Either, Option, Stream } from "effect"
import { flagUsage } from "../Application/Flags.js"
import { describeFileError, linesOf, requireRegularFile } from "../Files.js"
import { kindNamed } from "../Graders/Kinds.js"
import { auditLine, type AuditPlan, emptyTally } from "../Runner/Audit.js"
import { loadCatalog } from "../Runner/GoldenSet.js"
import { parseShard } from "../Runner/Shard.js"
import { type CasesFile, Expectation } from "../Schema/Case.js"
import { decodeValue, parseJson } from "../Schema/Decode.js"
import { BadInput, GateFailed, Refused, UsageError } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import { caseProblems } from "../Schema/Validate.js"
import { auditSummary, violationLine } from "../Scorecard/Render/Audit.js"
import { plural } from "../Words.js"
import { didYouMean } from "../Words.js"
import type { AuditArgs } from "./Options.js"

/**
 * Reads `KIND`, `KIND=ARG` or `KIND ARG` (`never-calls=deploy`, `answer-excludes=rm -rf`): each kind
 * says which field its one argument fills (`eval audit --expect-json` takes any expectation whole).
 */
export const parseExpectation = (spec: string): Either.Either<Expectation, string> => {
  const match = /^([a-z-]+)(?:[= ]([\s\S]*))?$/.exec(spec.trim())
  const name = match?.[1] ?? spec
  const argument = kindNamed(name)?.argument ?? null
  const text = match?.[2]
  const value = argument === null || text === undefined ? { kind: name } : { kind: name, ...argument.read(text) }
  return Either.mapLeft(decodeValue(Expectation, "--expect", value), (error) => {
    const [first] = error.problems
    const needs = argument === null ? "" : ` (write ${name}=${argument.name})`
    return `--expect ${JSON.stringify(spec)}: ${first?.path.replace(/^\$\.?/, "") || "kind"} ${
      first?.message ?? "is not an expectation"
    }${needs}`
  })
}

/** Reads one `--expect-json` value: an expectation of any kind, as a cases file writes it. */
export const parseExpectationJson = (text: string): Either.Either<Expectation, string> =>
  Either.mapLeft(
    Either.flatMap(parseJson("--expect-json", text), (value) => decodeValue(Expectation, "--expect-json", value)),
    (error) => {
      const [first] = error.problems
      const at = first === undefined || first.path === "" || first.path === "$" ? "" : `${first.path} `
      return `--expect-json ${inert(JSON.stringify(text.length > 200 ? `${text.slice(0, 200)}…` : text))}: ${at}${
        first?.message ?? "is not an expectation"
      }`
    }
  )

/** The lines of an archive, or of standard input for `-`, each at most `maxLineBytes`. */
const lines = (file: string): Stream.Stream<string, BadInput, FileSystem.FileSystem> => {
  const bytes: Stream.Stream<Uint8Array, BadInput, FileSystem.FileSystem> = file === "-"
    ? Stream.fromAsyncIterable(
      process.stdin as AsyncIterable<Uint8Array>,
      (error) => new BadInput({ file: "stdin", problems: [{ path: "", message: `cannot read: ${String(error)}` }] })
    )
    : Stream.unwrap(
      Effect.map(FileSystem.FileSystem, (fs) =>
        fs.stream(file, { chunkSize: FileSystem.KiB(32) }).pipe(
          Stream.mapError((error) =>
            new BadInput({ file, problems: [{ path: "", message: `cannot read: ${describeFileError(error)}` }] })
          )
        ))
    )
  return bytes.pipe(linesOf(file === "-" ? "stdin" : file))
}

/** `eval audit`. */
export const auditHandler = (args: AuditArgs) =>
  Effect.gen(function*() {
    const catalog = yield* loadCatalog(args.surfaces)
    const surface = Object.hasOwn(catalog.surfaces, args.surface) ? catalog.surfaces[args.surface] : undefined
    if (surface === undefined) {
      return yield* new UsageError({
        message: `--surface ${args.surface}: ${args.surfaces} has no such surface; it has ${
          Object.keys(catalog.surfaces).join(", ")
        }${didYouMean(args.surface, Object.keys(catalog.surfaces))}`
      })
    }
    if (args.expect.length === 0 && args.expectJson.length === 0) {
      return yield* new UsageError({
        message:
          "name at least one expectation: --expect KIND[=ARG], such as --expect cites-only-surfaced, or --expect-json '{\"kind\": …}'"
      })
    }
    if (args.traces.length === 0) {
      return yield* new UsageError({
        message: "name the turns to audit: --traces FILE.jsonl (or - for standard input)"
      })
    }
    const expectations: Array<Expectation> = []
    for (const spec of args.expect) {
      expectations.push(yield* Either.mapLeft(parseExpectation(spec), (message) => new UsageError({ message })))
    }
    for (const text of args.expectJson) {
      expectations.push(yield* Either.mapLeft(parseExpectationJson(text), (message) => new UsageError({ message })))
    }
    const specs = [
      ...args.expect.map((spec) => `--expect ${JSON.stringify(spec)}`),
      ...args.expectJson.map((text) => `--expect-json ${JSON.stringify(text)}`)
    ]
    // The checks a case gets against the catalog: tools and outcomes the surface has.
    const asCase: CasesFile = {
      version: 1,
      cases: [{ id: "audit", surface: args.surface, question: "audit", guards: "audit", expect: expectations }]
    }
    const [unknown] = caseProblems(asCase, catalog)
    if (unknown !== undefined) {
      const index = Number(/expect\[(\d+)\]/.exec(unknown.path)?.[1] ?? 0)
      return yield* new UsageError({ message: `${inert(specs[index] ?? "--expect")}: ${unknown.message}` })
    }
    const shard = Option.isNone(args.shard)
      ? undefined
      : yield* Either.mapLeft(parseShard(args.shard.value), (problem) => flagUsage("--shard", problem))
    // Every archive is checked before any is read: only a regular file ends (not /dev/zero) and
    // opens without waiting (not a FIFO).
    for (const file of args.traces) {
      if (file !== "-") yield* requireRegularFile(file)
    }

    const plan: AuditPlan = {
      surfaceName: args.surface,
      surface,
      expectations,
      shard
    }
    const tally = emptyTally()
    for (const file of args.traces) {
      let lineNumber = 0
      const name = file === "-" ? "stdin" : file
      yield* lines(file).pipe(
        Stream.runForEachChunk((chunk) => {
          const found: Array<string> = []
          for (const line of chunk) {
            lineNumber++
            for (const violation of auditLine(plan, tally, line, `${name}:${lineNumber}`)) {
              found.push(violationLine(violation))
            }
          }
          return found.length > 0 ? Console.log(found.join("\n")) : Effect.void
        })
      )
    }
    yield* Console.log(auditSummary(plan, tally))
    if (tally.unreadable > 0) {
      yield* Console.error(tally.unreadableShown.join("\n"))
      return yield* new Refused({
        reason: "unreadable-lines",
        message: `${plural(tally.unreadable, "unreadable line")} (the first of them are listed above)`
      })
    }
    if (tally.violations > 0) return yield* new GateFailed({ reason: "violations" })
  })
