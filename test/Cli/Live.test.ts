import { describe, expect, it } from "@effect/vitest"
import { Redacted, Schema } from "effect"
import { existsSync, mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { basename, join } from "node:path"
import { questionCases } from "../../src/Schema/Case.js"
import { fillRoute, type Route } from "../../src/Schema/Protocol.js"
import { RunResult } from "../../src/Schema/Result.js"
import { stableFraction, type StandIn } from "../../src/StandIn/Server.js"
import { evalCliAsync, stackFrame, startCli } from "../support/cli.js"
import { caseCount, standInHolds, standInServed, turnCount } from "../support/golden.js"
import { isAsk, startHoldingProxy } from "../support/holdingProxy.js"
import { withStandIn } from "../support/live.js"
import {
  allProtocols,
  deleteRouteOf,
  headerSignInOf,
  secretOf,
  sessionEnv,
  surfacesArgs,
  withProtocolStandIn
} from "../support/protocols.js"
import { untimed } from "../support/untimed.js"

const cookieOf = (s: StandIn) => Redacted.value(s.cookie())
const tokenOf = (s: StandIn) => cookieOf(s).split("=")[1]!
const scratch = () => mkdtempSync(join(tmpdir(), "eval-live-"))
const loopback = "http://127\\.0\\.0\\.1:\\d+"
const escapeRe = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
/** Every file under a folder, by its path. */
const filesIn = (folder: string) =>
  readdirSync(folder, { recursive: true, withFileTypes: true }).filter((e) => e.isFile()).map((e) =>
    join(e.parentPath, e.name)
  )

describe("eval run --base-url", () => {
  it("runs the golden set live with the cookie from EVAL_COOKIE, holds the floor, and leaves nothing behind", () =>
    withStandIn({}, async (s) => {
      const run = await evalCliAsync(["run", "--base-url", s.url, "--check"], { env: { EVAL_COOKIE: cookieOf(s) } })
      expect(run.notes).toBe("")
      expect(run.code).toBe(0)
      expect(run.stdout).toContain(standInHolds)
      const [n, turns] = [caseCount, turnCount]
      expect(s.stats().requests).toEqual({ ask: turns, conversation: turns, trace: turns, delete: n, ratings: 0 })
      expect(s.conversations()).toEqual([])
    }))

  it("never shows the cookie: not in output, results, recordings or errors, even when routes fail", () =>
    withStandIn({
      faults: [
        { route: "trace", kind: "status", status: 500, rate: 0.3 },
        { route: "delete", kind: "status", status: 500, match: "refund on a Harbor invoice" }
      ]
    }, async (s) => {
      const dir = scratch()
      const args = ["run", "--base-url", s.url, "--json", join(dir, "r.json"), "--record", join(dir, "rec")]
      const state = scratch()
      for (const [i, env] of [{ EVAL_COOKIE: cookieOf(s) }, {}].entries()) {
        const run = await evalCliAsync(Object.keys(env).length > 0 ? args : [...args, "--cookie", cookieOf(s)], {
          env: { ...env, XDG_STATE_HOME: state }
        })
        expect(run.code).toBe(0)
        expect(run.stdout).toMatch(/✗ .*\n {4}turn error {2}trace: HTTP 500/)
        // The second run is told first of the conversation the first one could not delete.
        const note = i === 0
          ? ""
          : "note: earlier runs left 1 conversation undeleted in this account at http://127\\.0\\.0\\.1:\\d+/; `turn-eval cleanup --base-url http://127\\.0\\.0\\.1:\\d+/` deletes them\\n"
        expect(run.notes).toMatch(
          new RegExp(
            `^${note}1 conversation could not be deleted; \`turn-eval cleanup --base-url http://127\\.0\\.0\\.1:\\d+/\` tries again, or delete it by hand:\\n {2}conv_\\S+ +docs\\.refund-window-cites-source: delete: HTTP 500 — DELETE http://127\\.0\\.0\\.1:\\d+/api/ai/conversations/conv_\\w+\\n$`
          )
        )
        const journal = readdirSync(state, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
        expect(journal.length).toBeGreaterThan(0)
        const everything = [
          run.stdout,
          run.stderr,
          readFileSync(join(dir, "r.json"), "utf8"),
          ...readdirSync(join(dir, "rec")).map((f) => readFileSync(join(dir, "rec", f), "utf8")),
          ...journal.map((e) => `${e.parentPath}/${e.name}\n${readFileSync(join(e.parentPath, e.name), "utf8")}`)
        ].join("\n")
        expect(everything).not.toContain(tokenOf(s))
      }
    }))

  // The same for the session in EVAL_AUTH_HEADER, on every protocol: each run writes every output there
  // is (results, recordings, JUnit, Markdown, GitHub annotations and step summary, the journal) while its
  // routes fail where the protocol has them (a read, or the ask where there is none; a delete).
  for (const protocol of allProtocols) {
    it(`${protocol}: never shows the header's value, in any output, report, recording, journal or error, when routes fail`, () =>
      withProtocolStandIn(protocol, {}, async (s, p) => {
        const failing: Route = protocol === "turn-eval" || protocol === "langgraph" ? "trace" : "ask"
        // The delete fails for a case the other fault misses, so that its conversation is opened, then kept.
        const kept = questionCases(p.set.cases).find((c) =>
          c.surface === "docs" && stableFraction(`${failing}\u0000${c.question}`) >= 0.3
        )!
        const route = deleteRouteOf[protocol]
        s.setFaults([
          { route: failing, kind: "status", status: 500, rate: 0.3 },
          ...(route === null ? [] : [{ route: "delete", kind: "status", status: 500, match: kept.question } as const])
        ])
        const state = scratch()
        const env = { ...sessionEnv(s, headerSignInOf[protocol]), XDG_STATE_HOME: state, GITHUB_ACTIONS: "true" }
        const shownAs = protocol === "langgraph" ? "state" : failing
        const method = failing === "trace" ? "GET" : "POST"
        const failed = new RegExp(`✗ .*\\n {4}turn error {2}${shownAs}: HTTP 500 — ${method} ${loopback}/\\S+`)
        const cleanupHint = `\`turn-eval cleanup --base-url ${loopback}/\``
        const undeleted = route === null ? "" : [
          `1 conversation could not be deleted; ${cleanupHint} tries again, or delete it by hand:\\n`,
          ` {2}\\S+ +${escapeRe(kept.id)}: delete: HTTP 500 — `,
          `DELETE ${loopback}${escapeRe(route).replace("\\{conversationId\\}", "\\S+")}\\n`
        ].join("")
        for (const i of [0, 1]) {
          const dir = scratch()
          const reports = ["junit=j.xml", "markdown=m.md", "json=r.json"].flatMap((
            r
          ) => ["--reporter", r.replace("=", `=${dir}/`)])
          const run = await evalCliAsync([
            "run",
            "--base-url",
            s.url,
            ...surfacesArgs(p),
            "--record",
            join(dir, "rec"),
            ...["--reporter", "pretty", "--reporter", "github", ...reports]
          ], { env: { ...env, GITHUB_STEP_SUMMARY: join(dir, "summary.md") } })
          expect(run.code).toBe(0)
          expect(run.stdout).toMatch(failed)
          expect(run.stdout).toMatch(
            /^::error file=cases\/golden-cases\.json,line=\d+,title=failed%3A [^:]+::turn error: /m
          )
          // The second run is told first of the conversation the first one could not delete.
          const note = i === 0 || route === null
            ? ""
            : `note: earlier runs left 1 conversation undeleted in this account at ${loopback}/; ${cleanupHint} deletes them\\n`
          expect(run.notes).toMatch(new RegExp(`^${note}${undeleted}$`))
          const journal = filesIn(state).filter((f) => f.endsWith(".jsonl"))
          expect(journal).toHaveLength(route === null ? 0 : i + 1)
          const written = filesIn(dir)
          const recorded = written.filter((f) => f.startsWith(join(dir, "rec")))
          const reported = written.filter((f) => !recorded.includes(f)).map((f) => basename(f))
          expect(reported.sort()).toEqual(["j.xml", "m.md", "r.json", "summary.md"])
          expect(recorded.length).toBeGreaterThan(10)
          const everything = [
            run.stdout,
            run.stderr,
            ...[...written, ...journal].map((f) => `${f}\n${readFileSync(f, "utf8")}`)
          ]
          expect(everything.join("\n")).not.toContain(secretOf(s))
        }
        // Cleanup's failures name their request too, never the session.
        const cleanup = await evalCliAsync(["cleanup", "--base-url", s.url, "--timeout", "2"], { env })
        expect(cleanup.code).toBe(route === null ? 0 : 1)
        const notDeleted = new RegExp(`^not deleted +\\S+ .*: delete: HTTP 500 — DELETE ${loopback}/\\S+$`, "m")
        if (route !== null) expect(cleanup.stdout).toMatch(notDeleted)
        expect(cleanup.stdout + cleanup.stderr).not.toContain(secretOf(s))
      }))
  }

  it.each([
    [
      ["--fixtures", "cases/fixtures"],
      { EVAL_COOKIE: "s=1" },
      "error: --fixtures and --base-url cannot be used together: pick one source of turns"
    ],
    [
      [],
      {},
      "error: a live run needs the session: set EVAL_COOKIE='name=value' (or pass --cookie), or EVAL_AUTH_HEADER='Authorization: Bearer …'"
    ],
    [[], { EVAL_COOKIE: "secret-without-a-name" }, "error: the session cookie must look like name=value, on one line"]
  ])("refuses %j with %j as a usage error (exit 2), never echoing the cookie", async (extra, env, message) => {
    const run = await evalCliAsync(["run", "--base-url", "http://127.0.0.1:9", ...extra], { env })
    expect(run.code).toBe(2)
    expect(run.stderr.trim()).toBe(message)
    expect(run.stderr).not.toContain("secret-without")
  })

  it.each([
    [
      "not a header",
      "Bearer secret-token-1",
      "error: EVAL_AUTH_HEADER: expected one header as 'Name: value', such as 'Authorization: Bearer …' or 'x-api-key: …'"
    ],
    [
      "a header without a value",
      "x-api-key:   ",
      "error: EVAL_AUTH_HEADER: expected one header as 'Name: value', such as 'Authorization: Bearer …' or 'x-api-key: …'"
    ],
    [
      "a header name with a space",
      "x api key: secret-token-1",
      "error: EVAL_AUTH_HEADER: expected one header as 'Name: value', such as 'Authorization: Bearer …' or 'x-api-key: …'"
    ],
    [
      "the transport's own header",
      "Host: secret-token-1",
      "error: EVAL_AUTH_HEADER: the host header is the transport's; name the header that carries the session"
    ],
    [
      "a line break",
      "Authorization: Bearer secret-token-1\r\nx-admin: 1",
      "error: EVAL_AUTH_HEADER: the header's value may hold no control character and no character beyond U+00FF"
    ],
    [
      "a character beyond Latin-1",
      "Authorization: Bearer secret-token-\u0100",
      "error: EVAL_AUTH_HEADER: the header's value may hold no control character and no character beyond U+00FF"
    ]
  ])(
    "refuses an EVAL_AUTH_HEADER that is %s up front (exit 2), never showing its value",
    async (_, header, message) => {
      for (
        const command of [["run", "--base-url", "http://127.0.0.1:9"], ["cleanup", "--base-url", "http://127.0.0.1:9"]]
      ) {
        const run = await evalCliAsync(command, { env: { EVAL_AUTH_HEADER: header } })
        expect(run.stderr.trim()).toBe(message)
        expect(run.code).toBe(2)
        expect(run.stdout + run.stderr).not.toContain("secret-token")
      }
    }
  )

  it("refuses a session cookie and EVAL_AUTH_HEADER together: which one signs in is never a guess", async () => {
    const both = await evalCliAsync(["run", "--base-url", "http://127.0.0.1:9"], {
      env: { EVAL_AUTH_HEADER: "x-api-key: secret-token-1", EVAL_COOKIE: "session=secret-token-2" }
    })
    expect(both.stderr.trim()).toBe(
      "error: both a session cookie (EVAL_COOKIE) and EVAL_AUTH_HEADER are set: keep the one that signs in to this app"
    )
    expect(both.code).toBe(2)
    expect(both.stdout + both.stderr).not.toContain("secret-token")
  })

  it.each([
    ["a control character", "session=ab\u0001cd"],
    ["a tab", "session=ab\tcd"],
    ["DEL", "session=ab\u007fcd"],
    ["a character beyond Latin-1", "session=caf\u0100-token"],
    ["a line separator", "session=ab\u2028cd"]
  ])(
    "refuses a cookie holding %s up front (exit 2), naming where it came from and never the value",
    async (_, cookie) => {
      const value = cookie.slice("session=".length)
      for (
        const command of [["run", "--base-url", "http://127.0.0.1:9", "--timeout", "2"], [
          "candidates",
          "--base-url",
          "http://127.0.0.1:9"
        ]]
      ) {
        const fromEnv = await evalCliAsync(command, { env: { EVAL_COOKIE: cookie } })
        expect(fromEnv.stderr).toBe(
          "error: EVAL_COOKIE: the session cookie may hold no control character and no character beyond U+00FF\n"
        )
        expect(fromEnv.code).toBe(2)
        const fromFlag = await evalCliAsync([...command, "--cookie", cookie], { env: { EVAL_COOKIE: "" } })
        expect(fromFlag.stderr).toBe(
          "error: --cookie: the session cookie may hold no control character and no character beyond U+00FF\n"
        )
        expect(fromFlag.code).toBe(2)
        for (const output of [fromEnv.stdout, fromEnv.stderr, fromFlag.stdout, fromFlag.stderr]) {
          expect(output).not.toContain(value)
        }
      }
    }
  )

  it("refuses a base URL that is not http(s) or carries credentials", async () => {
    for (const url of ["ftp://example.test", "not a url", "http://user:pw@127.0.0.1:9"]) {
      const run = await evalCliAsync(["run", "--base-url", url], { env: { EVAL_COOKIE: "s=1" } })
      expect(run.code).toBe(2)
      expect(run.stderr).toMatch(/^error: --base-url .*: expected an http\(s\) URL/)
      expect(run.stderr).not.toContain("pw@")
    }
  })

  it("stops at once on a rejected session (exit 2), starting no further case", () =>
    withStandIn({}, async (s) => {
      const run = await evalCliAsync(["run", "--base-url", s.url], { env: { EVAL_COOKIE: "standin_session=expired" } })
      expect(run.code).toBe(2)
      expect(run.stderr.trim()).toMatch(
        /^error: the app refused the session from EVAL_COOKIE \(401 on POST \/api\/ai\/(docs|agent)\/ask\): sign in again and export a fresh cookie$/
      )
      expect(run.stdout).toBe("")
      expect(s.stats().requests.ask).toBeLessThanOrEqual(4)
      expect(s.stats().created).toBe(0)
    }))

  it("--keep leaves the conversations and prints their ids for the turn inspector", () =>
    withStandIn({ maxConversations: 30 }, async (s) => {
      const run = await evalCliAsync(["run", "--base-url", s.url, "--keep", "--filter", "smoke"], {
        env: { EVAL_COOKIE: cookieOf(s) }
      })
      expect(run.code).toBe(0)
      const listed = [...run.stdout.matchAll(/^ {2}(conv_\S+) +(\S+)$/gm)].map((m) => m[1])
      expect(run.stdout).toContain(`kept ${listed.length} conversations for the turn inspector:`)
      expect(listed.length).toBeGreaterThan(1)
      expect(listed.sort()).toEqual(s.conversations().map((c) => c.id).sort())
    }))

  it("records the live turns, and replaying them offline gives the same verdicts and facts", () =>
    withStandIn({ faults: [{ route: "conversation", kind: "status", status: 500, rate: 0.2 }] }, async (s) => {
      const dir = scratch()
      const env = { EVAL_COOKIE: cookieOf(s) }
      const live = await evalCliAsync(
        ["run", "--base-url", s.url, "--record", join(dir, "turns"), "--json", join(dir, "live.json")],
        { env }
      )
      expect(live.code).toBe(0)
      const replay = await evalCliAsync(["run", "--fixtures", join(dir, "turns"), "--json", join(dir, "replay.json")])
      expect(replay.code).toBe(0)
      const read = (f: string) => Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(join(dir, f), "utf8")))
      const [a, b] = [read("live.json"), read("replay.json")]
      const obtained = a.cases.filter((c) => c.error === undefined)
      expect(obtained.length).toBeGreaterThan(10)
      expect(obtained.length).toBeLessThan(caseCount)
      expect(readdirSync(join(dir, "turns")).sort()).toEqual(obtained.map((c) => `${c.id}.json`).sort())
      for (const c of obtained) expect(untimed(b.cases.find((r) => r.id === c.id))).toEqual(untimed(c))
    }))
})

