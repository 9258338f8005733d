/**
 * OpenTelemetry traces as a source of turns: files (or folders of `.json`/`.jsonl` files) read into
 * turns and linked to a golden set's cases, which `Runner/OtelClient.ts` serves to the Runner as a
 * SurfaceClient. Anything that cannot be read is bad input naming the file, the trace and the attribute.
 */
import { FileSystem, Path } from "@effect/platform"
import { Effect, Either } from "effect"
import { readText } from "../Files.js"
import type { GoldenSet } from "../Runner/GoldenSet.js"
import { BadInput, type Problem, UsageError } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import { type ReadTurn, readTurnsOf } from "./Conventions.js"
import { type Links, linkTurns, type Unlinked } from "./Link.js"
import { groupTraces, readSpans, type Span } from "./Otlp.js"
import { turnIdOf } from "./Turn.js"

/** The files the `--otel` paths name: a file as it is, a folder's `.json` and `.jsonl` files in name order. */
const expandPaths = (
  paths: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>, UsageError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    const files: Array<string> = []
    for (const given of paths) {
      const info = yield* Effect.option(fs.stat(given))
      if (info._tag === "Some" && info.value.type === "Directory") {
        const names = yield* fs.readDirectory(given).pipe(
          Effect.mapError(() => new UsageError({ message: `--otel ${given}: cannot list that folder` }))
        )
        const traces = names.filter((n) => /\.jsonl?$/i.test(n)).sort()
        if (traces.length === 0) {
          return yield* new UsageError({ message: `--otel ${given}: no .json or .jsonl files in that folder` })
        }
        files.push(...traces.map((n) => path.join(given, n)))
      } else files.push(given)
    }
    return files
  })

const grouped = (problems: ReadonlyArray<Problem & { readonly file: string }>): BadInput => {
  const file = problems[0]!.file
  return new BadInput({
    file,
    problems: problems.filter((p) => p.file === file).map(({ message, path }) => ({ message, path }))
  })
}

/** Reads every turn in OTLP JSON trace files; files are read in order and traces may span them. */
export const readOtelTurns = (
  paths: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<ReadTurn>, BadInput | UsageError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    if (paths.length === 0) return yield* new UsageError({ message: "--otel: name at least one trace file" })
    const files = yield* expandPaths(paths)
    const spans: Array<Span> = []
    for (const file of files) {
      const text = yield* readText(file)
      const read = readSpans(file, text, spans.length)
      if (Either.isLeft(read)) return yield* read.left
      spans.push(...read.right)
    }
    const traces = groupTraces(spans)
    if (Either.isLeft(traces)) return yield* traces.left
    const turns: Array<ReadTurn> = []
    const problems: Array<Problem & { file: string }> = []
    for (const trace of traces.right) {
      const found: Array<Problem> = []
      turns.push(...readTurnsOf(trace, found))
      problems.push(...found.map((p) => ({ ...p, file: trace.spans[0]!.file })))
    }
    if (problems.length > 0) return yield* grouped(problems)
    if (turns.length === 0) {
      return yield* new BadInput({
        file: files.join(", "),
        problems: [{
          path: "",
          message:
            "no agent run in these traces: expected a span with gen_ai.operation.name invoke_agent, ai.operationId " +
            "ai.generateText or ai.streamText, or openinference.span.kind CHAIN or AGENT"
        }]
      })
    }
    return turns
  })

/** Reads the traces and links their turns to the golden set's cases. */
export const loadOtelLinks = (
  paths: ReadonlyArray<string>,
  set: GoldenSet
): Effect.Effect<Links, BadInput | UsageError, FileSystem.FileSystem | Path.Path> =>
  Effect.flatMap(readOtelTurns(paths), (turns) =>
    Either.match(linkTurns(turns, set.cases, set.catalog), {
      onLeft: (problems) => Effect.fail(grouped(problems)),
      onRight: Effect.succeed
    }))

/** The lines listing turns that no case was given, each with its reason. */
export const describeUnlinked = (unlinked: ReadonlyArray<Unlinked>): ReadonlyArray<string> =>
  unlinked.map((u) => `  ${turnIdOf(u.turn)}  ${inert(u.reason)}`)
