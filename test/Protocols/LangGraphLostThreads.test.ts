/**
 * Threads being opened when a run quits, against the real LangGraph JS server (`langgraphjs dev`'s
 * in-memory server) through the real CLI: a live run is stopped (kill -9, or a second Ctrl-C) while its
 * `POST /threads` answers are held back — the server made each thread — and `turn-eval cleanup` finds
 * those threads with the server's own `POST /threads/search` and deletes them, leaving the account's
 * other threads. The server filters by the very body the cleanup sent: asked with another run's key,
 * it answers that run's thread alone.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { join } from "node:path"
import { startLangGraphApp } from "../support/apps/langGraphApp.js"
import { evalCliAsync, stackFrame, startCli } from "../support/cli.js"
import { startHoldingProxy } from "../support/holdingProxy.js"
import { isCreate, journalText, scratch } from "../support/lostThreads.js"
import { surfacesOf } from "../support/protocolRun.js"

const key = "k-5b1e8d0c7a294f63"
const auth = { header: "x-api-key", value: key }
const cases = "test/fixtures/protocols/golden-cases.json"

/** Every case of the set at once, each creating its thread. */
const inFlight = (JSON.parse(readFileSync(cases, "utf8")) as { cases: ReadonlyArray<unknown> }).cases.length

/** Posts JSON to the server directly, signed in, and gives the answer's status and body. */
const postToApp = async (url: string, path: string, body: unknown): Promise<{ status: number; json: unknown }> => {
  const answer = await fetch(`${url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", [auth.header]: auth.value },
    body: JSON.stringify(body)
  })
  return { status: answer.status, json: await answer.json() }
}

const idsOf = (threads: unknown): ReadonlyArray<string> =>
  (threads as ReadonlyArray<{ thread_id: string }>).map((t) => t.thread_id).sort()

describe("langgraph, against the LangGraph JS server: threads being opened when the run quits", () => {
  for (const stop of ["kill -9", "a second Ctrl-C"] as const) {
    it(
      `after ${stop}, cleanup finds each by the server's search and deletes it, keeping the account's others`,
      async () => {
        const app = await startLangGraphApp({ auth })
        const proxy = await startHoldingProxy(app.url, isCreate)
        try {
          const state = scratch()
          const env = { EVAL_AUTH_HEADER: `${auth.header}: ${auth.value}`, XDG_STATE_HOME: state }
          const cli = startCli([
            "run",
            "--base-url",
            proxy.url,
            "--cases",
            cases,
            "--surfaces",
            surfacesOf("langgraph"),
            "--baseline",
            join(state, "baseline.json"),
            "--concurrency",
            `${inFlight}`,
            "--timeout",
            "60"
          ], { env })
          await proxy.whenHeld(inFlight)
          if (stop === "kill -9") {
            cli.signal("SIGKILL")
            expect((await cli.done).code).toBe(null)
          } else {
            cli.signal("SIGINT")
            await cli.whenStderr("cleaning up")
            cli.signal("SIGINT")
            const run = await cli.done
            expect(run.code).toBe(130)
            expect(run.stderr).toContain(`quitting at once: ${inFlight} conversations being opened at ${proxy.url}/`)
            expect(run.stderr).not.toMatch(stackFrame)
          }
          const lost = [...await app.threads()].sort()
          expect(lost).toHaveLength(inFlight)
          const creations = proxy.seen().filter((r) => isCreate(r.method, r.path)).map((r) =>
            JSON.parse(r.body) as { metadata: Record<string, string> }
          )
          const runs = new Set(creations.map((b) => b.metadata["turn_eval_run"]))
          expect(runs.size).toBe(1)
          const run = [...runs][0]!
          expect(journalText(state)).toContain(run)

          // Threads of the account that no run of this journal opened: another run's, and one with no metadata.
          const other = await postToApp(app.url, "/threads", {
            metadata: { turn_eval_run: "someone-else", owner: "me" }
          })
          const plain = await postToApp(app.url, "/threads", {})
          expect([other.status, plain.status]).toEqual([200, 200])
          const mine = idsOf([other.json, plain.json])

          proxy.setHold(() => false)
          const cleanup = await evalCliAsync(["cleanup", "--base-url", proxy.url], { env })
          expect([cleanup.code, cleanup.stderr]).toEqual([0, ""])
          expect(cleanup.stdout).toMatch(
            new RegExp(
              `^searched POST ${proxy.url}/threads/search for the ${inFlight} threads process \\d+ was opening: ` +
                `found ${inFlight}$`,
              "m"
            )
          )
          const reported = [
            ...cleanup.stdout.matchAll(/^deleted +(\S+) +\S+ \(found by search, opened by process \d+/gm)
          ]
          expect(reported.map((m) => m[1]).sort()).toEqual(lost)
          expect(cleanup.stdout).toContain(
            `${inFlight} conversations cleaned up at ${proxy.url}/ (${inFlight} of the ${inFlight} found by search); ` +
              "the journal holds none of this session now"
          )
          expect([...await app.threads()].sort()).toEqual(mine)
          expect(journalText(state)).toBe("")

          // The search the cleanup sent, as the server read it: with the run's key it finds none of the
          // threads left, and with the other run's key, that run's thread alone.
          const searches = proxy.seen().filter((r) => r.method === "POST" && r.path === "/threads/search")
          expect(searches).toHaveLength(1)
          const sent = JSON.parse(searches[0]!.body) as { metadata: Record<string, string> }
          expect(sent.metadata).toEqual({ turn_eval_run: run })
          const again = await postToApp(app.url, "/threads/search", sent)
          expect([again.status, again.json]).toEqual([200, []])
          const others = await postToApp(app.url, "/threads/search", {
            ...sent,
            metadata: { turn_eval_run: "someone-else" }
          })
          expect([others.status, idsOf(others.json)]).toEqual([200, idsOf([other.json])])
        } finally {
          await proxy.close()
          await app.close()
        }
      },
      60_000
    )
  }
})
