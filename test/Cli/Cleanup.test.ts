/**
 * Nothing is left without a word, through the real CLI over real HTTP: SIGHUP cleans up like SIGTERM
 * (exit 129); what a run killed with kill -9 or quit with a second Ctrl-C left is in the journal, the
 * next run says so on its first line, and `eval cleanup` deletes it, reporting each id; a retry
 * sleeping in a backoff never holds up a Ctrl-C; ids the app names that no route may hold are listed,
 * escaped, as not deleted. Each holds on every protocol that keeps conversations (the AI SDK's chats,
 * LangGraph's threads, each journalled with its own delete route and signed in by a header), and an
 * AG-UI agent, which keeps none, leaves nothing in the journal.
 */
import { describe, expect, it } from "@effect/vitest"
import { Redacted } from "effect"
import { existsSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { questionCases } from "../../src/Schema/Case.js"
import { fillRoute } from "../../src/Schema/Protocol.js"
import type { StandIn } from "../../src/StandIn/Server.js"
import { evalCliAsync, stackFrame, startCli } from "../support/cli.js"
import { goldenCases } from "../support/golden.js"
import { startHoldingProxy } from "../support/holdingProxy.js"
import { startHostileApp } from "../support/hostileApp.js"
import { withStandIn } from "../support/live.js"
import {
  deleteRouteOf,
  headerSignInOf,
  type ProtocolSet,
  secretOf,
  sessionEnv,
  surfacesArgs,
  withProtocolStandIn
} from "../support/protocols.js"

const cookieOf = (s: StandIn) => Redacted.value(s.cookie())
const scratch = (prefix = "eval-cleanup-") => mkdtempSync(join(tmpdir(), prefix))
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
      await s.whenRequests("trace", 6)
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
      await s.whenRequests("trace", 6)
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
        `note: earlier runs left 6 conversations undeleted in this account at ${s.url}/; \`turn-eval cleanup ` +
          `--base-url ${s.url}/\` deletes them`
      )

      const cleanup = await evalCliAsync(["cleanup", "--base-url", s.url], { env })
      expect(cleanup.stderr).toBe("")
      expect(cleanup.code).toBe(0)
      const reported = [
        ...cleanup.stdout.matchAll(/^deleted +(conv_\S+) +(\S+) \(left by process \d+ started [^)]+\)$/gm)
      ]
      expect(reported.map((m) => m[1]).sort()).toEqual(left)
      expect(cleanup.stdout).toContain(
        `6 conversations cleaned up at ${s.url}/; the journal holds none of this session now`
      )
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
      await s.whenRequests("trace", 6)
      // The deletes hang, so the first Ctrl-C's cleanup is still going when the second comes.
      s.setFaults([{ route: "trace", kind: "hang" }, { route: "delete", kind: "hang" }])
      cli.signal("SIGINT")
      await s.whenRequests("delete", 6)
      cli.signal("SIGINT")
      const run = await cli.done
      expect(run.code).toBe(130)
      expect(run.stderr).toContain(
        `quitting at once: 6 conversations still open at ${s.url}/ are kept in the journal; \`turn-eval cleanup ` +
          `--base-url ${s.url}/\` deletes them`
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
      // Every ask is answered 429 with a Retry-After longer than the test may take: the run only ever sleeps.
      s.setFaults([{ route: "ask", kind: "status", status: 429, retryAfter: "60" }])
      const cli = startCli(["run", "--base-url", s.url, "--concurrency", "4"], {
        env: { EVAL_COOKIE: cookieOf(s), XDG_STATE_HOME: scratch() }
      })
      await s.whenRequests("ask", 4)
      const asked = s.stats().requests.ask
      cli.signal("SIGINT")
      const run = await cli.done
      expect(run.code).toBe(130)
      // The sleeps were cut, never slept out into another ask, and no sleeping ask was taken for one in flight.
      expect(s.stats().requests.ask).toBe(asked)
      expect(`${run.stdout}${run.stderr}`).not.toContain("may have left")
      expect(s.conversations()).toEqual([])
    }))
})

/** A live run over `protocol` through a proxy that holds each ask in flight, six at a time, its conversation open in the app. */
const heldInFlight = async (s: StandIn, p: ProtocolSet, state: string) => {
  const proxy = await startHoldingProxy(s.url)
  const env = { ...sessionEnv(s, headerSignInOf[p.protocol]), XDG_STATE_HOME: state }
  const results = join(scratch(), "r.json")
  const cli = startCli([
    "run",
    "--base-url",
    proxy.url,
    ...surfacesArgs(p),
    "--concurrency",
    "6",
    "--timeout",
    "60",
    "--json",
    results
  ], {
    env
  })
  await proxy.whenHeld(6)
  return { proxy, cli, env, results }
}

