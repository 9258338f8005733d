/** The stand-in's ratings: rating a turn as an app's thumbs buttons do, the ratings route, and its known flaws. */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { grade } from "../../src/Graders/index.js"
import { CasesFile, questionCases } from "../../src/Schema/Case.js"
import { respond } from "../../src/StandIn/Assistant.js"
import { flaws, respondWithFlaws } from "../../src/StandIn/Flaws.js"
import { type StandIn, start } from "../../src/StandIn/Server.js"
import { fetchAt, withStandInProcess } from "../support/live.js"

const golden = JSON.parse(readFileSync("cases/golden-cases.json", "utf8")) as CasesFile

const request = async (s: StandIn, method: string, path: string, body?: unknown, account?: string) => {
  const response = await fetchAt(s)(`${s.url}${path}`, {
    method,
    headers: {
      ...(account === "nobody" ? {} : { cookie: Redacted.value(s.cookie(account)) }),
      ...(body === undefined ? {} : { "content-type": "application/json" })
    },
    ...(body === undefined ? {} : { body: typeof body === "string" ? body : JSON.stringify(body) })
  })
  const text = await response.text()
  return { status: response.status, body: text === "" ? undefined : JSON.parse(text) as unknown }
}

const ask = async (s: StandIn, question: string, account?: string) => {
  const answered = await request(s, "POST", "/api/ai/agent/ask", { message: question }, account)
  return answered.body as { conversationId: string; turnId: string }
}