describe("an interrupted live run", () => {
  for (const [signal, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
    it(`deletes the conversations in flight on ${signal} and exits ${code}`, () =>
      withStandIn({ latency: { trace: 20_000 } }, async (s) => {
        const cli = startCli(["run", "--base-url", s.url, "--concurrency", "6", "--json", join(scratch(), "r.json")], {
          env: { EVAL_COOKIE: cookieOf(s) }
        })
        while (s.stats().requests.trace < 6) await new Promise((resolve) => setTimeout(resolve, 20))
        expect(s.conversations()).toHaveLength(6)
        cli.signal(signal)
        const run = await cli.done
        expect(run.code).toBe(code)
        expect(run.stderr).toContain(signal === "SIGINT" ? "interrupted: cleaning up" : "terminated: cleaning up")
        expect(run.stderr).not.toMatch(stackFrame)
        expect(s.conversations()).toEqual([])
        expect(s.stats().deleted).toBe(6)
      }))
  }
})

describe("an interrupted live run, per protocol", () => {
  // Each ask is held in flight by a proxy that passes it on and withholds the answer: the AI SDK's chat
  // and LangGraph's thread are open in the app, as while a long answer streams; an AG-UI agent keeps none.
  for (const protocol of ["ai-sdk", "langgraph", "ag-ui"] as const) {
    for (const [signal, code, word] of [["SIGINT", 130, "interrupted"], ["SIGTERM", 143, "terminated"]] as const) {
      const what = protocol === "ag-ui"
        ? "has nothing to delete"
        : "deletes the conversations in flight through its delete route"
      it(`${protocol}: ${what} on ${signal}, at once, and exits ${code}`, () =>
        withProtocolStandIn(protocol, {}, async (s, p) => {
          const proxy = await startHoldingProxy(s.url)
          try {
            const state = scratch()
            const results = join(scratch(), "r.json")
            const cli = startCli(
              ["run", "--base-url", proxy.url, ...surfacesArgs(p), "--concurrency", "6", "--json", results],
              { env: { ...sessionEnv(s, headerSignInOf[protocol]), XDG_STATE_HOME: state } }
            )
            await proxy.whenHeld(6)
            const open = s.conversations().map((c) => c.id).sort()
            // The AI SDK's chats are named by the run before it asks: the ids the held asks posted.
            const asked = proxy.seen().filter((r) => isAsk(r.method, r.path))
            if (protocol === "ai-sdk") {
              expect(asked.map((r) => (JSON.parse(r.body) as { id: string }).id).sort()).toEqual(open)
            }
            expect(open).toHaveLength(protocol === "ag-ui" ? 0 : 6)
            // Nothing waits for an ask that named its conversation before it was sent, or for an app that keeps
            // none: the held answers never come and the run's timeout outlasts the test, so only such a run ends.
            cli.signal(signal)
            const run = await cli.done
            expect(run.code).toBe(code)
            expect(run.stderr).toBe(`\n${word}: cleaning up (send it again to quit at once)\n`)
            expect(run.stdout).toBe("")
            // No results file claims a pass for a run that was stopped.
            expect(existsSync(results)).toBe(false)
            const route = deleteRouteOf[protocol]
            const deletes = proxy.seen().filter((r) => r.method === "DELETE").map((r) => r.path).sort()
            expect(deletes).toEqual(
              route === null ? [] : open.map((id) => fillRoute(route, { conversationId: id })).sort()
            )
            expect(s.conversations()).toEqual([])
            expect(s.stats()).toMatchObject({ created: open.length, deleted: open.length })
            expect(
              readdirSync(state, { recursive: true, withFileTypes: true }).filter((e) => e.name.endsWith(".jsonl"))
            ).toEqual([])
          } finally {
            await proxy.close()
          }
        }))
    }
  }
})

describe("eval standin", () => {
  it("serves the stand-in with its faults until stopped, printing how to sign in", async () => {
    const standin = startCli(["standin", "--port", "0", "--fault", "trace:500@0.3", "--max-conversations", "2"])
    while (!standin.stdout().includes("Ctrl-C stops it.")) {
      expect(standin.stderr()).toBe("")
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(standin.stdout())![1]!
    const cookie = /export EVAL_COOKIE='([^']+)'/.exec(standin.stdout())![1]!
    const run = await evalCliAsync([
      "run",
      "--base-url",
      url,
      "--concurrency",
      "2",
      "--json",
      join(scratch(), "r.json")
    ], {
      env: { EVAL_COOKIE: cookie }
    })
    expect(run.code).toBe(0)
    const failures = [...run.stdout.matchAll(/turn error {2}(.*)$/gm)].map((m) => m[1])
    expect(failures.length).toBeGreaterThan(2)
    expect(new Set(failures.map((f) => f!.replace(/turn_\w+/, "turn_…")))).toEqual(
      new Set([`trace: HTTP 500 — GET ${url}/api/ai/turns/turn_…/trace`])
    )
    standin.signal("SIGINT")
    expect((await standin.done).code).toBe(130)
  })

  it("refuses a bad fault spec and a non-loopback address (exit 2)", async () => {
    const fault = await evalCliAsync(["standin", "--port", "0", "--fault", "trace:teapot"])
    expect(fault.code).toBe(2)
    expect(fault.stderr).toMatch(/^error: --fault "trace:teapot": expected ROUTE:FAULT\[@RATE\]/)
    const host = await evalCliAsync(["standin", "--port", "0", "--host", "0.0.0.0"])
    expect(host.code).toBe(2)
    expect(host.stderr.trim()).toBe("error: --host 0.0.0.0: the stand-in listens on loopback only (127.0.0.1, ::1)")
  })
})

describe("npm start (eval demo)", () => {
  it("runs the golden set live against a stand-in it starts itself, with --check, and exits 0", async () => {
    const run = await evalCliAsync(["demo"])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^stand-in assistant on http:\/\/127\.0\.0\.1:\d+;/)
    expect(run.stdout).toContain(standInHolds)
    expect(run.stdout).toContain(standInServed)
  })
})
