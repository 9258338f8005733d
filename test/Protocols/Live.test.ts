/**
 * Every live protocol against the real library serving its wire on loopback (the AI SDK in 5, 6 and
 * 7), through the real CLI: the same scripted behaviour (test/support/scenarios.ts) gives the same
 * verdicts and facts on every protocol, with the session in EVAL_AUTH_HEADER, and the app holds no
 * conversation afterwards. The turns recorded with `--record` hold the tokens the app's model reported
 * where the wire carries them (LangGraph, AG-UI), and none where it does not (the AI SDK's UI message
 * stream).
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { RunResult } from "../../src/Schema/Result.js"
import { RecordedTurn, type Usage } from "../../src/Schema/Trace.js"
import { startAgUiApp } from "../support/apps/agUiApp.js"
import { startAiSdkApp } from "../support/apps/aiSdkApp.js"
import { startLangGraphApp } from "../support/apps/langGraphApp.js"
import { turnUsage } from "../support/apps/usage.js"
import { evalCliAsync } from "../support/cli.js"
import { expected, runProtocol, surfacesOf } from "../support/protocolRun.js"

const key = "k-7f3a9c2e51d04b86"
const auth = { header: "x-api-key", value: key }
const env = { EVAL_AUTH_HEADER: `x-api-key: ${key}` }

/** The model calls each case's turn makes: one per tool call, and one for the answer; a call that fails reports nothing. */
const modelCalls: Readonly<Record<string, number>> = {
  "support.refund-window-cites-kb": 2,
  "support.order-lookup-errors": 2,
  "support.refund-waits-for-approval": 2,
  "support.shipping-cites-only-surfaced": 2,
  "support.greeting-calls-nothing": 1,
  "support.invoice-failure-is-an-error": 1
}

/** What the app's model reported for each case's turn, summed over its calls. */
const reportedUsage = Object.fromEntries(expected.map((c) => [c.id, turnUsage(modelCalls[c.id]!)]))

/** The usage of each recorded turn's trace, by case id; undefined for a trace that has none. */
const recordedUsage = (dir: string): Readonly<Record<string, Usage | undefined>> =>
  Object.fromEntries(
    readdirSync(dir).filter((f) => f.startsWith("support.") && f.endsWith(".json")).map((f) => {
      const turn = Schema.decodeUnknownSync(RecordedTurn)(JSON.parse(readFileSync(join(dir, f), "utf8")))
      return [turn.caseId, turn.trace.usage]
    })
  )

/** Everything a run wrote: its output, results and recordings, where the session must never appear. */
const written = (run: { readonly stdout: string; readonly stderr: string }, dir: string): string =>
  [
    run.stdout,
    run.stderr,
    ...readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => readFileSync(join(e.parentPath, e.name), "utf8"))
  ].join("\n")

describe("ag-ui, against an agent streaming through AG-UI's own encoder", () => {
  it("grades the scenarios as every protocol does, records the run's usage, signed in by a header that appears nowhere", async () => {
    const app = await startAgUiApp({ auth, usage: true })
    try {
      const rec = mkdtempSync(join(tmpdir(), "eval-rec-"))
      const { dir, run, shown } = await runProtocol("ag-ui", app.url, env, ["--record", rec])
      expect(run.code).toBe(0)
      expect(shown).toEqual(expected)
      expect(recordedUsage(rec)).toEqual(reportedUsage)
      expect(run.stdout).toContain("3/6 passed · pass rate 0.5000")
      // One run per case, each a thread of its own the suite named, posted with the header and nothing else.
      expect(app.requests.map((r) => r.method)).toEqual(Array(6).fill("POST"))
      expect(new Set(app.requests.map((r) => (r.body as { threadId: string }).threadId)).size).toBe(6)
      expect(app.requests.every((r) => r.headers["x-api-key"] === key && r.headers.cookie === undefined)).toBe(true)
      expect(written(run, dir) + written(run, rec)).not.toContain(key)
    } finally {
      await app.close()
    }
  })
})

describe.each([5, 6, 7] as const)("ai-sdk, against the AI SDK %i's streamText on its mock model", (version) => {
  it(
    "grades the scenarios as every protocol does, records no usage, deletes every chat it opened, and the header " +
      "appears nowhere",
    async () => {
      const app = await startAiSdkApp({ version, auth, errorMessages: true })
      try {
        const rec = mkdtempSync(join(tmpdir(), "eval-rec-"))
        const { dir, run, shown } = await runProtocol("ai-sdk", app.url, env, ["--record", rec])
        expect(run.code).toBe(0)
        expect(shown).toEqual(expected)
        expect(run.notes).toBe("")
        // The app's model reported every call's tokens; the UI message stream has no chunk that carries them.
        expect(recordedUsage(rec)).toStrictEqual(Object.fromEntries(expected.map((c) => [c.id, undefined])))
        // A chat per case, named by the suite, posted as useChat posts it, then deleted through routes.delete.
        const posts = app.requests.filter((r) => r.method === "POST")
        const deletes = app.requests.filter((r) => r.method === "DELETE")
        expect(posts).toHaveLength(6)
        expect(deletes.map((r) => r.url).sort()).toEqual(
          posts.map((r) => `/api/chat?id=${(JSON.parse(r.body) as { id: string }).id}`).sort()
        )
        expect(app.chats.size).toBe(0)
        expect(app.requests.every((r) => r.headers["x-api-key"] === key && r.headers.cookie === undefined)).toBe(true)
        expect(written(run, dir) + written(run, rec)).not.toContain(key)
      } finally {
        await app.close()
      }
    }
  )
})