/** The conversations a journal holds open, each with the delete route it records (the file's own when it names none). */
const journalled = (state: string) =>
  journalFiles(state).flatMap((e) => {
    const lines = readFileSync(join(e.parentPath, e.name), "utf8").split("\n").filter((l) => l !== "")
    const entries = lines.map((l) => JSON.parse(l) as { delete?: string; open?: string; gone?: string })
    const fileRoute = entries[0]?.delete
    const gone = new Set(entries.flatMap((x) => x.gone === undefined ? [] : [x.gone]))
    return entries.flatMap((x) =>
      x.open === undefined || gone.has(x.open) ? [] : [{ id: x.open, route: x.delete ?? fileRoute }]
    )
  })

describe("a run stopped from outside, per protocol", () => {
  for (const protocol of ["ai-sdk", "langgraph"] as const) {
    const route = deleteRouteOf[protocol]!
    const deletePath = (id: string) => fillRoute(route, { conversationId: id })

    it(`${protocol}: cleans up on SIGHUP and exits 129`, () =>
      withProtocolStandIn(protocol, {}, async (s, p) => {
        const state = scratch()
        const { cli, proxy, results } = await heldInFlight(s, p, state)
        try {
          const open = s.conversations().map((c) => c.id).sort()
          expect(open).toHaveLength(6)
          // The held answers never come and the run's timeout outlasts the test: only a run that waits for none ends.
          cli.signal("SIGHUP")
          const run = await cli.done
          expect(run.code).toBe(129)
          expect(existsSync(results)).toBe(false)
          expect(run.stderr).toBe("\nhung up: cleaning up (send it again to quit at once)\n")
          expect(proxy.seen().filter((r) => r.method === "DELETE").map((r) => r.path).sort()).toEqual(
            open.map(deletePath).sort()
          )
          expect(s.conversations()).toEqual([])
          expect(journalFiles(state)).toEqual([])
        } finally {
          await proxy.close()
        }
      }))

    it(`${protocol}: after kill -9, the journal holds each conversation and its delete route; cleanup deletes each there`, () =>
      withProtocolStandIn(protocol, {}, async (s, p) => {
        const state = scratch()
        const { cli, env, proxy } = await heldInFlight(s, p, state)
        try {
          cli.signal("SIGKILL")
          expect((await cli.done).code).toBe(null)
          const left = s.conversations().map((c) => c.id).sort()
          expect(left).toHaveLength(6)
          // The journal holds the ids, each with the protocol's own delete route, and never the session.
          expect(journalled(state).sort((a, b) => a.id.localeCompare(b.id))).toEqual(left.map((id) => ({ id, route })))
          const journal = journalFiles(state).map((e) => readFileSync(join(e.parentPath, e.name), "utf8")).join("")
          expect(journal).not.toContain(secretOf(s))

          proxy.setHold(() => false)
          const url = `${proxy.url}/`
          const next = await evalCliAsync(["run", "--base-url", proxy.url, ...surfacesArgs(p), "--filter", "smoke"], {
            env
          })
          // The next run says so first.
          expect(next.stderr.split("\n")[0]).toBe(
            `note: earlier runs left 6 conversations undeleted in this account at ${url}; ` +
              `\`turn-eval cleanup --base-url ${url}\` deletes them`
          )

          const deletesBefore = proxy.seen().filter((r) => r.method === "DELETE").length
          const cleanup = await evalCliAsync(["cleanup", "--base-url", proxy.url], { env })
          expect(cleanup.stderr).toBe("")
          expect(cleanup.code).toBe(0)
          const reported = [
            ...cleanup.stdout.matchAll(/^deleted +(\S+) +(\S+) \(left by process \d+ started [^)]+\)$/gm)
          ]
          expect(reported.map((m) => m[1]).sort()).toEqual(left)
          expect(cleanup.stdout).toContain(
            `6 conversations cleaned up at ${url}; the journal holds none of this session now`
          )
          const deleted = proxy.seen().filter((r) => r.method === "DELETE").slice(deletesBefore).map((r) => r.path)
          expect(deleted.sort()).toEqual(left.map(deletePath).sort())
          expect(s.conversations()).toEqual([])
          expect(journalFiles(state)).toEqual([])
          expect(cleanup.stdout + cleanup.stderr + next.stdout + next.stderr).not.toContain(secretOf(s))
        } finally {
          await proxy.close()
        }
      }))

    it(`${protocol}: a second Ctrl-C quits at once, leaving the journal to cleanup, which keeps what it cannot delete`, () =>
      withProtocolStandIn(protocol, {}, async (s, p) => {
        const state = scratch()
        const { cli, env, proxy } = await heldInFlight(s, p, state)
        try {
          // The deletes hang, so the first Ctrl-C's cleanup is still going when the second comes.
          s.setFaults([{ route: "delete", kind: "hang" }])
          cli.signal("SIGINT")
          await s.whenRequests("delete", 6)
          cli.signal("SIGINT")
          const run = await cli.done
          expect(run.code).toBe(130)
          const url = `${proxy.url}/`
          expect(run.stderr).toBe(
            "\ninterrupted: cleaning up (send it again to quit at once)\n" +
              `quitting at once: 6 conversations still open at ${url} are kept in the journal; ` +
              `\`turn-eval cleanup --base-url ${url}\` deletes them\n`
          )
          const left = s.conversations()
          expect(journalled(state).map((j) => j.id).sort()).toEqual(left.map((c) => c.id).sort())

          // One delete fails: that conversation stays in the journal for the next cleanup.
          const failing = left[0]!
          s.setFaults([{ route: "delete", kind: "status", status: 500, match: failing.question }])
          const first = await evalCliAsync(["cleanup", "--base-url", proxy.url, "--timeout", "2"], { env })
          expect(first.code).toBe(1)
          expect(first.stdout).toMatch(
            new RegExp(
              `^not deleted +${failing.id} .*: delete: HTTP 500 — DELETE ${proxy.url}${deletePath(failing.id)}$`,
              "m"
            )
          )
          expect([...first.stdout.matchAll(/^deleted /gm)]).toHaveLength(5)
          expect(first.stdout).toContain("1 could not be deleted and stay in the journal (run turn-eval cleanup again)")
          expect(s.conversations().map((c) => c.id)).toEqual([failing.id])
          expect(journalled(state)).toEqual([{ id: failing.id, route }])

          s.setFaults([])
          const second = await evalCliAsync(["cleanup", "--base-url", proxy.url], { env })
          expect(second.code).toBe(0)
          expect(second.stdout).toMatch(new RegExp(`^deleted +${failing.id} `, "m"))
          expect(s.conversations()).toEqual([])
          expect(journalFiles(state)).toEqual([])
        } finally {
          await proxy.close()
        }
      }))
  }

  it("ag-ui: SIGHUP and kill -9 leave nothing: an agent that keeps no thread is never journalled", () =>
    withProtocolStandIn("ag-ui", {}, async (s, p) => {
      const state = scratch()
      const hungUp = await heldInFlight(s, p, state)
      try {
        // An agent that keeps no thread leaves nothing to wait for: the held answers never come.
        hungUp.cli.signal("SIGHUP")
        const run = await hungUp.cli.done
        expect(run.code).toBe(129)
        expect(existsSync(hungUp.results)).toBe(false)
        expect(run.stderr).toBe("\nhung up: cleaning up (send it again to quit at once)\n")
      } finally {
        await hungUp.proxy.close()
      }
      const killed = await heldInFlight(s, p, state)
      try {
        killed.cli.signal("SIGKILL")
        expect((await killed.cli.done).code).toBe(null)
        expect(journalFiles(state)).toEqual([])
        killed.proxy.setHold(() => false)
        const next = await evalCliAsync([
          "run",
          "--base-url",
          killed.proxy.url,
          ...surfacesArgs(p),
          "--filter",
          "smoke"
        ], {
          env: killed.env
        })
        expect(next.notes).toBe("")
        const cleanup = await evalCliAsync(["cleanup", "--base-url", killed.proxy.url], { env: killed.env })
        expect([cleanup.code, cleanup.stderr, cleanup.stdout.trim()]).toEqual([
          0,
          "",
          `nothing to clean up at ${killed.proxy.url}/: the journal holds no conversation of this session left by an earlier run`
        ])
        expect(killed.proxy.seen().filter((r) => r.method === "DELETE")).toEqual([])
        expect(s.stats()).toMatchObject({ created: 0, deleted: 0 })
      } finally {
        await killed.proxy.close()
      }
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
    // The one-question cases: the app answers each ask in a conversation of its own, and keeps none going.
    const questions = questionCases(goldenCases)
    const cases = join(scratch(), "questions.json")
    writeFileSync(cases, JSON.stringify({ version: 1, cases: questions }))
    try {
      const run = await evalCliAsync(["run", "--base-url", app.url, "--cases", cases], {
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
        expect(listed.filter((line) => line.startsWith(`  ${escaped}  `))).toHaveLength(
          seen.filter((_, k) => k % (payloads.length + 1) === i).length
        )
      }
      expect(`${run.stdout}\n${run.stderr}`.split(/\r\n|\r|\n/).filter((line) => line.startsWith("::"))).toEqual([])
      expect(run.stdout.split("\n").filter((line) => /^[✓✗~] /.test(line))).toHaveLength(questions.length)
    } finally {
      await app.close()
    }
  })
})
