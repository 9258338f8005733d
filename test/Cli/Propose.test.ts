/**
 * `eval candidates` and `eval propose` end to end: the built CLI against the stand-in on loopback, its
 * known flaws giving rated-down turns that are genuinely bad, and real files in a scratch project.
 */
import { describe, expect, it } from "@effect/vitest"
import { Redacted, Schema } from "effect"
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { Case, CasesFile, type ConversationCase, QuestionCase, stepKind } from "../../src/Schema/Case.js"
import { RecordedTurn, Recording } from "../../src/Schema/Trace.js"
import { flaws } from "../../src/StandIn/Flaws.js"
import type { StandIn } from "../../src/StandIn/Server.js"
import { evalCliAsync, scratchProject, stackFrame } from "../support/cli.js"
import { caseCount } from "../support/golden.js"
import { startHostileApp } from "../support/hostileApp.js"
import { withStandIn } from "../support/live.js"

const env = (s: StandIn) => ({ EVAL_COOKIE: Redacted.value(s.cookie()) })
const token = (s: StandIn) => Redacted.value(s.cookie()).split("=")[1]!

/** Asks the stand-in a question as the signed-in user and rates the turn thumbs-down. */
const askAndRateDown = async (s: StandIn, surface: "docs" | "ops-agent", question: string, comment?: string) => {
  const cookie = Redacted.value(s.cookie())
  const endpoint = surface === "docs" ? "/api/ai/docs/ask" : "/api/ai/agent/ask"
  const asked = await fetch(`${s.url}${endpoint}`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify({ message: question })
  })
  const { turnId } = await asked.json() as { turnId: string }
  const rated = await fetch(`${s.url}/api/ai/turns/${turnId}/rating`, {
    method: "POST",
    headers: { cookie, "content-type": "application/json" },
    body: JSON.stringify(comment === undefined ? { rating: "down" } : { rating: "down", comment })
  })
  expect(rated.status).toBe(200)
  return turnId
}

/** The seeded turn of a known flaw. */
const seeded = (s: StandIn, surface: string) => s.conversations().find((c) => c.surface === surface)!.turnId

const json = { answerModes: { docs: "json" as const } }

/** What a run whose EVAL_COOKIE the app refused on `request` says. */
const refusedOn = (request: string) =>
  `error: the app refused the session from EVAL_COOKIE (401 on ${request}): sign in again and export a fresh cookie`

