/**
 * Threads being opened when a run quits are found, through the real CLI over real HTTP: a LangGraph
 * `POST /threads` whose answer never comes (the server made the thread) is journalled as an intent
 * before the request, the thread carries the run's key in its metadata, and after kill -9 or a second
 * Ctrl-C the next run and the quit say how many may be left and `eval cleanup` finds each through
 * `POST /threads/search` and deletes it — never a thread of the account that names no run of its
 * journal. An app without a thread search (404, 405, 501) is said to be one, with the metadata to find
 * the threads by hand, until `cleanup --forget` drops them from the journal, listing each — after trying
 * everything, so only what stays is forgotten. And an `https://` URL against an http app journals
 * nothing and says so.
 */
import { describe, expect, it } from "@effect/vitest"
import { evalCliAsync, stackFrame } from "../support/cli.js"
import { creatingThreads, isCreate, journalText, scratch, usersOwnThread } from "../support/lostThreads.js"
import { headerSignInOf, sessionEnv, surfacesArgs, withProtocolStandIn } from "../support/protocols.js"

/** How many threads are being created at once. */
const inFlight = 8

describe("threads being opened when the run quits", () => {
  it("after kill -9, the next run says how many may be left, and cleanup finds each by search and deletes it", () =>
    withProtocolStandIn("langgraph", {}, async (s, p) => {
      const state = scratch()
      const { cli, env, proxy } = await creatingThreads(s, p, state, inFlight)
      try {
        cli.signal("SIGKILL")
        expect((await cli.done).code).toBe(null)
        const lost = s.conversations().map((c) => c.id).sort()
        expect(lost).toHaveLength(inFlight)
        // Each creation carried the run's key, never the session.
        const bodies = proxy.seen().filter((r) => isCreate(r.method, r.path)).map((r) => JSON.parse(r.body))
        const runs = new Set(bodies.map((b: { metadata: { turn_eval_run: string } }) => b.metadata.turn_eval_run))
        expect(runs.size).toBe(1)
        expect(journalText(state)).toContain([...runs][0])
        const mine = await usersOwnThread(s, env)

        proxy.setHold(() => false)
        const url = `${proxy.url}/`
        const next = await evalCliAsync(["run", "--base-url", proxy.url, ...surfacesArgs(p), "--filter", "smoke"], {
          env
        })
        expect(next.stderr.split("\n")[0]).toBe(
          `note: earlier runs may have left ${inFlight} conversations they were opening when they ended, in this ` +
            `account at ${url}; \`turn-eval cleanup --base-url ${url}\` finds and deletes them`
        )

        const cleanup = await evalCliAsync(["cleanup", "--base-url", proxy.url], { env })
        expect([cleanup.code, cleanup.stderr]).toEqual([0, ""])
        expect(cleanup.stdout).toMatch(
          new RegExp(
            `^searched POST ${proxy.url}/threads/search for the ${inFlight} threads process \\d+ was opening: found ${inFlight}$`,
            "m"
          )
        )
        const reported = [...cleanup.stdout.matchAll(/^deleted +(\S+) +\S+ \(found by search, opened by process \d+/gm)]
        expect(reported.map((m) => m[1]).sort()).toEqual(lost)
        expect(cleanup.stdout).toContain(
          `${inFlight} conversations cleaned up at ${url} (${inFlight} of the ${inFlight} found by search); ` +
            "the journal holds none of this session now"
        )
        // The account's own thread, tagged with no run of this journal, is left alone.
        expect(s.conversations().map((c) => c.id)).toEqual([mine])
        expect(journalText(state)).toBe("")

        const again = await evalCliAsync(["cleanup", "--base-url", proxy.url], { env })
        expect(again.stdout).toContain("nothing to clean up")
      } finally {
        await proxy.close()
      }
    }))

  it("a second Ctrl-C says how many threads being opened may be left; cleanup finds and deletes them", () =>
    withProtocolStandIn("langgraph", {}, async (s, p) => {
      const state = scratch()
      const { cli, env, proxy } = await creatingThreads(s, p, state, inFlight)
      try {
        cli.signal("SIGINT")
        // The first Ctrl-C's cleanup gives each creation in flight a grace to answer: the second comes within it.
        await cli.whenStderr("cleaning up")
        cli.signal("SIGINT")
        const run = await cli.done
        expect(run.code).toBe(130)
        const url = `${proxy.url}/`
        expect(run.stderr).toContain(
          `quitting at once: ${inFlight} conversations being opened at ${url}: they may be left, and the journal ` +
            `can find them; \`turn-eval cleanup --base-url ${url}\` finds and deletes them`
        )
        expect(run.stderr).not.toMatch(stackFrame)
        expect(s.conversations()).toHaveLength(inFlight)
        proxy.setHold(() => false)
        const cleanup = await evalCliAsync(["cleanup", "--base-url", proxy.url], { env })
        expect(cleanup.code).toBe(0)
        expect([...cleanup.stdout.matchAll(/^deleted /gm)]).toHaveLength(inFlight)
        expect(s.conversations()).toEqual([])
      } finally {
        await proxy.close()
      }
    }))
})

describe("https:// against an app that speaks http", () => {
  for (const protocol of ["ai-sdk", "langgraph"] as const) {
    it(`${protocol}: journals nothing, says the app speaks http, and leaves cleanup nothing to do`, () =>
      withProtocolStandIn(protocol, {}, async (s, p) => {
        const state = scratch()
        const env = { ...sessionEnv(s, headerSignInOf[protocol]), XDG_STATE_HOME: state }
        const url = s.url.replace(/^http:/, "https:")
        const run = await evalCliAsync(["run", "--base-url", url, ...surfacesArgs(p), "--concurrency", "4"], { env })
        expect(run.code).toBe(2)
        expect(run.notes).toMatch(
          /^error: cannot reach the app at https:\S+: TLS failed \(ERR_SSL_WRONG_VERSION_NUMBER\) — the app speaks http, not https\?$/m
        )
        expect(run.notes).not.toContain("could not be deleted")
        expect(run.notes).not.toContain("may have left")
        expect(run.notes).not.toMatch(stackFrame)
        expect(journalText(state)).toBe("")
        const cleanup = await evalCliAsync(["cleanup", "--base-url", url], { env })
        expect([cleanup.code, cleanup.stderr]).toEqual([0, ""])
        expect(cleanup.stdout).toContain("nothing to clean up")
        expect(s.stats()).toMatchObject({ created: 0 })
      }))
  }
})

describe("an app that cannot search its threads", () => {
  for (const status of [404, 405, 501]) {
    it(`search answered ${status}: cleanup says so and how to stop the warning; --forget drops them, listing each`, () =>
      withProtocolStandIn("langgraph", {}, async (s, p) => {
        const state = scratch()
        const { cli, env, proxy } = await creatingThreads(s, p, state, inFlight)
        try {
          cli.signal("SIGKILL")
          await cli.done
          const creations = proxy.seen().filter((r) => isCreate(r.method, r.path)).map((r) =>
            JSON.parse(r.body) as { metadata: { turn_eval_run: string; turn_eval_case: string } }
          )
          const run = creations[0]!.metadata.turn_eval_run
          proxy.setHold(() => false)
          proxy.setRefuse((method, path) => method === "POST" && path === "/threads/search" ? status : undefined)
          const url = `${proxy.url}/`

          const cleanup = await evalCliAsync(["cleanup", "--base-url", proxy.url], { env })
          expect([cleanup.code, cleanup.stderr]).toEqual([1, ""])
          expect(cleanup.stdout).toMatch(
            new RegExp(
              `^cannot search POST ${proxy.url}/threads/search for the ${inFlight} threads process \\d+ was opening ` +
                `\\(metadata turn_eval_run: ${run}\\): the app has no thread search \\(HTTP ${status}\\); they may remain$`,
              "m"
            )
          )
          expect(cleanup.stdout.trimEnd().split("\n").at(-1)).toBe(
            `0 conversations cleaned up at ${url}; ${inFlight} threads being opened may remain: the app cannot search ` +
              "its threads, so find them in the app by the metadata above and delete them there, then " +
              `\`turn-eval cleanup --base-url ${url} --forget\` drops them from the journal`
          )
          // The threads are still there, as the user finds them by hand; the journal still holds the intents.
          expect(s.conversations()).toHaveLength(inFlight)
          expect(journalText(state)).toContain(run)

          const forgot = await evalCliAsync(["cleanup", "--base-url", proxy.url, "--forget"], { env })
          expect([forgot.code, forgot.stderr]).toEqual([0, ""])
          const listed = [
            ...forgot.stdout.matchAll(
              new RegExp(
                `^forgotten     a thread being opened for (\\S+) by process \\d+ started \\S+ \\(metadata ` +
                  `turn_eval_run: ${run}\\)$`,
                "gm"
              )
            )
          ].map((m) => m[1])
          expect(listed.sort()).toEqual(creations.map((c) => c.metadata.turn_eval_case).sort())
          expect(forgot.stdout.trimEnd().split("\n").at(-1)).toBe(
            `0 conversations cleaned up at ${url}; forgot ${inFlight} conversations it could not clean up (they may ` +
              "remain in the app); the journal holds none of this session now"
          )
          // Forgetting deletes nothing: the threads are the user's to see to.
          expect(s.conversations()).toHaveLength(inFlight)
          expect(journalText(state)).toBe("")

          const again = await evalCliAsync(["cleanup", "--base-url", proxy.url], { env })
          expect([again.code, again.stdout]).toEqual([0, expect.stringContaining("nothing to clean up")])
          const next = await evalCliAsync(["run", "--base-url", proxy.url, ...surfacesArgs(p), "--filter", "smoke"], {
            env
          })
          expect(next.notes).not.toContain("earlier runs")
        } finally {
          await proxy.close()
        }
      }))
  }

  it("--forget tries first: what the search finds is deleted, and only what stays is forgotten", () =>
    withProtocolStandIn("langgraph", {}, async (s, p) => {
      const state = scratch()
      const { cli, env, proxy } = await creatingThreads(s, p, state, inFlight)
      try {
        cli.signal("SIGKILL")
        await cli.done
        const [failing, ...others] = s.conversations().map((c) => c.id)
        proxy.setHold(() => false)
        proxy.setRefuse((method, path) => method === "DELETE" && path === `/threads/${failing}` ? 500 : undefined)
        const forgot = await evalCliAsync(["cleanup", "--base-url", proxy.url, "--timeout", "2", "--forget"], { env })
        expect([forgot.code, forgot.stderr]).toEqual([0, ""])
        expect([...forgot.stdout.matchAll(/^deleted +(\S+) /gm)].map((m) => m[1]).sort()).toEqual(others.sort())
        expect(forgot.stdout).toMatch(new RegExp(`^not deleted +${failing} .*: delete: HTTP 500`, "m"))
        expect(forgot.stdout).toMatch(
          new RegExp(`^forgotten +${failing} +\\S+ \\(found by search, opened by process \\d+ started \\S+\\)$`, "m")
        )
        expect([...forgot.stdout.matchAll(/^forgotten /gm)]).toHaveLength(1)
        expect(forgot.stdout.trimEnd().split("\n").at(-1)).toBe(
          `${inFlight - 1} conversations cleaned up at ${proxy.url}/ (${inFlight - 1} of the ${inFlight} found by ` +
            "search); forgot 1 conversation it could not clean up (they may remain in the app); the journal holds " +
            "none of this session now"
        )
        expect(s.conversations().map((c) => c.id)).toEqual([failing])
        expect(journalText(state)).toBe("")
      } finally {
        await proxy.close()
      }
    }))
})
