/**
 * The reporters a run, a merge or a report of a results file writes its results with (`--reporter
 * NAME[:OPTION][=FILE]`, several at once): `pretty` (the terminal scorecard), `json` (the results
 * file), `junit` (JUnit XML for CI test reports), `github` (annotations on the golden-set file and the
 * step summary in GitHub Actions), `markdown` (the summary for a pull-request comment) and `html` (a
 * self-contained page to read the run in a browser). Each goes to standard output or to a file.
 */
import { FileSystem } from "@effect/platform"
import { Clock, Config, Console, Effect, Either, Option } from "effect"
import { execFile } from "node:child_process"
import { realpathSync } from "node:fs"
import { hostname } from "node:os"
import { dirname, relative, resolve, sep } from "node:path"
import { describeFileError, readTextIfPresent, writeAtomically } from "../Files.js"
import { inert, inertLines } from "../Schema/Inert.js"
import { BadInput, UsageError } from "../Schema/Errors.js"
import type { FloorChange } from "../Schema/Baseline.js"
import type { RunResult } from "../Schema/Result.js"
import type { RunDiff } from "../Scorecard/Diff.js"
import { renderDiffMarkdown } from "../Scorecard/Render/DiffMarkdown.js"
import { renderDiffPretty } from "../Scorecard/Render/DiffText.js"
import { caseLines, renderGitHubAnnotations } from "../Scorecard/Render/GitHub.js"
import { renderHtml } from "../Scorecard/Render/Html.js"
import { renderJUnit } from "../Scorecard/Render/JUnit.js"
import { renderMarkdown } from "../Scorecard/Render/Markdown.js"
import { renderPretty } from "../Scorecard/Render/Pretty.js"
import { useColor } from "../Terminal.js"

/** The reporters there are. */
export const reporterNames = ["pretty", "json", "junit", "github", "markdown", "html"] as const
/** The name of a reporter. */
export type ReporterName = typeof reporterNames[number]

/**
 * The options each reporter takes after a colon (`--reporter junit:file-attribute=FILE`). JUnit's
 * `file-attribute` writes each testcase's `file` (which GitLab shows), off by default because the Ant
 * and Jenkins JUnit schemas reject it.
 */
export const reporterOptions = {
  pretty: [],
  json: [],
  junit: ["file-attribute"],
  github: [],
  markdown: [],
  html: []
} as const satisfies Record<ReporterName, ReadonlyArray<string>>

/** An option of some reporter. */
export type ReporterOption = typeof reporterOptions[ReporterName][number]

/** A reporter, its options, and where it writes: a file, or standard output when `file` is absent. */
export interface Reporter {
  readonly name: ReporterName
  readonly file?: string
  readonly options?: ReadonlyArray<ReporterOption>
}

const isName = (name: string): name is ReporterName => (reporterNames as ReadonlyArray<string>).includes(name)

/**
 * Reads `--reporter` specs (and `--json FILE`, which is `--reporter json=FILE`). The scorecard goes to
 * standard output unless another reporter writes there. Standard output takes one document at most: two reporters writing
 * there would interleave into something neither a person nor a parser can read. `github` writes
 * workflow commands there, which CI logs take out of the scorecard but which would break a document.
 */
