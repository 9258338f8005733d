/** What the benchmarks share: timing whole processes, their peak memory, the table. */
import { execFileSync, spawn, spawnSync } from "node:child_process"
import { mkdtempSync, readFileSync, realpathSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"

export const bin = resolve("dist/eval.js")
const peakPreload = resolve("bench/peak.cjs")

/** npm's own script, so `measure` can time an npm command as it times the bin: `npm_execpath` under npm. */
const npmCli = process.env["npm_execpath"] ??
  realpathSync(execFileSync("sh", ["-c", "command -v npm"], { encoding: "utf8" }).trim())

/** The arguments `measure` takes for `npm run -s eval -- ARGS` in this checkout. */
export const npmRunEval = (
  args: ReadonlyArray<string>
): ReadonlyArray<string> => [npmCli, "run", "-s", "eval", "--", ...args]

/** `taskset -c 0` when the machine has it: "on one core" means one core. */
const hasTaskset = spawnSync("taskset", ["-c", "0", "true"]).status === 0
export const pinnedNote = hasTaskset ? "pinned to one core" : "not pinned (no taskset here)"

export interface Measured {
  readonly wallMs: number
  readonly peakMiB: number
  readonly code: number | null
  readonly stdout: string
  readonly stderr: string
}

/** Runs `node [args]` to its end, timing it from spawn to exit and reading its peak memory. */
export const measure = (
  args: ReadonlyArray<string>,
  options: { env?: NodeJS.ProcessEnv; pin?: boolean; stdin?: string; nodeArgs?: ReadonlyArray<string> } = {}
): Promise<Measured> => {
  const dir = mkdtempSync(join(tmpdir(), "bench-peak-"))
  const peakFile = join(dir, "peak")
  const node = [process.execPath, ...(options.nodeArgs ?? []), "--require", peakPreload, ...args]
  const [command, ...rest] = options.pin === true && hasTaskset ? ["taskset", "-c", "0", ...node] : node
  const started = performance.now()
  const child = spawn(command!, rest, {
    env: { ...process.env, NO_COLOR: "1", BENCH_PEAK_FILE: peakFile, ...options.env },
    stdio: [options.stdin === undefined ? "ignore" : "pipe", "pipe", "pipe"]
  })
  if (options.stdin !== undefined) child.stdin!.end(options.stdin)
  let stdout = ""
  let stderr = ""
  child.stdout!.setEncoding("utf8").on("data", (c: string) => (stdout += c))
  child.stderr!.setEncoding("utf8").on("data", (c: string) => (stderr += c))
  return new Promise((done) =>
    child.on("close", (code) => {
      const wallMs = performance.now() - started
      let peakMiB = Number.NaN
      try {
        peakMiB = Number(readFileSync(peakFile, "utf8")) / 1024
      } catch {
        // the process ended before it could say
      }
      rmSync(dir, { recursive: true, force: true })
      done({ wallMs, peakMiB, code, stdout, stderr })
    })
  )
}

/** The median of some numbers. */
export const median = (values: ReadonlyArray<number>): number => {
  const sorted = [...values].sort((a, b) => a - b)
  const middle = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
}

/** A difference of medians, and the noise it must clear: the spread of the runs it subtracts. */
export interface Difference {
  readonly ms: number
  readonly noiseMs: number
  /** Whether the difference is a measurement: above zero and above the noise. */
  readonly measured: boolean
}

/**
 * What `runs` took beyond `subtracted` (say, start-up), by medians. Under load the difference can fall
 * below the spread of the subtracted runs, or below zero: it then measures nothing, and a rate made
 * from it must not be printed.
 */
export const difference = (runs: ReadonlyArray<number>, subtracted: ReadonlyArray<number>): Difference => {
  const ms = median(runs) - median(subtracted)
  const noiseMs = Math.max(...subtracted) - Math.min(...subtracted)
  return { ms, noiseMs, measured: ms > 0 && ms > noiseMs }
}

/** How a figure below its noise floor is printed in place of a rate. */
export const belowNoise = (d: Difference): string =>
  `below its noise floor (${d.ms.toFixed(0)} ms beyond start-up, within the ${
    d.noiseMs.toFixed(0)
  } ms spread of the start-up runs)`

/** One row of the report. */
export interface Row {
  readonly benchmark: string
  readonly figure: string
  readonly target: string
  readonly met: boolean | undefined
}

/** The report as a Markdown table. */
export const table = (rows: ReadonlyArray<Row>): string =>
  [
    "| benchmark | measured | target | met |",
    "|---|---|---|---|",
    ...rows.map((r) =>
      `| ${r.benchmark} | ${r.figure} | ${r.target} | ${r.met === undefined ? "—" : r.met ? "yes" : "**no**"} |`
    )
  ].join("\n")
