/**
 * What a run that could not measure, or stopped early, says and exits with, through the real CLI:
 * an app that cannot be reached stops at once (exit 2) naming the URL; a run in which no case
 * obtained its turn is no measurement (exit 2, never "below the floor"); an app answering a web page
 * says so; --bail stops starting cases, and the partial run holds no floor.
 */
import { describe, expect, it } from "@effect/vitest"
import { Redacted, Schema } from "effect"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { RunResult } from "../../src/Schema/Result.js"
import { evalCliAsync, streamedLine } from "../support/cli.js"
import { startHostileApp } from "../support/hostileApp.js"
import { goldenSet, withStandIn } from "../support/live.js"

const scratch = () => mkdtempSync(join(tmpdir(), "eval-measure-"))
const total = (await Effect.runPromise(goldenSet)).cases.length
const readResults = (file: string) => Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(file, "utf8")))

describe("a run that measured nothing", () => {
  it("stops at once when the first asks cannot reach the app, naming the URL (exit 2), and --check reads no pass rate", async () => {
    const run = await evalCliAsync(["run", "--base-url", "http://127.0.0.1:1", "--check", "--ratchet"], {
      env: { EVAL_COOKIE: "session=s1", XDG_STATE_HOME: scratch() }
    })
    expect(run.code).toBe(2)
    expect(run.notes.trim()).toBe(
      "error: cannot reach the app at http://127.0.0.1:1/api/ai/docs/ask: connection refused — is the dev server running?"
    )
    expect(run.stdout).not.toContain("below the floor")
    // Not case after case: the first refused connection ends it, before any case has a line of its own.
    expect(run.stderr.split("\n").filter((line) => streamedLine.test(line))).toEqual([])
    expect(run.stdout).toBe("")
  })

  it("is no measurement when the app answers its ask route with a web page, saying so (exit 2)", async () => {
    const app = await startHostileApp(() => ({
      rawBody: "<html><body>Sign in</body></html>",
      contentType: "text/html; charset=utf-8",
      headers: false
    }))
    try {
      const dir = scratch()
      const run = await evalCliAsync(["run", "--base-url", app.url, "--check", "--json", join(dir, "r.json")], {
        env: { EVAL_COOKIE: app.cookie, XDG_STATE_HOME: scratch() }
      })
      expect(run.code).toBe(2)
      const reason =
        `the app answered a web page (HTTP 200 text/html from ${app.url}/api/ai/docs/ask), not the protocol — is the ` +
        `route right and the session signed in?`
      expect(run.stdout).toContain(`turn error  ask: ${reason}`)
      expect(run.stdout).toContain(
        `0/${total} passed · pass rate 0.0000 · no case obtained its turn: the run measured nothing`
      )
      expect(run.notes).toContain(
        `error: no case obtained its turn, so the run measured nothing and no floor is held: ask: ${reason} (`
      )
      // The results are written, and hold no floor.
      expect(readResults(join(dir, "r.json"))).toMatchObject({ floor: null, passed: null, passedCount: 0 })
    } finally {
      await app.close()
    }
  })

  it("is no measurement when no recorded turn is there, with a hint about --fixtures (exit 2)", async () => {
    const empty = scratch()
    mkdirSync(join(empty, "turns"))
    const run = await evalCliAsync(["run", "--fixtures", join(empty, "turns"), "--check"])
    expect(run.code).toBe(2)
    expect(run.notes.trim()).toBe(
      `error: no case obtained its turn, so the run measured nothing and no floor is held: no recorded turn: ${
        join(empty, "turns")
      }/docs.refund-window-cites-source.json — is --fixtures the folder of the recorded turns? (${total} of ${total} turns)`
    )
  })

  it("is a measurement as soon as one case obtained its turn", async () => {
    const run = await evalCliAsync(["run", "--fixtures", "cases/fixtures", "--check", "--silent"])
    expect(run.code).toBe(0)
    expect(run.stderr).toBe("")
  })
})

describe("--bail N", () => {
  it("stops starting cases after N failures; the partial run says so, --check exits 1 and its conversations are deleted", () =>
    withStandIn({ faults: [{ route: "trace", kind: "status", status: 500, rate: 0.5 }] }, async (s) => {
      const dir = scratch()
      const env = { EVAL_COOKIE: Redacted.value(s.cookie()), XDG_STATE_HOME: scratch() }
      const run = await evalCliAsync(
        ["run", "--base-url", s.url, "--bail", "2", "--concurrency", "1", "--check", "--json", join(dir, "r.json")],
        { env }
      )
      expect(run.code).toBe(1)
      const result = readResults(join(dir, "r.json"))
      expect(result.bailed).toBe(true)
      expect(result.floor).toBe(null)
      // One case at a time: exactly two failed, the second of them the last case run.
      expect(result.cases.filter((c) => !c.passed)).toHaveLength(2)
      expect(result.cases.at(-1)!.passed).toBe(false)
      expect(result.total).toBeLessThan(total)
      expect(run.stdout).toContain(
        `stopped after 2 failed cases (--bail 2): ${
          total - result.total
        } of ${total} cases not run; a partial run is held to no floor`
      )
      expect(run.stderr.split("\n").filter((line) => streamedLine.test(line))).toHaveLength(result.total)
      expect(s.stats().requests.ask).toBe(result.total)
      expect(s.conversations()).toEqual([])
    }))

  it("refuses to ratchet from a run that bailed, and merge refuses its results", async () => {
    const dir = scratch()
    const ratchet = await evalCliAsync([
      "run",
      "--fixtures",
      "cases/fixtures",
      "--bail",
      "1",
      "--ratchet",
      "--baseline",
      join(dir, "b.json")
    ])
    expect(ratchet.code).toBe(2)
    expect(ratchet.notes).toMatch(
      /^error: --ratchet: the run stopped after 1 failed case \(--bail 1\): \d+ of \d+ cases not run: the floor moves only on a full run$/m
    )
    const results = join(dir, "r.json")
    await evalCliAsync(["run", "--fixtures", "cases/fixtures", "--bail", "1", "--json", results])
    const from = await evalCliAsync(["ratchet", "--from", results, "--baseline", join(dir, "b.json")])
    expect(from.code).toBe(2)
    expect(from.notes).toContain("stopped early (--bail)")
  })

  it("refuses a --bail below 1 (exit 2)", async () => {
    const run = await evalCliAsync(["run", "--fixtures", "cases/fixtures", "--bail", "0"])
    expect(run.code).toBe(2)
    expect(run.stderr.trim()).toBe("error: --bail must be at least 1")
  })
})
