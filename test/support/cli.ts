/** Runs the built bin (dist/eval.js) as a subprocess, the way a user or a CI job does. */
import { type ChildProcessWithoutNullStreams, spawn, spawnSync } from "node:child_process"
import { cpSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const bin = resolve("dist/eval.js")

/**
 * The environment without npm's own variables: the CLI runs as a user's shell runs `node dist/eval.js`
 * (and names itself `turn-eval`), however the tests were started (`npm test`, `npx vitest`).
 */
export const userEnv = (env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv =>
  Object.fromEntries(Object.entries(env).filter(([key]) => !/^npm_/i.test(key) && key !== "INIT_CWD"))

export interface CliRun {
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
  /** Standard error without the line per case that a run streams there off a terminal: its messages. */
  readonly notes: string
}

/** A case's line as a run streams it to stderr off a terminal: the scorecard's line and a wall time. */
export const streamedLine = /^[✓✗~] .* {2}\d+(ms|\.\d+s|m\d\ds)$/

/** Standard error without the streamed case lines. */
export const notesOf = (stderr: string): string =>
  stderr.split("\n").filter((line) => !streamedLine.test(line)).join("\n")

const finished = (code: number | null, stdout: string, stderr: string): CliRun => ({
  code,
  stdout,
  stderr,
  notes: notesOf(stderr)
})

export const evalCli = (
  args: ReadonlyArray<string>,
  options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}
): CliRun => {
  const result = spawnSync(process.execPath, [bin, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...userEnv(), NO_COLOR: "1", ...options.env },
    encoding: "utf8",
    timeout: 60_000
  })
  return finished(result.status, result.stdout, result.stderr)
}

export const shell = (command: string, cwd = process.cwd()): CliRun => {
  const result = spawnSync("sh", ["-c", command], {
    cwd,
    env: { ...userEnv(), NO_COLOR: "1" },
    encoding: "utf8",
    timeout: 120_000
  })
  return finished(result.status, result.stdout, result.stderr)
}

/** A scratch copy of the committed golden set, catalog and recorded turns (no baseline). */
export const scratchProject = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "eval-project-"))
  cpSync("cases", join(dir, "cases"), { recursive: true })
  return dir
}

/** A stack trace's frame lines, which a user must never see. */
export const stackFrame = /^\s+at .+[(:]\d+/m

/** A running CLI subprocess: its output so far, a way to signal it, and its end. */
export interface CliProcess {
  readonly pid: number
  readonly stdout: () => string
  readonly stderr: () => string
  /** Settles when the standard error holds `text`; fails if the process ends without it. */
  readonly whenStderr: (text: string) => Promise<void>
  readonly signal: (signal: NodeJS.Signals) => void
  readonly done: Promise<CliRun>
}

/**
 * Starts the CLI without blocking the test's event loop, so a server in the test process (the
 * stand-in) can answer it.
 */
export const startCli = (
  args: ReadonlyArray<string>,
  options: { cwd?: string; env?: NodeJS.ProcessEnv; nodeArgs?: ReadonlyArray<string> } = {}
): CliProcess => {
  const child = spawn(process.execPath, [...(options.nodeArgs ?? []), bin, ...args], {
    cwd: options.cwd ?? process.cwd(),
    env: { ...userEnv(), NO_COLOR: "1", EVAL_COOKIE: "", ...options.env }
  })
  return { pid: child.pid ?? 0, signal: (s) => void child.kill(s), ...collect(child, 60_000) }
}

/** A child's output as it comes, and its end; killed after `timeoutMs`. */
const collect = (child: ChildProcessWithoutNullStreams, timeoutMs: number) => {
  let stdout = ""
  let stderr = ""
  child.stdout.setEncoding("utf8").on("data", (chunk: string) => (stdout += chunk))
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const done = new Promise<CliRun>((resolve) => {
    const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs)
    child.on("close", (code) => {
      clearTimeout(timer)
      resolve(finished(code, stdout, stderr))
    })
  })
  const whenStderr = (text: string): Promise<void> =>
    new Promise((resolve, reject) => {
      const check = () => {
        if (!stderr.includes(text)) return
        child.stderr.off("data", check)
        resolve()
      }
      child.stderr.on("data", check)
      // Every data event comes before the close `done` settles on, so a text that came has resolved by then.
      void done.then(() => {
        child.stderr.off("data", check)
        reject(new Error(`the process ended without ${JSON.stringify(text)} on its standard error`))
      })
      check()
    })
  return { stdout: () => stdout, stderr: () => stderr, whenStderr, done }
}

/** Runs the CLI to its end without blocking the event loop. */
export const evalCliAsync = (args: ReadonlyArray<string>, options: { cwd?: string; env?: NodeJS.ProcessEnv } = {}) =>
  startCli(args, options).done

/** Runs any program to its end without blocking the event loop, killing it after `timeoutMs`. */
export const spawnAsync = (
  command: string,
  args: ReadonlyArray<string>,
  options: { readonly cwd: string; readonly env: NodeJS.ProcessEnv; readonly timeoutMs?: number }
): Promise<CliRun> =>
  collect(spawn(command, args, { cwd: options.cwd, env: options.env }), options.timeoutMs ?? 60_000).done

/** Runs a shell command without blocking the event loop (a stand-in in the test process must answer it). */
export const shellAsync = (command: string, cwd: string, env: NodeJS.ProcessEnv): Promise<CliRun> =>
  spawnAsync("sh", ["-c", command], { cwd, env })
