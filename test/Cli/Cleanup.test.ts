/**
 * Nothing is left without a word, through the real CLI over real HTTP: SIGHUP cleans up like SIGTERM
 * (exit 129); what a run killed with kill -9 or quit with a second Ctrl-C left is in the journal, the
 * next run says so on its first line, and `eval cleanup` deletes it, reporting each id; a retry
 * sleeping in a backoff never holds up a Ctrl-C; ids the app names that no route may hold are listed,
 * escaped, as not deleted.
 */
import { describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { StandIn } from "../../src/StandIn/Server.js"
import { evalCliAsync, stackFrame, startCli } from "../support/cli.js"
import { startHostileApp } from "../support/hostileApp.js"
import { withStandIn } from "../support/live.js"

const cookieOf = (s: StandIn) => Redacted.value(s.cookie())
const scratch = (prefix = "eval-cleanup-") => mkdtempSync(join(tmpdir(), prefix))
const until = async (condition: () => boolean) => {
  const deadline = Date.now() + 20_000
  while (!condition()) {
    if (Date.now() > deadline) throw new Error("timed out waiting")
    await new Promise((resolve) => setTimeout(resolve, 20))
  }
}
const journalFiles = (state: string) =>
  readdirSync(state, { recursive: true, withFileTypes: true }).filter((e) => e.isFile() && e.name.endsWith(".jsonl"))

/** A live run in flight: six cases whose trace reads hang, so their conversations are open. */
const inFlight = (s: StandIn, state: string, extra: ReadonlyArray<string> = []) => {
  s.setFaults([{ route: "trace", kind: "hang" }])
  return startCli(["run", "--base-url", s.url, "--concurrency", "6", "--timeout", "60", ...extra], {
    env: { EVAL_COOKIE: cookieOf(s), XDG_STATE_HOME: state }
  })
}

describe("a run stopped from outside", () => {
  it("cleans up on SIGHUP (a closed terminal) and exits 129", () =>
    withStandIn({}, async (s) => {
      const state = scratch()
      const cli = inFlight(s, state)
      await until(() => s.stats().requests.trace >= 6)
      expect(s.conversations()).toHaveLength(6)
      cli.signal("SIGHUP")
      const run = await cli.done
      expect(run.code).toBe(129)
      expect(run.stderr).toContain("hung up: cleaning up")
      expect(run.stderr).not.toMatch(stackFrame)
      expect(s.conversations()).toEqual([])
      expect(journalFiles(state)).toEqual([])
    }))

  it("after kill -9, the next run says so first, and eval cleanup deletes each conversation left", () =>
    withStandIn({}, async (s) => {
      const state = scratch()
      const env = { EVAL_COOKIE: cookieOf(s), XDG_STATE_HOME: state }
      const cli = inFlight(s, state)
      await until(() => s.stats().requests.trace >= 6)
      cli.signal("SIGKILL")
      expect((await cli.done).code).toBe(null)
      const left = s.conversations().map((c) => c.id).sort()
      expect(left).toHaveLength(6)
      // The journal holds the ids, never the cookie.
      const journal = journalFiles(state).map((e) => readFileSync(join(e.parentPath, e.name), "utf8")).join("")
      for (const id of left) expect(journal).toContain(id)
      expect(journal).not.toContain(cookieOf(s).split("=")[1]!)

      s.setFaults([])
      const next = await evalCliAsync(["run", "--base-url", s.url, "--filter", "smoke"], { env })
      expect(next.stderr.split("\n")[0]).toBe(
        `note: earlier runs left 6 conversations undeleted in this account at ${s.url}/; \`turn-eval cleanup --base-url ${s.url}/\` deletes them`
      )

      const cleanup = await evalCliAsync(["cleanup", "--base-url", s.url], { env })
      expect(cleanup.stderr).toBe("")
      expect(cleanup.code).toBe(0)
      const reported = [...cleanup.stdout.matchAll(/^deleted +(conv_\S+) +(\S+) \(left by process \d+ started [^)]+\)$/gm)]
      expect(reported.map((m) => m[1]).sort()).toEqual(left)
      expect(cleanup.stdout).toContain(`6 conversations cleaned up at ${s.url}/; the journal holds none of this session now`)
      expect(s.conversations()).toEqual([])
      expect(journalFiles(state)).toEqual([])

      const again = await evalCliAsync(["cleanup", "--base-url", s.url], { env })
      expect(again.code).toBe(0)
      expect(again.stdout.trim()).toBe(
        `nothing to clean up at ${s.url}/: the journal holds no conversation of this session left by an earlier run`
      )
    }))

  it("a second Ctrl-C quits at once, saying what it leaves; eval cleanup deletes it, and keeps what it cannot", () =>
    withStandIn({}, async (s) => {
      const state = scratch()
      const env = { EVAL_COOKIE: cookieOf(s), XDG_STATE_HOME: state }
      const cli = inFlight(s, state)
      await until(() => s.stats().requests.trace >= 6)
      // The deletes hang, so the first Ctrl-C's cleanup is still going when the second comes.
      s.setFaults([{ route: "trace", kind: "hang" }, { route: "delete", kind: "hang" }])
      cli.signal("SIGINT")
      await until(() => s.stats().requests.delete >= 6)
      cli.signal("SIGINT")
      const run = await cli.done
      expect(run.code).toBe(130)
      expect(run.stderr).toContain(
        `quitting at once: 6 conversations still open at ${s.url}/ are kept in the journal; \`turn-eval cleanup --base-url ${s.url}/\` deletes them`
      )
      expect(s.conversations()).toHaveLength(6)

      // One delete fails: that conversation stays in the journal for the next cleanup.
      const failing = s.conversations()[0]!
      s.setFaults([{ route: "delete", kind: "status", status: 500, match: failing.question }])
      const first = await evalCliAsync(["cleanup", "--base-url", s.url, "--timeout", "2"], { env })
      expect(first.code).toBe(1)
      expect(first.stdout).toMatch(new RegExp(`^not deleted +${failing.id} .*: delete: HTTP 500`, "m"))
      expect([...first.stdout.matchAll(/^deleted /gm)]).toHaveLength(5)
      expect(first.stdout).toContain("5 conversations cleaned up")
      expect(first.stdout).toContain("1 could not be deleted and stay in the journal (run turn-eval cleanup again)")
      expect(s.conversations().map((c) => c.id)).toEqual([failing.id])

      s.setFaults([])
      const second = await evalCliAsync(["cleanup", "--base-url", s.url], { env })
      expect(second.code).toBe(0)
      expect(second.stdout).toMatch(new RegExp(`^deleted +${failing.id} `, "m"))
      expect(s.conversations()).toEqual([])
    }))

  it("a Ctrl-C during a retry's backoff ends the run at once", () =>
    withStandIn({}, async (s) => {
      // Every ask is answered 429 with a Retry-After of 30 s: the run only ever sleeps.
      s.setFaults([{ route: "ask", kind: "status", status: 429, retryAfter: "30" }])
      const cli = startCli(["run", "--base-url", s.url, "--concurrency", "4"], {
        env: { EVAL_COOKIE: cookieOf(s), XDG_STATE_HOME: scratch() }
      })
      await until(() => s.stats().requests.ask >= 4)
      const signalled = Date.now()
      cli.signal("SIGINT")
      const run = await cli.done
      expect(run.code).toBe(130)
      // Not the five seconds an ask in flight may get to name its conversation: nothing is in flight.
      expect(Date.now() - signalled).toBeLessThan(2_500)
      expect(s.conversations()).toEqual([])
    }))
})

