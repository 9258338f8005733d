/**
 * Which golden set a baseline's floor belongs to. The baseline names its cases file (`cases`)
 * relative to its own folder, so that a checkout moved elsewhere, or a run from another folder,
 * still finds it. A baseline that names none was written before it was named, when the floor was of
 * the default cases file as a run found it: it belongs to the default cases file beside it, or in the
 * working folder, so that such a baseline kept anywhere holds the set it was set by. Two names are the
 * same file when they resolve to one real path, links followed: `./cases/golden-cases.json`, an
 * absolute path and `cases/golden-cases.json` are one golden set.
 */
import { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import { dirname, isAbsolute, relative, resolve, sep } from "node:path"
import { defaultCasesFile } from "../ProjectFiles.js"
import type { Baseline } from "../Schema/Baseline.js"

/**
 * The cases file a baseline at `baselineFile` belongs to, as an absolute path: the one it names, or
 * for one that names none the default cases file beside it (or, see above, in the working folder).
 */
export const casesOfBaseline = (baselineFile: string, baseline: Pick<Baseline, "cases">): string =>
  resolve(dirname(baselineFile), baseline.cases ?? defaultCasesFile)

// Every file the baseline may belong to: the one it names, or the default beside it and in the working folder.
const candidates = (baselineFile: string, baseline: Pick<Baseline, "cases">): ReadonlyArray<string> =>
  baseline.cases === undefined
    ? [casesOfBaseline(baselineFile, baseline), resolve(defaultCasesFile)]
    : [casesOfBaseline(baselineFile, baseline)]

/**
 * The `cases` a baseline at `baselineFile` records for `casesFile`: the path from the baseline's
 * folder, with `/` between its parts on every system, as it is committed.
 */
export const casesEntry = (baselineFile: string, casesFile: string): string => {
  const path = relative(resolve(dirname(baselineFile)), resolve(casesFile))
  return isAbsolute(path) ? path : path.split(sep).join("/")
}

/**
 * A file's name for the messages: relative to the working folder when it is inside it, else absolute,
 * so that it reads as the user would type it.
 */
export const shownPath = (file: string): string => {
  const path = relative(process.cwd(), resolve(file))
  return path === "" || path === ".." || path.startsWith(`..${sep}`) || isAbsolute(path) ? resolve(file) : path
}

// A file's real path, or its resolved path where there is none to find (a file not made yet).
const realPathOf = (fs: FileSystem.FileSystem, file: string): Effect.Effect<string> =>
  fs.realPath(file).pipe(Effect.orElseSucceed(() => resolve(file)))

/** Whether the floor in the baseline at `baselineFile` belongs to the golden set read from `casesFile`. */
export const belongsTo = (
  baselineFile: string,
  baseline: Pick<Baseline, "cases">,
  casesFile: string
): Effect.Effect<boolean, never, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const run = yield* realPathOf(fs, casesFile)
    for (const own of candidates(baselineFile, baseline)) {
      if ((yield* realPathOf(fs, own)) === run) return true
    }
    return false
  })