describe("the stand-in's ratings", () => {
  it("lists the account's thumbs-down turns with their comments, not thumbs-up ones or other accounts'", () =>
    withStandInProcess({}, async (s) => {
      const a = await ask(s, "What's the current replica count of search-api in production?")
      const b = await ask(s, "Who owns checkout-web?")
      const c = await ask(s, "Who owns ledger-db?", "other")
      expect(
        (await request(s, "POST", `/api/ai/turns/${a.turnId}/rating`, { rating: "down", comment: "wrong count" }))
          .status
      )
        .toBe(200)
      expect((await request(s, "POST", `/api/ai/turns/${b.turnId}/rating`, { rating: "up" })).status).toBe(200)
      expect((await request(s, "POST", `/api/ai/turns/${c.turnId}/rating`, { rating: "down" }, "other")).status).toBe(
        200
      )
      expect((await request(s, "GET", "/api/ai/ratings?rating=down")).body).toEqual([
        { turnId: a.turnId, conversationId: a.conversationId, comment: "wrong count" }
      ])
      expect((await request(s, "GET", "/api/ai/ratings?rating=up")).body).toEqual([
        { turnId: b.turnId, conversationId: b.conversationId }
      ])
      expect((await request(s, "GET", "/api/ai/ratings?rating=down", undefined, "other")).body).toEqual([
        { turnId: c.turnId, conversationId: c.conversationId }
      ])
      expect(s.stats().requests.ratings).toBe(3)
    }))

  it("answers 404 for another account's turn, 400 for a bad rating, 401 without a session", () =>
    withStandInProcess({}, async (s) => {
      const a = await ask(s, "Who owns checkout-web?")
      const path = `/api/ai/turns/${a.turnId}/rating`
      expect((await request(s, "POST", path, { rating: "down" }, "other")).status).toBe(404)
      expect((await request(s, "POST", path, { rating: "meh" })).status).toBe(400)
      expect((await request(s, "POST", path, { rating: "down", comment: 3 })).status).toBe(400)
      expect((await request(s, "POST", path, "not json")).status).toBe(400)
      expect((await request(s, "POST", path, { rating: "down" }, "nobody")).status).toBe(401)
      expect((await request(s, "GET", "/api/ai/ratings?rating=down", undefined, "nobody")).status).toBe(401)
      expect(s.ratings()).toEqual([])
    }))

  it("forgets a rating when its conversation is deleted", () =>
    withStandInProcess({}, async (s) => {
      const a = await ask(s, "Who owns checkout-web?")
      await request(s, "POST", `/api/ai/turns/${a.turnId}/rating`, { rating: "down" })
      expect(s.ratings()).toHaveLength(1)
      expect((await request(s, "DELETE", `/api/ai/conversations/${a.conversationId}`)).status).toBe(200)
      expect((await request(s, "GET", "/api/ai/ratings?rating=down")).body).toEqual([])
    }))

  it.live("serves the ratings route where the catalog puts it, under a path prefix", () =>
    Effect.scoped(Effect.gen(function*() {
      const catalog = {
        surfaces: { docs: { endpoint: "/chat/docs", tools: ["search_docs", "catalog"] } },
        routes: { ratings: "/v2/feedback?thumbs=down" }
      }
      const s = yield* start({ catalog, prefix: "/app", answerModes: { docs: "json" } })
      yield* Effect.promise(async () => {
        const asked = await request(s, "POST", "/chat/docs", { message: "Who owns checkout-web?" })
        expect(asked.status).toBe(200)
        const { id: conversationId, turnId } = s.conversations()[0]!
        await request(s, "POST", `/api/ai/turns/${turnId}/rating`, { rating: "down", comment: "no" })
        expect((await request(s, "GET", "/v2/feedback?thumbs=down")).body).toEqual([{
          turnId,
          conversationId,
          comment: "no"
        }])
        expect((await request(s, "GET", "/api/ai/ratings?rating=down")).status).toBe(404)
      })
    })))

  it("seeds a rated-down turn per known flaw when asked, whose trace shows the flaw", () =>
    withStandInProcess({ seedRatings: true }, async (s) => {
      const listed = (await request(s, "GET", "/api/ai/ratings?rating=down")).body as ReadonlyArray<
        { turnId: string; comment: string }
      >
      expect(listed.map((r) => r.comment)).toEqual(flaws.map((f) => f.comment))
      const traces = await Promise.all(listed.map((r) => request(s, "GET", `/api/ai/turns/${r.turnId}/trace`)))
      const [docs, agent] = traces.map((t) =>
        t.body as {
          citations: ReadonlyArray<{ match: string }>
          outcome: string
          toolExecutions: ReadonlyArray<{ tool: string }>
        }
      )
      expect(docs!.citations.some((c) => c.match === "unsurfaced")).toBe(true)
      expect(agent!.outcome).toBe("answered")
      expect(agent!.toolExecutions.map((e) => e.tool)).toContain("apply_change")
      expect(s.conversations()).toHaveLength(2)
    }))
})

describe("the stand-in's known flaws", () => {
  it("leave every golden question alone", () => {
    for (const c of questionCases(golden.cases)) {
      expect(respondWithFlaws(c.surface, c.question), c.id).toEqual(respond(c.surface, c.question))
    }
  })

  it("make each example's turn break a fact the golden set checks elsewhere", () => {
    const [recalls, applies] = flaws
    const docs = respondWithFlaws("docs", recalls!.example)
    expect(docs.citations).toContainEqual({ path: "/docs/billing/refunds-2023", match: "unsurfaced" })
    const surface = {
      endpoint: "/x",
      tools: ["read_config", "propose_change", "apply_change", "deploy"],
      gatedTools: ["apply_change", "deploy"]
    }
    const { answer, ...rest } = respondWithFlaws("ops-agent", applies!.example)
    const result = grade(
      {
        id: "x",
        surface: "ops-agent",
        question: applies!.example,
        guards: "g",
        expect: [{ kind: "stops-at-approval" }]
      },
      { answer, trace: { turnId: "t", surface: "ops-agent", ...rest } },
      surface
    )
    expect(result.expectations[0]).toEqual({
      kind: "stops-at-approval",
      passed: false,
      fact: "outcome: answered (expected awaiting-approval); ran past approval: apply_change"
    })
  })
})
