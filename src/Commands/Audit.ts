/**
 * `eval audit`: grade every turn of JSON-lines exports against invariant expectations, streaming.
 * Exit code 0 when every turn holds them, 1 when some do not, 2 for bad input (unreadable lines
 * included).
 */
import { FileSystem } from "@effect/platform"
import { Console, Effect, Either, Option, Stream } from "effect"
import { describeFileError, linesOf, requireRegularFile } from "../Files.js"
import { type AuditPlan, auditLine, auditSummary, emptyTally } from "../Runner/Audit.js"
import { loadCatalog } from "../Runner/GoldenSet.js"
import { parseShard } from "../Runner/Shard.js"
import { type CasesFile, Expectation } from "../Schema/Case.js"
import { decodeValue } from "../Schema/Decode.js"
import { BadInput, GateFailed, Refused, UsageError } from "../Schema/Errors.js"
import { caseProblems } from "../Schema/Validate.js"

/** The arguments of `eval audit`. */
export interface AuditArgs {
  readonly surfaces: string
  readonly surface: string
  readonly expect: ReadonlyArray<string>
  readonly traces: ReadonlyArray<string>
  readonly shard: Option.Option<string>
}

/** The field each kind's argument fills. */
const argumentOf: Readonly<Record<string, string>> = {
  "cites": "path",
  "calls-tool": "tool",
  "never-calls": "tool",
  "answer-includes": "text",
  "answer-excludes": "text",
  "outcome": "is"
}

/** Reads `KIND`, `KIND=ARG` or `KIND ARG` (`never-calls=deploy`, `answer-excludes=rm -rf`). */
export const parseExpectation = (spec: string): Either.Either<Expectation, string> => {
  const match = /^([a-z-]+)(?:[= ]([\s\S]*))?$/.exec(spec.trim())
  const kind = match?.[1] ?? spec
  const field = argumentOf[kind]
  const argument = match?.[2]
  const value = field === undefined || argument === undefined ? { kind } : { kind, [field]: argument }
  return Either.mapLeft(decodeValue(Expectation, "--expect", value), (error) => {
    const [first] = error.problems
    const needs = field === undefined ? "" : ` (write ${kind}=${field.toUpperCase()})`
    return `--expect ${JSON.stringify(spec)}: ${first?.path.replace(/^\$\.?/, "") || "kind"} ${first?.message ?? "is not an expectation"}${needs}`
  })
}

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
          Stream.mapError((error) => new BadInput({ file, problems: [{ path: "", message: `cannot read: ${describeFileError(error)}` }] }))
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
        }`
      })
    }
    if (args.expect.length === 0) {
      return yield* new UsageError({ message: "name at least one expectation: --expect KIND[=ARG], such as --expect cites-only-surfaced" })
    }
    if (args.traces.length === 0) {
      return yield* new UsageError({ message: "name the turns to audit: --traces FILE.jsonl (or - for standard input)" })
    }
    const expectations: Array<Expectation> = []
    for (const spec of args.expect) {
      expectations.push(yield* Either.mapLeft(parseExpectation(spec), (message) => new UsageError({ message })))
    }
    // The checks a case gets against the catalog: tools and outcomes the surface has.
    const asCase: CasesFile = {
      version: 1,
      cases: [{ id: "audit", surface: args.surface, question: "audit", guards: "audit", expect: expectations }]
    }
    const [unknown] = caseProblems(asCase, catalog)
    if (unknown !== undefined) {
      const index = Number(/expect\[(\d+)\]/.exec(unknown.path)?.[1] ?? 0)
      return yield* new UsageError({ message: `--expect ${JSON.stringify(args.expect[index])}: ${unknown.message}` })
    }
    const shard = Option.isNone(args.shard)
      ? undefined
      : yield* Either.mapLeft(parseShard(args.shard.value), (message) => new UsageError({ message }))
    // Every archive is checked before any is read: only a regular file ends (not /dev/zero) and
    // opens without waiting (not a FIFO).
    for (const file of args.traces) {
      if (file !== "-") yield* requireRegularFile(file)
    }

    const plan: AuditPlan = { surfaceName: args.surface, surface, expectations, ...(shard === undefined ? {} : { shard }) }
    const tally = emptyTally()
    for (const file of args.traces) {
      let lineNumber = 0
      const name = file === "-" ? "stdin" : file
      yield* lines(file).pipe(
        Stream.runForEachChunk((chunk) => {
          const found: Array<string> = []
          for (const line of chunk) {
            lineNumber++
            for (const violation of auditLine(plan, tally, line, `${name}:${lineNumber}`)) found.push(violation)
          }
          return found.length > 0 ? Console.log(found.join("\n")) : Effect.void
        })
      )
    }
    yield* Console.log(auditSummary(plan, tally))
    if (tally.unreadable > 0) {
      yield* Console.error(tally.unreadableShown.join("\n"))
      return yield* new Refused({ reason: "unreadable-lines", message: `${tally.unreadable} unreadable line${tally.unreadable === 1 ? "" : "s"} (the first of them are listed above)` })
    }
    if (tally.violations > 0) return yield* new GateFailed({ reason: "violations" })
  })