export const parseReporters = (
  specs: ReadonlyArray<string>,
  json: Option.Option<string>
): Effect.Effect<ReadonlyArray<Reporter>, UsageError> =>
  Effect.gen(function*() {
    const reporters: Array<Reporter> = []
    for (const spec of specs) {
      const at = spec.indexOf("=")
      // Options sit between the name and the file, so a colon in a path (C:\reports) is the file's.
      const [name = "", ...given] = (at === -1 ? spec : spec.slice(0, at)).split(":").map((part) => part.trim())
      const file = at === -1 ? undefined : spec.slice(at + 1)
      if (!isName(name)) {
        return yield* new UsageError({
          message: `--reporter ${JSON.stringify(spec)}: expected NAME, NAME=FILE or NAME:OPTION=FILE, NAME one of ${reporterNames.join(", ")}`
        })
      }
      const known: ReadonlyArray<string> = reporterOptions[name]
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
      if (name === "github" && file !== undefined) {
        return yield* new UsageError({
          message:
            "--reporter github takes no file: it annotates through standard output and appends its summary to $GITHUB_STEP_SUMMARY"
        })
      }
      reporters.push({ name, ...(file === undefined ? {} : { file }), ...(options.length === 0 ? {} : { options }) })
    }
    if (Option.isSome(json)) reporters.push({ name: "json", file: json.value })
    const files = reporters.flatMap((r) => (r.file === undefined ? [] : [r.file]))
    const twice = files.find((f, i) => files.indexOf(f) !== i)
    if (twice !== undefined) {
      return yield* new UsageError({ message: `two reporters write to ${twice}: give each its own file` })
    }
    // The scorecard goes to the terminal unless another report takes standard output.
    if (reporters.every((r) => r.name === "github" || r.file !== undefined)) reporters.unshift({ name: "pretty" })
    const onStdout = reporters.filter((r) => r.file === undefined && r.name !== "github").map((r) => r.name)
    if (reporters.some((r) => r.name === "github") && onStdout.some((name) => name !== "pretty")) {
      return yield* new UsageError({
        message: `--reporter github annotates through standard output, which would break the ${
          onStdout.find((name) => name !== "pretty")
        } report there: send that one to a file`
      })
    }
    if (onStdout.length > 1) {
      return yield* new UsageError({
        message: `${
          onStdout.join(" and ")
        } would both write to standard output: send all but one to a file, e.g. --reporter junit=report.xml`
      })
    }
    return reporters
  })

/**
 * Refuses reporters that would write over a file the command reads (`inputs`, each with what it is):
 * a results file written over the golden set or the baseline would lose it.
 */
