/**
 * Output through a slow pipe arrives whole, through the real CLI: a reader that takes nothing until the
 * command has written its output (as `| tee log`, a CI log collector or `| (sleep 1; wc -c)` do) still
 * gets the scorecard's end and its verdict line, whether the run passes its floor (exit 0) or not
 * (exit 1), and a run stopped by a signal delivers every line it wrote to standard error. A pipe takes
 * no more than its buffer (64 KiB) at once, so each run here writes several times that.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn, spawnSync } from "node:child_process"
import { closeSync, constants, cpSync, mkdtempSync, openSync, readFileSync, renameSync, writeFileSync } from "node:fs"
import { Socket } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Readable } from "node:stream"
import { goldenSetWithRecordings } from "../../bench/generate.js"
import { defaultCasesFile, defaultSurfacesFile } from "../../src/ProjectFiles.js"
import { bin, userEnv } from "../support/cli.js"
import { withStandIn } from "../support/live.js"
import { sessionEnv } from "../support/protocols.js"

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
 * The scorecard on standard output, read slowly: the reader is busy elsewhere once the command's first
 * write is in the pipe, running the same command to completion with its output to a file (blocking, so
 * it reads nothing meanwhile), and only then reads. Gives the exit code, what arrived, standard error,
 * and what the command writes whole.
 */
const slowStdout = async (dir: string, args: ReadonlyArray<string>) => {
  const { reader, writeEnd } = shellPipe(dir, `stdout-${args.join("-").replace(/\W/g, "")}`)
  const child = spawn(process.execPath, [bin, ...args], { cwd: dir, env: env(), stdio: ["ignore", writeEnd, "pipe"] })
  // The child holds the write end now: the pipe ends when the child does.
  closeSync(writeEnd)
  const stderr = readAll(child.stderr!)
  const code = new Promise<number | null>((resolve) => child.on("close", resolve))
  await written(reader)
  const whole = toFile(dir, args)
  const stdout = await readAll(reader)
  return { code: await code, stdout, stderr: await stderr, whole }
}

const lastLine = (text: string) => text.trimEnd().split("\n").at(-1)

/** What the last case of the interrupted run asks, and the stand-in never answers. */
const held = "(held until the run is stopped)"

/**
 * The committed one-question cases, `count` of them under new ids as long as an id may be (so each
 * case's line is about 150 bytes), the last asking what is `held`.
 */
const heldProject = (count: number): string => {
  const dir = mkdtempSync(join(tmpdir(), "eval-slow-pipe-held-"))
  const committed = (JSON.parse(readFileSync(defaultCasesFile, "utf8")) as {
    cases: ReadonlyArray<{ id: string; question?: string }>
  }).cases.filter((c) => c.question !== undefined)
  const cases = Array.from({ length: count }, (_, i) => {
    const c = committed[i % committed.length]!
    return {
      ...c,
      id: `${c.id}.${i}.`.padEnd(128, "_"),
      ...(i === count - 1 ? { question: `${c.question} ${held}` } : {})
    }
  })
  writeFileSync(join(dir, "cases.json"), JSON.stringify({ version: 1, cases }))
  return dir
}

/**
 * A live run interrupted (SIGINT) while it waits on its last case, the lines of every case before it
 * in a standard error nobody has read: one case at a time, so once the stand-in has the last case's
 * question (which it never answers) every other case has ended and written its line. The signal so
 * finds the pipe full and the rest of those lines still queued in the run, whatever the machine's pace.
 */
const interruptedSlowStderr = (count: number) =>
  withStandIn({ faults: [{ route: "trace", kind: "hang", match: held }] }, async (standIn) => {
    const dir = heldProject(count)
    const { reader, writeEnd } = shellPipe(dir, "stderr-interrupted")
    const child = spawn(process.execPath, [
      bin,
      "run",
      "--base-url",
      standIn.url,
      "--cases",
      "cases.json",
      "--surfaces",
      join(process.cwd(), defaultSurfacesFile),
      "--concurrency",
      "1"
    ], { cwd: dir, env: { ...env(), ...sessionEnv(standIn, "cookie") }, stdio: ["ignore", "ignore", writeEnd] })
    closeSync(writeEnd)
    const code = new Promise<number | null>((resolve) => child.on("close", resolve))
    // A run that ends first (refusing its arguments, say) is not waited for: its output says why.
    await Promise.race([standIn.whenRequests("trace", count), code])
    child.kill("SIGINT")
    const stderr = await readAll(reader)
    return { code: await code, stderr }
  })

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

  it("gets every line a run stopped by a signal wrote to standard error, its last the stop's (exit 130)", {
    timeout: 120_000
  }, async () => {
    const cases = 600
    const run = await interruptedSlowStderr(cases)
    expect(run.code).toBe(130)
    // Every case before the held one has its line, more than a pipe takes at once; the stop's own line ends it.
    const caseLines = run.stderr.split("\n").filter((l) => /^[✓✗] /.test(l))
    expect(caseLines).toHaveLength(cases - 1)
    expect(Buffer.byteLength(caseLines.join("\n"))).toBeGreaterThan(65_536)
    expect(lastLine(run.stderr)).toBe("interrupted: cleaning up (send it again to quit at once)")
  })
})
