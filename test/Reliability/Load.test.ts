/**
 * Interruption and load, through the real CLI against the stand-in: signals at seeded random points
 * of a run with 50 cases in flight, and 1,000 cases at concurrency 32 under a cap of 32 open
 * conversations. Long: runs when RELIABILITY=1 (CI sets it); RELIABILITY_REPORT=DIR also writes the figures there.
 */
import { afterAll, describe, expect, it } from "@effect/vitest"
import { Redacted, Schema } from "effect"
import { existsSync, mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { goldenSet, seeded } from "../../bench/generate.js"
import { RunResult } from "../../src/Schema/Result.js"
import { stackFrame, startCli } from "../support/cli.js"
import { withStandIn } from "../support/live.js"

const enabled = process.env["RELIABILITY"] === "1"
const figures: Array<string> = []

/** A golden set of `count` cases in a new folder: the committed ones, copied under new ids. */
const bigGoldenSet = (count: number): string => {
  const dir = mkdtempSync(join(tmpdir(), "eval-big-"))
  goldenSet(dir, count)
  return dir
}

describe.runIf(enabled)("interrupting a live run", () => {
  it(
    "at 18 seeded random points (SIGINT, SIGTERM, SIGHUP), with 50 cases in flight, leaves no conversation and no results file",
    async () => {
      const dir = bigGoldenSet(500)
      // The generated set's own floor: the checkout's belongs to the committed golden set.
      writeFileSync(join(dir, "baseline.json"), JSON.stringify({ cases: "cases.json", floor: 0.5 }))
      const random = seeded(20261130)
      let leaked = 0
      let duringAsks = 0
      const signals = [["SIGINT", 130], ["SIGTERM", 143], ["SIGHUP", 129]] as const
      const trials = 18
      for (let trial = 0; trial < trials; trial++) {
        const [signal, code] = signals[trial % signals.length]!
        // A point of the run, counted from its first request: the node process's own start-up before that
        // takes as long as the machine is loaded, and is no part of the run.
        const delay = Math.floor(random() * 2500)
        await withStandIn({ maxConversations: 50, latency: { ask: 150, conversation: 100, trace: 200 } }, async (s) => {
          const out = join(dir, `r${trial}.json`)
          const cli = startCli(
            [
              "run",
              "--base-url",
              s.url,
              "--cases",
              join(dir, "cases.json"),
              "--concurrency",
              "50",
              "--json",
              out,
              "--baseline",
              join(dir, "baseline.json"),
              "--check"
            ],
            { env: { EVAL_COOKIE: Redacted.value(s.cookie()) } }
          )
          await s.whenRequests("ask", 1)
          await new Promise((r) => setTimeout(r, delay))
          const asked = s.stats().requests.ask
          const created = s.stats().created
          if (asked > created) duringAsks++
          cli.signal(signal)
          const run = await cli.done
          expect(run.code).toBe(code)
          expect(run.stderr).not.toMatch(stackFrame)
          expect(existsSync(out)).toBe(false)
          leaked += s.conversations().length
          expect(s.conversations()).toEqual([])
        })
      }
      figures.push(
        `| interrupt (SIGINT/SIGTERM/SIGHUP) at ${trials} seeded points, 50 cases in flight | ${duringAsks} of ` +
          `${trials} signals arrived while asks were unanswered | conversations leaked: ${leaked}; results files written: 0 |`
      )
    },
    180_000
  )
})

describe.runIf(enabled)("1,000 cases at concurrency 32", () => {
  it("never hit a cap of 32 open conversations, keep golden-set order, and hold memory flat", async () => {
    const peaks: Record<number, number> = {}
    const resultsMiB: Record<number, number> = {}
    for (const count of [100, 1000]) {
      const dir = bigGoldenSet(count)
      await withStandIn({ maxConversations: 32, latency: { ask: 10 } }, async (s) => {
        const out = join(dir, "r.json")
        const sampled = join(dir, "memory.json")
        const cli = startCli(
          ["run", "--base-url", s.url, "--cases", join(dir, "cases.json"), "--concurrency", "32", "--json", out],
          {
            env: { EVAL_COOKIE: Redacted.value(s.cookie()), HEAP_SAMPLE_FILE: sampled },
            nodeArgs: ["--expose-gc", "--require", resolve("test/support/heapSampler.cjs")]
          }
        )
        const run = await cli.done
        expect(run.code).toBe(0)
        const memory = JSON.parse(readFileSync(sampled, "utf8")) as { heapMiB: number; rssMiB: number }
        peaks[count] = memory.heapMiB
        resultsMiB[count] = statSync(out).size / 1024 / 1024
        const result = Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(out, "utf8")))
        const ids = (JSON.parse(readFileSync(join(dir, "cases.json"), "utf8")) as { cases: Array<{ id: string }> })
          .cases
          .map((c) => c.id)
        expect(result.cases.map((c) => c.id)).toEqual(ids)
        expect(result.passedCount).toBe(count)
        const stats = s.stats()
        expect(stats.capHits).toBe(0)
        expect(stats.created).toBe(count)
        expect(stats.deleted).toBe(count)
        expect(stats.peakInFlight).toBeLessThanOrEqual(32)
        expect(s.conversations()).toEqual([])
        figures.push(
          `| ${count} cases, concurrency 32, cap 32 | cap hits: ${stats.capHits}; peak requests in flight: ` +
            `${stats.peakInFlight}; results in golden-set order | heap kept (after collection): ${
              memory.heapMiB.toFixed(1)
            } MiB; results file ${resultsMiB[count]!.toFixed(1)} MiB; peak resident: ${memory.rssMiB.toFixed(0)} MiB |`
        )
      })
    }
    // Flat: ten times the cases keep little more memory than their results, which the reports are
    // written from at the end: a result per case, with the turn it was graded on, clipped. As objects
    // they take a few times their JSON; nothing else of a turn is kept.
    const kept = resultsMiB[1000]! - resultsMiB[100]!
    expect(peaks[1000]! - peaks[100]!).toBeLessThan(8 + 6 * kept)
  }, 180_000)
})

afterAll(() => {
  const report = process.env["RELIABILITY_REPORT"]
  if (report !== undefined && figures.length > 0) {
    mkdirSync(report, { recursive: true })
    writeFileSync(
      join(report, "load.md"),
      ["| run | what happened | figures |", "|---|---|---|", ...figures, ""].join("\n")
    )
  }
})