describe("langgraph, against the LangGraph JS server running a LangChain agent on its fake model", () => {
  it(
    "grades the scenarios as every protocol does, records the turns' usage, deletes every thread it opened, and the " +
      "header appears nowhere",
    async () => {
      const app = await startLangGraphApp({ auth, usage: true })
      try {
        const rec = mkdtempSync(join(tmpdir(), "eval-rec-"))
        const { dir, run, shown } = await runProtocol("langgraph", app.url, env, ["--record", rec])
        expect(run.code).toBe(0)
        expect(shown).toEqual(expected)
        expect(run.notes).toBe("")
        expect(recordedUsage(rec)).toEqual(reportedUsage)
        const threads = app.requests.filter((r) =>
          r.method === "POST" && new URL(r.url, app.url).pathname === "/threads"
        )
        expect(threads).toHaveLength(6)
        expect(app.requests.filter((r) => r.method === "DELETE")).toHaveLength(6)
        expect(await app.threads()).toEqual([])
        expect(app.requests.every((r) => r.headers["x-api-key"] === key && r.headers["cookie"] === undefined)).toBe(
          true
        )
        expect(written(run, dir) + written(run, rec)).not.toContain(key)
      } finally {
        await app.close()
      }
    }
  )
})

describe("a live run works the same on every protocol", () => {
  it("--record keeps turns that replay offline to the same verdicts; --repeat asks each attempt in a chat of its own", async () => {
    const app = await startAiSdkApp({ version: 7, auth, errorMessages: true })
    try {
      const rec = mkdtempSync(join(tmpdir(), "eval-rec-"))
      const live = await runProtocol("ai-sdk", app.url, env, ["--record", rec])
      expect(live.shown).toEqual(expected)
      const replay = await evalCliAsync([
        "run",
        "--fixtures",
        rec,
        "--cases",
        "test/fixtures/protocols/golden-cases.json",
        "--surfaces",
        surfacesOf("ai-sdk"),
        "--baseline",
        join(rec, "baseline.json"),
        "--json",
        join(rec, "replayed.json")
      ])
      expect(replay.code).toBe(0)
      const replayed = Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(join(rec, "replayed.json"), "utf8")))
      expect(replayed.cases.map((c) => [c.id, c.passed, c.expectations.map((e) => e.fact ?? "")])).toEqual(
        expected.map((c) => [c.id, c.passed, c.expectations.map((e) => e.fact ?? "")])
      )
      expect(readdirSync(rec).filter((f) => f.endsWith(".json") && f.startsWith("support."))).toHaveLength(6)
      const before = app.requests.length
      const repeated = await runProtocol("ai-sdk", app.url, env, ["--repeat", "2"])
      expect(repeated.run.code).toBe(0)
      const asked = app.requests.slice(before).filter((r) => r.method === "POST").map((r) =>
        (JSON.parse(r.body) as { id: string }).id
      )
      expect(asked).toHaveLength(12)
      expect(new Set(asked).size).toBe(12)
      expect(app.chats.size).toBe(0)
    } finally {
      await app.close()
    }
  })

  it(
    "--keep leaves each thread and chat and lists it; a rejected session stops the run (exit 2), the chat it was " +
      "rejected in never opened",
    async () => {
      const graph = await startLangGraphApp({ auth })
      try {
        const kept = await runProtocol("langgraph", graph.url, env, ["--keep"])
        expect(kept.run.code).toBe(0)
        const threads = await graph.threads()
        expect(threads).toHaveLength(6)
        expect(kept.run.stdout).toContain("kept 6 conversations for the turn inspector:")
        for (const thread of threads) expect(kept.run.stdout).toContain(thread)
      } finally {
        await graph.close()
      }
      const chat = await startAiSdkApp({ version: 6, auth })
      try {
        const rejected = await runProtocol("ai-sdk", chat.url, { EVAL_AUTH_HEADER: "x-api-key: k-wrong-0000" })
        expect(rejected.run.code).toBe(2)
        expect(rejected.run.stderr.endsWith(
          "error: the app refused the session from EVAL_AUTH_HEADER (401 on POST /api/chat): sign in again and " +
            "export a fresh EVAL_AUTH_HEADER\n"
        )).toBe(true)
        expect(rejected.run.stdout + rejected.run.stderr).not.toContain("k-wrong-0000")
        // The chat whose ask was answered 401 was never opened: it is neither deleted nor reported. The asks
        // still in flight when the run stopped may have opened theirs: those are tried, and reported.
        const reported = [
          ...rejected.run.stderr.matchAll(/^ {2}(\S+) +support\.\S+: delete: HTTP 401 \(session rejected\)$/gm)
        ].map((m) => m[1])
        const deleted = chat.requests.filter((r) => r.method === "DELETE").map((r) =>
          new URL(r.url, chat.url).searchParams.get("id")
        )
        expect(deleted.sort()).toEqual([...reported].sort())
        expect(reported.length).toBeLessThan(4)
        expect(chat.chats.size).toBe(0)
      } finally {
        await chat.close()
      }
    }
  )
})
