/** A run's journal files under a state folder, and one made to read as a run that has ended. */
import { spawnSync } from "node:child_process"
import { readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"

/** The journal files under a state folder, by path. */
export const journalFiles = (dir: string): ReadonlyArray<string> =>
  readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile() && e.name.endsWith(".jsonl"))
    .map((e) => join(e.parentPath, e.name))

/** A pid no process has: one that just ended. */
export const deadPid = (): number => spawnSync(process.execPath, ["-e", "0"]).pid!

/** A journal file's text as this process's run wrote it, but with its pid one that no process holds. */
export const endedRunText = (file: string): string =>
  readFileSync(file, "utf8").replace(`"pid":${process.pid}`, `"pid":${deadPid()}`)

/** Makes a journal file this process wrote read as a run that has ended. */
export const endRun = (file: string): void => writeFileSync(file, endedRunText(file))