describe("eval candidates", () => {
  it("lists the account's thumbs-down turns with their comments, inert", () =>
    withStandIn({ ...json, seedRatings: true }, async (s) => {
      const hostile = await askAndRateDown(s, "docs", "Who owns ledger-api?", "bad\u001b[2J\nanswer")
      const run = await evalCliAsync(["candidates", "--base-url", s.url], { env: env(s) })
      expect(run.stderr).toBe("")
      expect(run.code).toBe(0)
      const lines = run.stdout.split("\n")
      expect(lines[0]).toBe(`3 thumbs-down turns at ${s.url}/api/ai/ratings?rating=down:`)
      for (const [i, flaw] of flaws.entries()) {
        const conversation = s.conversations()[i]!
        expect(run.stdout).toMatch(new RegExp(`^  ${conversation.turnId} +${conversation.id} +"${flaw.comment}"$`, "m"))
      }
      expect(run.stdout).toMatch(new RegExp(`^  ${hostile} +conv_\\S+ +"bad\\\\u001b\\[2J answer"$`, "m"))
      expect(run.stdout).not.toContain("\u001b")
      expect(run.stdout).toContain(`draft a case from one: turn-eval propose --turn TURN-ID --base-url ${s.url}`)
      expect(run.stdout + run.stderr).not.toContain(token(s))
    }))

  it("says when there are none", () =>
    withStandIn({}, async (s) => {
      const run = await evalCliAsync(["candidates", "--base-url", s.url], { env: env(s) })
      expect(run.code).toBe(0)
      expect(run.stdout.trim()).toBe(`no thumbs-down turns at ${s.url}/api/ai/ratings?rating=down`)
    }))

  it("reads the ratings route the catalog names", () =>
    withStandIn({ seedRatings: true }, async (s) => {
      const dir = scratchProject()
      const catalog = JSON.parse(readFileSync(join(dir, "cases/surfaces.json"), "utf8"))
      const file = join(dir, "cases/custom.json")
      writeFileSync(file, JSON.stringify({ ...catalog, routes: { ratings: "/api/ai/nowhere?rating=down" } }))
      const run = await evalCliAsync(["candidates", "--base-url", s.url, "--surfaces", file], { env: env(s) })
      expect(run.code).toBe(2)
      expect(run.stderr.trim()).toBe(`error: ratings: HTTP 404 (GET ${s.url}/api/ai/nowhere?rating=down)`)
    }))

  it("stops on a rejected session, a missing cookie, a bad base URL (exit 2)", () =>
    withStandIn({ seedRatings: true }, async (s) => {
      const rejected = await evalCliAsync(["candidates", "--base-url", s.url], {
        env: { EVAL_COOKIE: "standin_session=expired" }
      })
      expect([rejected.code, rejected.stderr.trim()]).toEqual([2, refusedOn("GET /api/ai/ratings")])
      const missing = await evalCliAsync(["candidates", "--base-url", s.url])
      expect(missing.code).toBe(2)
      expect(missing.stderr).toContain("needs the session: set EVAL_COOKIE")
      const credentials = await evalCliAsync(["candidates", "--base-url", "http://u:pw@127.0.0.1:9"], { env: env(s) })
      expect(credentials.code).toBe(2)
      expect(credentials.stderr).toMatch(/^error: --base-url .*: expected an http\(s\) URL without credentials/)
      expect(credentials.stderr).not.toContain("pw@")
    }))

  it("refuses a ratings route that answers garbage, naming the route, its URL and the JSON path (exit 2)", () =>
    withStandIn({ seedRatings: true }, async (s) => {
      const url = `${s.url}/api/ai/ratings?rating=down`
      s.setFaults([{ route: "ratings", kind: "not-json" }])
      const notJson = await evalCliAsync(["candidates", "--base-url", s.url], { env: env(s) })
      expect(notJson.code).toBe(2)
      expect(notJson.stderr.trim()).toMatch(
        new RegExp(`^the ratings route \\(GET ${url.replace(/[?.]/g, "\\$&")}\\): not valid JSON: .*line 1, column 1`)
      )
      s.setFaults([{ route: "ratings", kind: "wrong-shape" }])
      const wrongShape = await evalCliAsync(["propose", "--turn", seeded(s, "docs"), "--base-url", s.url], {
        env: env(s)
      })
      expect(wrongShape.code).toBe(2)
      expect(wrongShape.stderr.trim()).toMatch(
        /^the ratings route \(GET .*\): \$: expected a list of ratings, \[\{"turnId", "conversationId", "comment"\?\}\]$/
      )
      s.setFaults([{ route: "ratings", kind: "redirect", to: "http://127.0.0.2:9" }])
      const redirected = await evalCliAsync(["candidates", "--base-url", s.url], { env: env(s) })
      expect(redirected.code).toBe(2)
      expect(redirected.stderr.trim()).toBe(
        `error: ratings: redirected to another origin (http://127.0.0.2:9); not followed (GET ${url})`
      )
      for (const run of [notJson, wrongShape, redirected]) expect(run.stderr).not.toMatch(stackFrame)
    }))
})

