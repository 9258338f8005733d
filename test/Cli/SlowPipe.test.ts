/**
 * Output through a slow pipe arrives whole, through the real CLI: a reader that takes nothing until the
 * command has written its output (as `| tee log`, a CI log collector or `| (sleep 1; wc -c)` do) still
 * gets the scorecard's end and its verdict line, whether the run passes its floor (exit 0) or not
 * (exit 1), and a run stopped by a signal delivers every line it wrote to standard error. A pipe takes
 * no more than its buffer (64 KiB) at once, so each run here writes several times that.
 */
import { describe, expect, it } from "@effect/vitest"
import { type ChildProcess, spawn, spawnSync } from "node:child_process"
import { closeSync, constants, cpSync, mkdtempSync, openSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Readable } from "node:stream"
import { goldenSetWithRecordings } from "../../bench/generate.js"
import { bin, userEnv } from "../support/cli.js"

/** Cases enough that the scorecard (about 74 bytes a case) is several times a pipe's buffer. */
const cases = 3_000

/** A project in a new folder: a golden set of `cases` cases, the catalog, a recording of each, and two floors. */
const project = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "eval-slow-pipe-"))
  const { casesFile } = goldenSetWithRecordings(join(dir, "cases"), cases)
  renameSync(casesFile, join(dir, "cases", "golden-cases.json"))
  cpSync("cases/surfaces.json", join(dir, "cases", "surfaces.json"))
  writeFileSync(join(dir, "low.json"), JSON.stringify({ floor: 0.5 }))
  writeFileSync(join(dir, "high.json"), JSON.stringify({ floor: 0.99 }))
  return dir
}

const runArgs = (
  floor: "low" | "high"
) => ["run", "--fixtures", "cases/fixtures", "--check", "--baseline", `${floor}.json`]
const env = () => ({ ...userEnv(), NO_COLOR: "1" })

/** What the command writes to standard output when that is a file, which takes every write whole at once. */
const toFile = (dir: string, args: ReadonlyArray<string>): string => {
  const file = join(dir, "stdout.txt")
  const fd = openSync(file, "w")
  try {
    spawnSync(process.execPath, [bin, ...args], { cwd: dir, env: env(), stdio: ["ignore", fd, "ignore"] })
  } finally {
    closeSync(fd)
  }
  return readFileSync(file, "utf8")
}

/** Everything `stream` gives from now to its end. */
const readAll = (stream: Readable): Promise<string> =>
  new Promise((resolve) => {
    let text = ""
    stream.setEncoding("utf8").on("data", (chunk: string) => (text += chunk)).on("end", () => resolve(text))
    stream.resume()
  })

/** Resolves once `stream` has something to read, taking nothing from it: the pipe stays full behind it. */
const written = (stream: Readable): Promise<void> =>
  new Promise((resolve) => {
    const ready = () => {
      stream.off("readable", ready)
      resolve()
    }
    stream.on("readable", ready)
  })

/**
 * A pipe as a shell's `|` makes one (a FIFO in `dir`, 64 KiB of buffer): its write end to give a child,
 * and its read end as a stream. (A child's own stdio "pipes" are socket pairs, whose larger buffers
 * would hide what a pipe drops.)
 */
const shellPipe = (dir: string, name: string) => {
  const path = join(dir, name)
  expect(spawnSync("mkfifo", [path]).status).toBe(0)
  // Opened for reading first, without waiting for a writer, so that opening it for writing does not wait.
  const reader = new Socket({ fd: openSync(path, constants.O_RDONLY | constants.O_NONBLOCK), readable: true })
  return { reader, writeEnd: openSync(path, "w") }
}

/**
 * Runs the command with a reader of its standard output (or error) that is busy elsewhere once the
 * command's first write is in the pipe: `then` acts on the child there, and the reader runs the same
 * command to completion with its output to a file (blocking, so it reads nothing meanwhile), and only
 * then reads. Gives the exit code, what arrived, the other stream's text, and what the command writes
 * whole.
 */
const slowReader = async (
  dir: string,
  args: ReadonlyArray<string>,
  stream: "stdout" | "stderr",
  then: (child: ChildProcess) => void = () => {}
) => {
  const { reader, writeEnd } = shellPipe(dir, `${stream}-${args.join("-").replace(/\W/g, "")}`)
  const child = spawn(process.execPath, [bin, ...args], {
    cwd: dir,
    env: env(),
    stdio: stream === "stdout" ? ["ignore", writeEnd, "pipe"] : ["ignore", "ignore", writeEnd]
  })
  // The child holds the write end now: the pipe ends when the child does.
  closeSync(writeEnd)
  const other = stream === "stdout" ? readAll(child.stderr!) : Promise.resolve("")
  const code = new Promise<number | null>((resolve) => child.on("close", resolve))
  await written(reader)
  then(child)
  const whole = toFile(dir, args)
  const text = await readAll(reader)
  return { code: await code, text, other: await other, whole }
}

/** The scorecard on standard output, read slowly. */
const slowStdout = async (dir: string, args: ReadonlyArray<string>) => {
  const { code, other, text, whole } = await slowReader(dir, args, "stdout")
  return { code, stdout: text, stderr: other, whole }
}

const lastLine = (text: string) => text.trimEnd().split("\n").at(-1)

/** A run interrupted (SIGINT) once its first case line is in a standard error nobody reads yet. */
const interruptedSlowStderr = async (dir: string, args: ReadonlyArray<string>) => {
  const { code, text } = await slowReader(dir, args, "stderr", (child) => child.kill("SIGINT"))
  return { code, stderr: text }
}

describe("a slow reader of standard output", () => {
  const dir = project()

  it("gets the whole scorecard and its verdict line from a run that holds its floor (exit 0)", async () => {
    const run = await slowStdout(dir, runArgs("low"))
    expect(Buffer.byteLength(run.whole)).toBeGreaterThan(3 * 65_536)
    expect(lastLine(run.whole)).toMatch(/^\d+\/3000 passed · pass rate 0\.\d+ · floor 0\.5000 · holds/)
    expect(run.code).toBe(0)
    expect(lastLine(run.stdout)).toBe(lastLine(run.whole))
    expect(Buffer.byteLength(run.stdout)).toBe(Buffer.byteLength(run.whole))
    expect(run.stdout).toBe(run.whole)
  })

  it("gets the whole scorecard and its verdict line from a run below its floor (exit 1)", async () => {
    const run = await slowStdout(dir, runArgs("high"))
    expect(lastLine(run.whole)).toMatch(/^\d+\/3000 passed · pass rate 0\.\d+ · floor 0\.9900 · below the floor/)
    expect(run.code).toBe(1)
    expect(lastLine(run.stdout)).toBe(lastLine(run.whole))
    expect(Buffer.byteLength(run.stdout)).toBe(Buffer.byteLength(run.whole))
    expect(run.stdout).toBe(run.whole)
  })

  it("gets every line a run stopped by a signal wrote to standard error, its last the stop's (exit 130)", async () => {
    const run = await interruptedSlowStderr(dir, runArgs("low"))
    expect(run.code).toBe(130)
    // Case lines came before the stop, more than a pipe takes at once; the stop's own line ends it.
    expect(run.stderr.split("\n").filter((l) => /^[✓✗] /.test(l)).length).toBeGreaterThan(65_536 / 80)
    expect(lastLine(run.stderr)).toBe("interrupted: cleaning up (send it again to quit at once)")
  })
})
