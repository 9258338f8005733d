/**
 * The `github` reporter: in GitHub Actions, annotations on the golden-set file through standard
 * output, and the Markdown summary appended to the step's summary. It takes no file.
 */
import { FileSystem } from "@effect/platform"
import { Config, Console, Effect, Either, Option } from "effect"
import { execFile } from "node:child_process"
import { realpathSync } from "node:fs"
import { relative, resolve, sep } from "node:path"
import { describeFileError, readTextIfPresent } from "../Files.js"
import { BadInput } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import { caseLines, renderGitHubAnnotations } from "../Scorecard/Render/GitHub.js"
import { renderSummary } from "./Markdown.js"
import type { ReportWriter } from "./Reporter.js"

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

/** Annotations on the golden-set file, and the summary appended to the step's. */
export const writer: ReportWriter = (input) =>
  Effect.gen(function*() {
    const { context, result } = input
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
    if (env.summary !== "") yield* appendSummary(env.summary, `${renderSummary(input)}\n`)
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
      new BadInput({
        file,
        problems: [{ path: "", message: `cannot append the summary to $GITHUB_STEP_SUMMARY: ${why}` }]
      })
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