describe("ids no route may hold", () => {
  it("are listed escaped as not deleted, never as lines of their own", async () => {
    const payloads = ["..", "conv\n::error file=cases/golden-cases.json::forged", "conv\r\n✓ docs  docs.fake-case"]
    // Questions take the payloads in turn, and every fourth is answered as it should be.
    const seen: Array<string> = []
    const app = await startHostileApp((question) => {
      if (!seen.includes(question)) seen.push(question)
      const i = seen.indexOf(question) % (payloads.length + 1)
      return i < payloads.length ? { mode: "json", conversationId: payloads[i]!, headers: false } : { mode: "json" }
    })
    try {
      const run = await evalCliAsync(["run", "--base-url", app.url], {
        env: { EVAL_COOKIE: app.cookie, XDG_STATE_HOME: scratch() }
      })
      expect(run.code).toBe(0)
      const listed = run.stderr.split("\n").filter((line) => /^ {2}\S/.test(line))
      const refused = app.requests().filter((r) => r.method === "DELETE")
      expect(run.stderr).toMatch(/^\d+ conversations? could not be deleted; delete (it|them) by hand:$/m)
      for (const line of listed) expect(line).toMatch(/^ {2}(\.\.|conv\\n::error|conv\\r\\n✓ docs)/)
      const hostile = seen.filter((_, i) => i % (payloads.length + 1) < payloads.length).length
      expect(listed).toHaveLength(hostile)
      expect(refused).toHaveLength(seen.length - hostile)
      for (const [i, payload] of payloads.entries()) {
        const escaped = payload.replace(/\r/g, "\\r").replace(/\n/g, "\\n")
        expect(listed.filter((line) => line.startsWith(`  ${escaped}  `))).toHaveLength(seen.filter((_, k) => k % (payloads.length + 1) === i).length)
      }
      expect(`${run.stdout}\n${run.stderr}`.split(/\r\n|\r|\n/).filter((line) => line.startsWith("::"))).toEqual([])
      expect(run.stdout.split("\n").filter((line) => /^[✓✗~] /.test(line))).toHaveLength(22)
    } finally {
      await app.close()
    }
  })
})
