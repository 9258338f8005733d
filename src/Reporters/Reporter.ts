/**
 * What a reporter is: an entry in the registry (`Reporters.ts`) — what it writes to standard output,
 * the options it takes, the words `--help` says of it — and a module of its own, loaded only when a
 * report is written, whose `writer` writes the results to a file or to standard output.
 */
import { FileSystem } from "@effect/platform"
import { Console, Effect } from "effect"
import { dirname } from "node:path"
import { describeFileError, writeAtomically } from "../Files.js"
import type { FloorChange } from "../Schema/Baseline.js"
import { BadInput } from "../Schema/Errors.js"
import type { RunResult } from "../Schema/Result.js"
import type { RunDiff } from "../Scorecard/Diff.js"
import { useColor } from "../Terminal.js"

/**
 * What a reporter writes to standard output when it is given no file: the scorecard people read
 * (`scorecard`), a document a program reads (`document`: one at most, and notes for people then go to
 * stderr), or workflow commands a CI log takes out of the scorecard (`annotations`: never to a file,
 * with why; they would break a document).
 */
export type Stdout =
  | { readonly stdout: "scorecard" | "document" }
  | { readonly stdout: "annotations"; readonly noFile: string }

/** A reporter, as the registry lists it. */
export type Reporter = Stdout & {
  /** The options it takes after a colon (`--reporter junit:file-attribute`), each with what it does. */
  readonly options: { readonly [option: string]: string }
  /** What `--help` says it is, when its name does not say enough (`html is …`). */
  readonly about?: string
  /** Its module, loaded when a report is written. */
  readonly load: () => Promise<{ readonly writer: ReportWriter }>
}

/** What the reporters need besides the results. */
export interface ReportContext {
  /** The golden-set file, for annotations and JUnit `file` attributes. */
  readonly casesFile: string
  /** Why no floor applies, for a run held to none (`floor: null`); absent, the reports say none is committed. */
  readonly noFloor?: string | undefined
  /** The comparison with an earlier run (`run --compare`), and that run's file. */
  readonly diff?: { readonly diff: RunDiff; readonly against: string } | undefined
  /** How long the run took. */
  readonly durationMs?: number | undefined
  /** When the run ended, for reports rendered after it (from its results file); now when absent. */
  readonly endedAt?: Date | undefined
  /** The floor's moves, from the baseline's `history`, for a report that charts them. */
  readonly history?: ReadonlyArray<FloorChange> | undefined
  /** Where the HTML report was written, for the reports that point to it. */
  readonly htmlReport?: string | undefined
}

/** Where and when a JUnit report says the run happened. */
export interface RunSite {
  readonly timestamp: Date
  readonly hostname: string
}

/** What one report is written from. */
export interface ReportInput {
  readonly result: RunResult
  /** The options given after the reporter's name. */
  readonly options: ReadonlyArray<string>
  readonly context: ReportContext
  readonly site: RunSite
}

/** Writes one report: to `file`, or to standard output when it is absent. */
export type ReportWriter = (
  input: ReportInput & { readonly file: string | undefined }
) => Effect.Effect<void, BadInput, FileSystem.FileSystem>

/**
 * The writer of a report rendered as text: to a file atomically (its folder made first), or to
 * standard output, painted only there and only where the terminal shows colour.
 */
export const renderedReport =
  (render: (input: ReportInput & { readonly color: boolean }) => string): ReportWriter => ({ file, ...input }) =>
    file === undefined
      ? Effect.suspend(() => Console.log(render({ ...input, color: useColor() })))
      // A report path in CI is often under a folder nothing has made yet (reports/junit.xml).
      : Effect.zipRight(
        folderFor(file),
        Effect.suspend(() => writeAtomically(file, `${render({ ...input, color: false })}\n`))
      )

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