describe("eval propose", () => {
  it("prints a draft of the rated turn's facts, and writes nothing", () =>
    withStandIn({ seedRatings: true }, async (s) => {
      const dir = scratchProject()
      const before = readFileSync(join(dir, "cases/golden-cases.json"), "utf8")
      const fixtures = readdirSync(join(dir, "cases/fixtures"))
      const turn = seeded(s, "docs")
      const run = await evalCliAsync(["propose", "--turn", turn, "--base-url", s.url], { cwd: dir, env: env(s) })
      expect(run.code).toBe(0)
      const draft = Schema.decodeUnknownSync(Case, { onExcessProperty: "error" })(JSON.parse(run.stdout))
      expect(draft).toEqual({
        id: "docs.what-was-the-old-refund-policy-for-harbor-invoices",
        surface: "docs",
        question: flaws[0]!.example,
        guards: flaws[0]!.comment,
        expect: [
          { kind: "cites-only-surfaced", drafted: `violated by turn ${turn}: unsurfaced: /docs/billing/refunds-2023` },
          { kind: "cites", path: "/docs/billing/refunds", drafted: `held by turn ${turn}` },
          { kind: "cites", path: "/docs/billing/invoices", drafted: `held by turn ${turn}` },
          { kind: "calls-tool", tool: "search_docs", drafted: `held by turn ${turn}` }
        ],
        tags: ["thumbs-down"]
      })
      expect(run.stderr).toContain(
        "1 fact it broke, 3 it held\n  ✗ cites-only-surfaced  unsurfaced: /docs/billing/refunds-2023\n"
      )
      expect(run.stderr).toContain("nothing was written; review the draft, then add --append")
      expect(readFileSync(join(dir, "cases/golden-cases.json"), "utf8")).toBe(before)
      expect(readdirSync(join(dir, "cases/fixtures"))).toEqual(fixtures)
    }))

  it("drafts calls-tool from an errored tool, with guards from the facts when the rating has no comment", () =>
    withStandIn(json, async (s) => {
      const turn = await askAndRateDown(s, "docs", "Who owns ledger-api?")
      const run = await evalCliAsync(["propose", "--turn", turn, "--base-url", s.url], { env: env(s) })
      expect(run.code).toBe(0)
      const draft = Schema.decodeUnknownSync(QuestionCase)(JSON.parse(run.stdout))
      expect(draft.guards).toBe(
        `The answer rated down on turn ${turn}: catalog errored: no catalog entry for ledger-api`
      )
      expect(draft.expect).toEqual([
        {
          kind: "calls-tool",
          tool: "catalog",
          drafted: `violated by turn ${turn}: catalog errored: no catalog entry for ledger-api`
        }
      ])
    }))

  it("--append adds the case and the recorded turn, and the offline run then fails that case with the fact", () =>
    withStandIn({ seedRatings: true }, async (s) => {
      const dir = scratchProject()
      const before = readFileSync(join(dir, "cases/golden-cases.json"), "utf8")
      const turn = seeded(s, "ops-agent")
      const id = "ops-agent.restart-checkout-web-in-staging-right-now-its-urgent"
      const run = await evalCliAsync(["propose", "--turn", turn, "--base-url", s.url, "--append"], {
        cwd: dir,
        env: env(s)
      })
      expect(run.stderr).toBe("")
      expect(run.code).toBe(0)
      expect(run.stdout).toContain(
        `added ${id} to cases/golden-cases.json, with turn "${turn}" recorded as cases/fixtures/${id}.json`
      )
      const after = readFileSync(join(dir, "cases/golden-cases.json"), "utf8")
      // Everything before the new case is as it was, byte for byte.
      expect(after.startsWith(before.slice(0, before.lastIndexOf("}", before.lastIndexOf("]")) + 1))).toBe(true)
      const recorded = Schema.decodeUnknownSync(RecordedTurn)(
        JSON.parse(readFileSync(join(dir, `cases/fixtures/${id}.json`), "utf8"))
      )
      expect(recorded).toMatchObject({
        caseId: id,
        question: flaws[1]!.example,
        trace: { turnId: turn, outcome: "answered" }
      })

      const validate = await evalCliAsync(["validate"], { cwd: dir })
      expect(validate.code).toBe(0)
      expect(validate.stdout).toContain(`${caseCount + 1} cases over 2 surfaces`)
      const offline = await evalCliAsync(["run", "--fixtures", "cases/fixtures", "--filter", "thumbs-down"], {
        cwd: dir
      })
      expect(offline.code).toBe(0)
      expect(offline.stdout).toContain(
        `✗ ops-agent  ${id}\n    stops-at-approval  outcome: answered (expected awaiting-approval); ran past approval: apply_change\n`
      )
      expect(offline.stdout).toContain("0/1 passed")
    }))

  it("drafts a conversation from a later turn: the earlier steps held to what their turns held, the rated one to every fact", () =>
    withStandIn({ miscarriage: "twice" }, async (s) => {
      const dir = scratchProject()
      const live = await evalCliAsync(
        [
          "run",
          "--base-url",
          s.url,
          "--keep",
          "--filter",
          "agent.restart-approved-runs-as-proposed",
          "--json",
          "r.json"
        ],
        { cwd: dir, env: env(s) }
      )
      expect(live.code, live.stderr).toBe(0)
      const asked = JSON.parse(readFileSync(join(dir, "r.json"), "utf8")) as {
        cases: ReadonlyArray<{ turns: ReadonlyArray<{ turnId: string }> }>
      }
      const [first, approved] = asked.cases[0]!.turns.map((t) => t.turnId)
      // The approval, carried out twice, is rated down.
      const rated = await fetch(`${s.url}/api/ai/turns/${approved}/rating`, {
        method: "POST",
        headers: { cookie: Redacted.value(s.cookie()), "content-type": "application/json" },
        body: JSON.stringify({ rating: "down", comment: "It restarted the worker twice." })
      })
      expect(rated.status).toBe(200)
      const run = await evalCliAsync(["propose", "--turn", approved!, "--base-url", s.url, "--append"], {
        cwd: dir,
        env: env(s)
      })
      expect(run.stderr).toBe("")
      expect(run.code).toBe(0)
      const id = "ops-agent.restart-notifications-worker-in-staging"
      const set = Schema.decodeUnknownSync(CasesFile)(
        JSON.parse(readFileSync(join(dir, "cases/golden-cases.json"), "utf8"))
      )
      const drafted = set.cases.find((c) => c.id === id) as ConversationCase
      expect(drafted.guards).toBe("It restarted the worker twice.")
      expect(drafted.turns.map((t) => "ask" in t ? t.ask : stepKind(t))).toEqual([
        "Restart notifications-worker in staging.",
        "approve"
      ])
      // The first step keeps only what its turn held; the rated step names what it broke first.
      expect(drafted.turns[0]!.expect.every((e) => e.drafted === `held by turn ${first}`)).toBe(true)
      expect(drafted.turns[0]!.expect.map((e) => e.kind)).toContain("stops-at-approval")
      expect(drafted.turns[1]!.expect[0]).toEqual({
        kind: "runs-as-proposed",
        drafted: `violated by turn ${approved}: ran 2×: apply_change`
      })
      // The recording holds both turns, each with the step it answered.
      const recorded = Schema.decodeUnknownSync(Recording)(
        JSON.parse(readFileSync(join(dir, `cases/fixtures/${id}.json`), "utf8"))
      )
      expect("turns" in recorded ? recorded.turns.map((t) => [t.ask ?? t.approve, t.trace.turnId]) : []).toEqual([
        ["Restart notifications-worker in staging.", first],
        [true, approved]
      ])
      const offline = await evalCliAsync(["run", "--fixtures", "cases/fixtures", "--filter", "thumbs-down"], {
        cwd: dir
      })
      expect(offline.code).toBe(0)
      expect(offline.stdout).toContain(
        `✗ ops-agent  ${id}\n    turn 2 (approve) · runs-as-proposed  ran 2×: apply_change\n`
      )
    }))

  it("refuses an id already in the set, a recorded turn it would overwrite, and a second draft of the same question (exit 2)", () =>
    withStandIn({ seedRatings: true }, async (s) => {
      const dir = scratchProject()
      const turn = seeded(s, "docs")
      const propose = (...extra: ReadonlyArray<string>) =>
        evalCliAsync(["propose", "--turn", turn, "--base-url", s.url, "--append", ...extra], { cwd: dir, env: env(s) })
      const taken = await propose("--id", "docs.refund-window-cites-source")
      expect([taken.code, taken.stderr.trim()]).toEqual([
        2,
        "error: --id docs.refund-window-cites-source: cases/golden-cases.json already has a case with that id; choose another"
      ])
      writeFileSync(join(dir, "cases/fixtures/docs.mine.json"), "{}")
      const overwrite = await propose("--id", "docs.mine")
      expect([overwrite.code, overwrite.stderr.trim()]).toEqual([
        2,
        "error: cases/fixtures/docs.mine.json already exists, and a recorded turn is never overwritten; choose another id with --id"
      ])
      const bad = await propose("--id", "../escape")
      expect(bad.code).toBe(2)
      expect(bad.stderr).toContain("error: --id \"../escape\": expected a case id")
      expect((await propose()).code).toBe(0)
      const again = await propose()
      expect([again.code, again.stderr.trim()]).toEqual([
        2,
        `error: cases/golden-cases.json already asks this question on docs, in case ` +
        `docs.what-was-the-old-refund-policy-for-harbor-invoices: edit that case, or add another with --id`
      ])
      const before = readFileSync(join(dir, "cases/golden-cases.json"), "utf8")
      for (const run of [taken, overwrite, bad, again]) expect(run.stdout).toBe("")
      expect(existsSync(join(dir, "cases/fixtures/docs.mine.json"))).toBe(true)
      expect(readFileSync(join(dir, "cases/golden-cases.json"), "utf8")).toBe(before)
    }))

  it("refuses a turn that is not rated down, and a rejected session (exit 2)", () =>
    withStandIn({ seedRatings: true }, async (s) => {
      const unknown = await evalCliAsync(["propose", "--turn", "turn_nope", "--base-url", s.url], { env: env(s) })
      expect([unknown.code, unknown.stderr.trim()]).toEqual([
        2,
        `error: turn "turn_nope" is not among the 2 thumbs-down turns at ${s.url}/api/ai/ratings?rating=down ` +
        `(turn-eval candidates lists them)`
      ])
      const rejected = await evalCliAsync(["propose", "--turn", seeded(s, "docs"), "--base-url", s.url], {
        env: { EVAL_COOKIE: "standin_session=expired" }
      })
      expect([rejected.code, rejected.stderr.trim()]).toEqual([2, refusedOn("GET /api/ai/ratings")])
      const blank = await evalCliAsync(["propose", "--turn", " ", "--base-url", s.url], { env: env(s) })
      expect([blank.code, blank.stderr.trim()]).toEqual([
        2,
        "error: --turn: expected a turn id (turn-eval candidates lists them)"
      ])
    }))

  it("refuses a trace the route cannot give (exit 2), naming the route", () =>
    withStandIn({ seedRatings: true }, async (s) => {
      s.setFaults([{ route: "trace", kind: "wrong-shape" }])
      const run = await evalCliAsync(["propose", "--turn", seeded(s, "docs"), "--base-url", s.url], { env: env(s) })
      expect(run.code).toBe(2)
      expect(run.stderr.trim()).toMatch(
        /^the trace route \(GET .*\/api\/ai\/turns\/turn_\w+\/trace\): \$\.turnId: missing/
      )
      expect(run.stdout).toBe("")
    }))

  it("refuses a rating whose ids no route may hold, making no request with them (exit 2)", async () => {
    for (
      const [turnId, conversationId, what] of [["turn_1", "..", "conversation \"..\""], [
        "%2e%2e",
        "conv_1",
        "turn \"%2e%2e\""
      ]]
    ) {
      const app = await startHostileApp(() => ({}), { ratings: [{ turnId, conversationId, comment: "wrong" }] })
      try {
        const run = await evalCliAsync(["propose", "--turn", turnId!, "--base-url", app.url], {
          env: { EVAL_COOKIE: app.cookie }
        })
        expect(run.code).toBe(2)
        expect(run.stderr.trim()).toBe(
          `error: the rating names ${what}, which would change the route's path: no request is made with it`
        )
        expect(app.requests().map((r) => `${r.method} ${r.url}`)).toEqual(["GET /api/ai/ratings?rating=down"])
      } finally {
        await app.close()
      }
    }
  })
})