export const refuseOverwritingInputs = (
  reporters: ReadonlyArray<Reporter>,
  inputs: ReadonlyArray<readonly [file: string, what: string]>
): Effect.Effect<void, UsageError> => {
  for (const reporter of reporters) {
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
export const stdoutIsDocument = (reporters: ReadonlyArray<Reporter>): boolean =>
  reporters.some((r) => r.file === undefined && r.name !== "pretty" && r.name !== "github")

/** What the reporters need besides the results. */
export interface ReportContext {
  /** The golden-set file, for annotations and JUnit `file` attributes. */
  readonly casesFile: string
  /** What the scorecard says when no floor applies. */
  readonly noFloor: string
  /** The comparison with an earlier run (`run --compare`), and that run's file. */
  readonly diff?: { readonly diff: RunDiff; readonly against: string }
  /** How long the run took. */
  readonly durationMs?: number
  /** When the run ended, for reports rendered after it (from its results file); now when absent. */
  readonly endedAt?: Date
  /** The floor's moves, from the baseline's `history`, for a report that charts them. */
  readonly history?: ReadonlyArray<FloorChange>
  /** Where the HTML report was written, for the reports that point to it. */
  readonly htmlReport?: string
}

/** Where and when a JUnit report says the run happened. */
interface RunSite {
  readonly timestamp: Date
  readonly hostname: string
}

/** The results as one reporter writes them. */
const render = (
  result: RunResult,
  reporter: Reporter,
  context: ReportContext,
  color: boolean,
  site: RunSite
): string => {
  switch (reporter.name) {
    case "pretty": {
      const card = renderPretty(result, { color, noFloor: context.noFloor })
      return context.diff === undefined
        ? card
        : `${card}\n\n${renderDiffPretty(context.diff.diff, { color, against: context.diff.against })}`
    }
    case "json":
      // The same JSON value, with the bidi, separator and format characters JSON leaves raw escaped too.
      return inertLines(JSON.stringify(result, null, 2))
    case "junit":
      return renderJUnit(result, {
        ...site,
        ...(reporter.options?.includes("file-attribute") === true ? { casesFile: context.casesFile } : {})
      })
    case "markdown":
    case "github":
      return renderMarkdown(result, {
        noFloor: context.noFloor,
        extraSections: context.diff === undefined ? [] : [renderDiffMarkdown(context.diff.diff, context.diff.against)],
        ...(context.htmlReport === undefined ? {} : { htmlReport: context.htmlReport })
      })
    case "html":
      return renderHtml(result, {
        noFloor: context.noFloor,
        ...(context.diff === undefined ? {} : { diff: context.diff }),
        ...(context.history === undefined ? {} : { history: context.history }),
        ...(context.durationMs === undefined ? {} : { durationMs: context.durationMs })
      })
  }
}

/** `GITHUB_ACTIONS`, `GITHUB_STEP_SUMMARY` and `GITHUB_WORKSPACE`, read when the github reporter runs. */
const gitHubEnvironment = Effect.all({
  actions: Config.string("GITHUB_ACTIONS").pipe(Config.withDefault("")),
  summary: Config.string("GITHUB_STEP_SUMMARY").pipe(Config.withDefault("")),
  workspace: Config.string("GITHUB_WORKSPACE").pipe(Config.withDefault(""))
}).pipe(Effect.orElseSucceed(() => ({ actions: "", summary: "", workspace: "" })))

/** The top folder of the git work tree holding the current folder; none without git or outside a repository. */
const gitTopLevel: Effect.Effect<Option.Option<string>> = Effect.async((resume) => {
  execFile("git", ["rev-parse", "--show-toplevel"], { encoding: "utf8", timeout: 10_000 }, (error, stdout) => {
    const top = stdout.trim()
    resume(Effect.succeed(error === null && top !== "" ? Option.some(top) : Option.none()))
  })
})

const real = (path: string): string => {
  try {
    return realpathSync(path)
  } catch {
    return resolve(path)
  }
}

/**
 * A file as a path from the repository root, forward slashes: GitHub attaches an annotation only to
 * such a path, whatever folder the command ran from. The root is `$GITHUB_WORKSPACE`, else the git top
 * level (git runs only then); without either, the path from the current folder.
 */
const repositoryPath = (file: string, workspace: string): Effect.Effect<string> =>
  Effect.gen(function*() {
    const root = workspace !== "" ? Option.some(workspace) : yield* gitTopLevel
    const from = real(Option.getOrElse(root, () => process.cwd()))
    const path = relative(from, real(file))
    return (path === "" ? file : path).split(sep).join("/")
  })

/** The github reporter: annotations on the golden-set file, and the summary appended to the step's. */
const writeGitHub = (result: RunResult, context: ReportContext, site: RunSite) =>
  Effect.gen(function*() {
    const env = yield* gitHubEnvironment
    if (env.actions !== "true" && env.summary === "") {
      return yield* Console.error(
        "--reporter github: not in GitHub Actions (GITHUB_ACTIONS and GITHUB_STEP_SUMMARY are not set), so there is nothing to annotate"
      )
    }
    if (env.actions === "true") {
      // A report rendered from a results file may have no golden set beside it: the annotations then
      // point at the file's first line rather than not being written.
      const read = yield* Effect.either(readTextIfPresent(context.casesFile))
      const text = Either.getOrElse(read, () => Option.none<string>())
      if (Option.isNone(text)) {
        const why = Either.isLeft(read) ? read.left.summary : "no such file"
        yield* Console.error(
          `--reporter github: ${inert(context.casesFile)}: ${inert(why)}, so each annotation points at its first line`
        )
      }
      const lines = caseLines(Option.getOrElse(text, () => ""))
      const casesFile = yield* repositoryPath(context.casesFile, env.workspace)
      const annotations = renderGitHubAnnotations(result, { casesFile, caseLines: lines })
      if (annotations !== "") yield* Console.log(annotations)
    }
    if (env.summary !== "") {
      yield* appendSummary(env.summary, `${render(result, { name: "github" }, context, false, site)}\n`)
    }
  })

/**
 * Appends the step summary in one write, so a full disk cannot leave half of it: a write refused
 * says why (`no space left on device`), and a short one is reported and taken back. The summary is
 * an output, so it may be any file that takes writes; /dev/full is how the tests fill a disk.
 */
const appendSummary = (file: string, text: string): Effect.Effect<void, BadInput, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const cannot = (why: string) =>
      new BadInput({ file, problems: [{ path: "", message: `cannot append the summary to $GITHUB_STEP_SUMMARY: ${why}` }] })
    const bytes = new TextEncoder().encode(text)
    yield* Effect.scoped(Effect.gen(function*() {
      const handle = yield* fs.open(file, { flag: "a" })
      const before = (yield* handle.stat).size
      const written = Number(yield* handle.write(bytes))
      if (written !== bytes.length) {
        yield* handle.truncate(before).pipe(Effect.ignore)
        return yield* cannot(`wrote only ${written} of ${bytes.length} bytes`)
      }
    })).pipe(Effect.catchTag("SystemError", "BadArgument", (error) => Effect.fail(cannot(describeFileError(error)))))
  })

