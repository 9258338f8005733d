/** Runs the built `eval` bin as a subprocess, the way a user or a CI job does. */
import { spawnSync } from "node:child_process"
import { cpSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const bin = resolve("dist/eval.js")

export interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

export const evalCli = (args: ReadonlyArray<string>, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}): CliRun => {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...process.env, NO_COLOR: "1", ...options.env },
    encoding: "utf8",
    timeout: 60_000
  })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

export const shell = (command: string, cwd = process.cwd()): CliRun => {
  const result = spawnSync("sh", ["-c", command], { cwd, env: { ...process.env, NO_COLOR: "1" }, encoding: "utf8", timeout: 120_000 })
  return { code: result.status, stdout: result.stdout, stderr: result.stderr }
}

/** A scratch copy of the committed golden set, catalog and recorded turns (no baseline). */
export const scratchProject = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "eval-project-"))
  cpSync("cases", join(dir, "cases"), { recursive: true })
  return dir
}

/** A stack trace's frame lines, which a user must never see. */
export const stackFrame = /^\s+at .+[(:]\d+/m
