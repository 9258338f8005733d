/**
 * The reports a run, a merge or a report of a results file writes (`--reporter NAME[:OPTION][=FILE]`,
 * several at once; the reporters are in `Reporters.ts`): the specs read and checked against each
 * other, and the reports written, each to standard output or to a file.
 */
import type { FileSystem } from "@effect/platform"
import { Clock, Effect, Option } from "effect"
import { hostname } from "node:os"
import { resolve } from "node:path"
import type { BadInput } from "../Schema/Errors.js"
import { UsageError } from "../Schema/Errors.js"
import type { RunResult } from "../Schema/Result.js"
import { didYouMean } from "../Words.js"
import type { ReportContext, RunSite } from "./Reporter.js"
import {
  defaultReporter,
  type ReporterName,
  reporterNamed,
  reporterNames,
  type ReporterOption,
  reporters
} from "./Reporters.js"

/** A reporter as `--reporter` names it: which, its options, and where it writes (standard output when `file` is absent). */
export interface ReporterSpec {
  readonly name: ReporterName
  readonly file?: string | undefined
  readonly options?: ReadonlyArray<ReporterOption> | undefined
}

/** What a reporter of `spec` writes to standard output, when it writes there. */
const stdoutOf = (spec: ReporterSpec) => reporters[spec.name].stdout

/**
 * Reads `--reporter` specs (and `--json FILE`, which is `--reporter json=FILE`). The scorecard goes to
 * standard output unless another reporter writes there. Standard output takes one report at most: two
 * writing there would interleave into something neither a person nor a parser can read. Annotations
 * (`github`) go there too, which CI logs take out of the scorecard but which would break a document.
 */
export const parseReporters = (
  specs: ReadonlyArray<string>,
  json: Option.Option<string>
): Effect.Effect<ReadonlyArray<ReporterSpec>, UsageError> =>
  Effect.gen(function*() {
    const chosen: Array<ReporterSpec> = []
    for (const spec of specs) {
      const at = spec.indexOf("=")
      // Options sit between the name and the file, so a colon in a path (C:\reports) is the file's.
      const [name = "", ...given] = (at === -1 ? spec : spec.slice(0, at)).split(":").map((part) => part.trim())
      const file = at === -1 ? undefined : spec.slice(at + 1)
      const reporter = reporterNamed(name)
      if (reporter === undefined) {
        return yield* new UsageError({
          message: `--reporter ${JSON.stringify(spec)}: expected NAME, NAME=FILE or NAME:OPTION=FILE, NAME one of ${
            reporterNames.join(", ")
          }${didYouMean(name, reporterNames)}`
        })
      }
      const known = Object.keys(reporter.options)
      const unknown = given.find((option) => !known.includes(option))
      if (unknown !== undefined) {
        return yield* new UsageError({
          message: `--reporter ${JSON.stringify(spec)}: ${name} has no option ${JSON.stringify(unknown)}; ${
            known.length === 0 ? "it takes none" : `its options: ${known.join(", ")}`
          }`
        })
      }
      const options = given as ReadonlyArray<ReporterOption>
      if (file !== undefined && file.trim() === "") {
        return yield* new UsageError({ message: `--reporter ${JSON.stringify(spec)}: the file after "=" is empty` })
      }
      if (reporter.stdout === "annotations" && file !== undefined) {
        return yield* new UsageError({ message: `--reporter ${name} takes no file: ${reporter.noFile}` })
      }
      chosen.push({
        name: name as ReporterName,
        file,
        ...(options.length === 0 ? {} : { options })
      })
    }
    if (Option.isSome(json)) chosen.push({ name: "json", file: json.value })
    const files = chosen.flatMap((r) => (r.file === undefined ? [] : [r.file]))
    const twice = files.find((f, i) => files.indexOf(f) !== i)
    if (twice !== undefined) {
      return yield* new UsageError({ message: `two reporters write to ${twice}: give each its own file` })
    }
    // The scorecard goes to the terminal unless another report takes standard output.
    const onStdout = (specs: ReadonlyArray<ReporterSpec>) =>
      specs.filter((r) => r.file === undefined && stdoutOf(r) !== "annotations").map((r) => r.name)
    if (onStdout(chosen).length === 0) chosen.unshift({ name: defaultReporter })
    const reports = onStdout(chosen)
    const annotator = chosen.find((r) => stdoutOf(r) === "annotations")
    const document = chosen.find((r) => r.file === undefined && stdoutOf(r) === "document")
    if (annotator !== undefined && document !== undefined) {
      return yield* new UsageError({
        message:
          `--reporter ${annotator.name} annotates through standard output, which would break the ${document.name} ` +
          `report there: send that one to a file`
      })
    }
    if (reports.length > 1) {
      return yield* new UsageError({
        message: `${
          reports.join(" and ")
        } would both write to standard output: send all but one to a file, e.g. --reporter junit=report.xml`
      })
    }
    return chosen
  })

/**
 * Refuses reporters that would write over a file the command reads (`inputs`, each with what it is):
 * a results file written over the golden set or the baseline would lose it.
 */
export const refuseOverwritingInputs = (
  chosen: ReadonlyArray<ReporterSpec>,
  inputs: ReadonlyArray<readonly [file: string, what: string]>
): Effect.Effect<void, UsageError> => {
  for (const reporter of chosen) {
    if (reporter.file === undefined) continue
    const input = inputs.find(([file]) => resolve(file) === resolve(reporter.file!))
    if (input !== undefined) {
      return Effect.fail(
        new UsageError({
          message: `the ${reporter.name} report would overwrite ${input[0]}, ${input[1]}: write it to another file`
        })
      )
    }
  }
  return Effect.void
}

/** Whether standard output carries a document a program reads (so notes for people go to stderr). */
export const stdoutIsDocument = (chosen: ReadonlyArray<ReporterSpec>): boolean =>
  chosen.some((r) => r.file === undefined && stdoutOf(r) === "document")

// Compared as a string: the name of the reporter that writes the HTML page.
const htmlReporter: string = "html"

/** The file the HTML report goes to, when one of `chosen` writes it to a file. */
export const htmlReportOf = (chosen: ReadonlyArray<ReporterSpec>): string | undefined =>
  chosen.find((r) => r.name === htmlReporter && r.file !== undefined)?.file

/**
 * Writes the results with every reporter, in the order given: files atomically, the rest to standard
 * output. The summaries point to the HTML report when one of the reporters writes it to a file.
 */
export const writeReports = (
  result: RunResult,
  chosen: ReadonlyArray<ReporterSpec>,
  given: ReportContext
): Effect.Effect<void, BadInput, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const htmlReport = given.htmlReport ?? htmlReportOf(chosen)
    const context: ReportContext = htmlReport === undefined ? given : { ...given, htmlReport }
    // The run began its duration before it ended, which is now unless the context says when; a merge,
    // whose results carry no start, says when it joined them.
    const ended = context.endedAt?.getTime() ?? (yield* Clock.currentTimeMillis)
    const site: RunSite = { timestamp: new Date(ended - (context.durationMs ?? 0)), hostname: hostname() }
    yield* Effect.forEach(chosen, (spec) =>
      Effect.flatMap(
        Effect.promise(() => reporters[spec.name].load()),
        ({ writer }) => writer({ result, options: spec.options ?? [], context, site, file: spec.file })
      ), { discard: true })
  })