/**
 * Makes the folder a report goes in. When it cannot be made, the report is not written, with the
 * reason: a file in the way (`reports is not a folder`) or why the folder could not be made
 * (`permission denied`), not the "no such file" that writing into the missing folder would say.
 */
const folderFor = (file: string): Effect.Effect<void, BadInput, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const folder = dirname(file)
    const made = yield* Effect.either(fs.makeDirectory(folder, { recursive: true }))
    if (made._tag === "Right") return
    const cannot = (why: string) => new BadInput({ file, problems: [{ path: "", message: `cannot write: ${why}` }] })
    // The nearest part of the path that exists says what is in the way.
    for (let at = folder;; at = dirname(at)) {
      const info = yield* Effect.option(fs.stat(at))
      if (info._tag === "Some") {
        if (info.value.type !== "Directory") return yield* cannot(`${at} is not a folder`)
        break
      }
      if (dirname(at) === at) break
    }
    return yield* cannot(`cannot make the folder ${folder}: ${describeFileError(made.left)}`)
  })

// Compared as a string: the name of the reporter that writes the HTML page.
const htmlReporter: string = "html"

/** The file the HTML report goes to, when one of `reporters` writes it to a file. */
export const htmlReportOf = (reporters: ReadonlyArray<Reporter>): string | undefined =>
  reporters.find((r) => r.name === htmlReporter && r.file !== undefined)?.file

/**
 * Writes the results with every reporter, in the order given: files atomically, the rest to standard
 * output. The summaries point to the HTML report when one of the reporters writes it to a file.
 */
export const writeReports = (
  result: RunResult,
  reporters: ReadonlyArray<Reporter>,
  given: ReportContext
): Effect.Effect<void, BadInput, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const htmlReport = given.htmlReport ?? htmlReportOf(reporters)
    const context: ReportContext = htmlReport === undefined ? given : { ...given, htmlReport }
    // The run began its duration before it ended, which is now unless the context says when; a merge,
    // whose results carry no start, says when it joined them.
    const ended = context.endedAt?.getTime() ?? (yield* Clock.currentTimeMillis)
    const site: RunSite = { timestamp: new Date(ended - (context.durationMs ?? 0)), hostname: hostname() }
    yield* Effect.forEach(reporters, (reporter) => {
      if (reporter.name === "github") return writeGitHub(result, context, site)
      if (reporter.file !== undefined) {
        const file = reporter.file
        // A report path in CI is often under a folder nothing has made yet (reports/junit.xml).
        return Effect.zipRight(folderFor(file), writeAtomically(file, `${render(result, reporter, context, false, site)}\n`))
      }
      return Console.log(render(result, reporter, context, reporter.name === "pretty" && useColor(), site))
    }, { discard: true })
  })
