import { describe, expect, it } from "@effect/vitest"
import { Chunk, Duration, Effect, Exit, Fiber, Redacted, type Scope, TestClock } from "effect"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { type Case, stepsOf } from "../../src/Schema/Case.js"
import type { Route } from "../../src/Schema/Protocol.js"
import { inProcessOrigin } from "../../src/StandIn/InProcess.js"
import { type Fault, type FaultKind, type StandInOptions, start } from "../../src/StandIn/Server.js"
import { goldenSet, liveClient, runLive, standInProcess, withoutRequest } from "../support/live.js"

const live = <A, E>(name: string, body: () => Effect.Effect<A, E, Scope.Scope>, timeout = 60_000) =>
  it.live(name, () => Effect.scoped(body()), timeout)

/** The in-process stand-in's origin, as a pattern. */
const origin = inProcessOrigin.replace(/[.]/g, "\\.")

/** A stand-in in this process: a live run against it makes no socket. */
const standIn = (options: Omit<StandInOptions, "catalog"> = {}) => standInProcess(options)

/** A stand-in on loopback, for what needs a socket of its own. */
const loopbackStandIn = (options: Omit<StandInOptions, "catalog"> = {}) =>
  Effect.flatMap(goldenSet, (set) => Effect.map(start({ catalog: set.catalog, ...options }), (s) => ({ set, s })))

/** Lets real I/O run while the test clock stands still. */
const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 10)))

/** The first golden-set question: faults below select it by a substring. */
const set0Question = "refund on a Harbor invoice"

/** A docs case, an agent case and two more: both answer modes and every route in a few cases. */
const pick = (cases: ReadonlyArray<Case>): ReadonlyArray<Case> => [cases[0]!, cases[3]!, cases[13]!, cases[15]!]

describe("a live run against the stand-in", () => {
  live("grades every case over the four routes and deletes every conversation", () =>
    Effect.gen(function*() {
      const { set, s } = yield* standIn({ maxConversations: 4 })
      const { results, left } = yield* runLive(liveClient(s, set), set, set.cases, 4)
      expect(results.filter((r) => !r.passed).map((r) => [r.id, r.error, r.expectations])).toEqual([])
      expect(results.map((r) => r.id)).toEqual(set.cases.map((c) => c.id))
      const stats = s.stats()
      const n = set.cases.length
      // A turn for every step (a decision is answered as an ask is), a conversation for every case.
      const turns = set.cases.reduce((sum, c) => sum + stepsOf(c).length, 0)
      expect(stats.requests).toEqual({ ask: turns, conversation: turns, trace: turns, delete: n, ratings: 0 })
      expect(stats).toMatchObject({ created: n, deleted: n, capHits: 0, unauthorized: 0 })
      expect(stats.peakInFlight).toBeLessThanOrEqual(4)
      expect(s.conversations()).toEqual([])
      expect(left).toEqual({ kept: [], undeleted: [], unknown: [] })
    }))

  live("reads ids from a JSON body, an event stream, or headers alone", () =>
    Effect.gen(function*() {
      for (const mode of ["json", "stream", "headers"] as const) {
        const { set, s } = yield* standIn({ answerModes: { "docs": mode, "ops-agent": mode } })
        const { results } = yield* runLive(liveClient(s, set), set, pick(set.cases))
        expect(results.map((r) => [r.id, r.passed, r.error])).toEqual(
          pick(set.cases).map((c) => [c.id, true, undefined])
        )
        expect(s.conversations()).toEqual([])
      }
    }))

  live("follows the catalog's routes under a base URL with a path", () =>
    Effect.gen(function*() {
      const set0 = yield* goldenSet
      const set = {
        ...set0,
        catalog: {
          ...set0.catalog,
          routes: {
            conversation: "/v2/threads/{conversationId}",
            trace: "/v2/threads/turns/{turnId}/debug",
            delete: "/v2/threads/{conversationId}/remove"
          }
        }
      }
      const { s } = yield* standInProcess({ prefix: "/app" }, set.catalog)
      expect(s.url).toMatch(/\/app$/)
      const { results } = yield* runLive(liveClient(s, set), set, pick(set.cases))
      expect(results.every((r) => r.passed)).toBe(true)
      expect(s.stats().requests).toEqual({ ask: 4, conversation: 4, trace: 4, delete: 4, ratings: 0 })
      expect(s.conversations()).toEqual([])
    }))

  live(
    "--keep leaves every conversation and names it; a runner that keeps them hits the cap",
    () =>
      Effect.gen(function*() {
        const { set, s } = yield* standIn({ maxConversations: 3 })
        const cases = pick(set.cases)
        const { results, left } = yield* runLive(liveClient(s, set, { keep: true, retries: 1 }), set, cases, 1)
        expect(results.map((r) => withoutRequest(r.error))).toEqual([undefined, undefined, undefined, "ask: HTTP 429"])
        expect(left.kept.map((k) => k.caseId)).toEqual(cases.slice(0, 3).map((c) => c.id))
        expect(left.kept.map((k) => k.conversationId).sort()).toEqual(s.conversations().map((c) => c.id).sort())
        expect(s.stats().capHits).toBe(2)
        expect(s.stats().deleted).toBe(0)
      })
  )

  live("deletes the conversations in flight when the run is interrupted", () =>
    Effect.gen(function*() {
      const { set, s } = yield* standIn({ latency: { conversation: 30_000 } })
      const fiber = yield* Effect.fork(runLive(liveClient(s, set, { timeout: Duration.minutes(2) }), set, set.cases, 4))
      while (s.stats().created < 4) yield* Effect.sleep("20 millis")
      expect(s.conversations()).toHaveLength(4)
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect(s.conversations()).toEqual([])
      expect(s.stats()).toMatchObject({ created: 4, deleted: 4 })
    }))
})

describe("a rejected session", () => {
  live("stops the run at once and still deletes the conversations in flight", () =>
    Effect.gen(function*() {
      const { set, s } = yield* standIn({
        latency: { trace: 300 },
        faults: [{ route: "trace", kind: "status", status: 401, match: set0Question }]
      })
      const exit = yield* Effect.exit(runLive(liveClient(s, set), set, set.cases, 4))
      expect(Exit.isFailure(exit) && Exit.causeOption(exit)).toBeTruthy()
      expect(String(exit)).toContain("session-rejected")
      // The cases in flight may finish, and their workers start the next, while the rejection lands.
      expect(s.stats().requests.ask).toBeLessThanOrEqual(8)
      expect(s.conversations()).toEqual([])
    }))

  live("is a bad cookie as well: no conversation is created", () =>
    Effect.gen(function*() {
      const { set, s } = yield* standIn()
      const exit = yield* Effect.exit(
        runLive(liveClient(s, set, { cookie: Redacted.make("standin_session=forged") }), set, set.cases, 2)
      )
      expect(String(exit)).toContain("session-rejected")
      expect(s.stats().created).toBe(0)
      expect(s.stats().unauthorized).toBeGreaterThanOrEqual(1)
    }))
})

describe("retries", () => {
  // On the test clock: the retry waits until the test moves time on, and no sooner.
  it.scoped("retries a read on 429, honouring Retry-After, and the case passes", () =>
    Effect.gen(function*() {
      const { set, s } = yield* standIn({
        faults: [{ route: "trace", kind: "status", status: 429, retryAfter: "1", times: 1, match: set0Question }]
      })
      const run = yield* Effect.fork(runLive(liveClient(s, set), set, [set.cases[0]!]))
      // Two sleepers: the case's 10 s deadline, and the retry's wait.
      while (Chunk.size(yield* TestClock.sleeps()) < 2) yield* settle
      expect([...Chunk.toReadonlyArray(yield* TestClock.sleeps())].sort((x, y) => x - y)).toEqual([1000, 10_000])
      yield* TestClock.adjust("999 millis")
      yield* settle
      expect(s.stats().requests.trace).toBe(1)
      yield* TestClock.adjust("1 millis")
      const { results } = yield* Fiber.join(run)
      expect(results[0]).toMatchObject({ passed: true })
      expect(s.stats().requests.trace).toBe(2)
    }))

  live("retries the ask on 503 but never on 500, so no stray conversation is opened", () =>
    Effect.gen(function*() {
      const { set, s } = yield* standIn({
        faults: [
          { route: "ask", kind: "status", status: 503, times: 2, match: set0Question },
          { route: "ask", kind: "status", status: 500, times: 1, match: "roll back a bad deploy" }
        ]
      })
      const cases = [set.cases[0]!, set.cases[2]!]
      const { results } = yield* runLive(liveClient(s, set), set, cases)
      expect(results.map((r) => [r.passed, withoutRequest(r.error)])).toEqual([[true, undefined], [
        false,
        "ask: HTTP 500"
      ]])
      expect(s.stats().requests.ask).toBe(4)
      expect(s.stats().created).toBe(1)
    }))

  live("retries a read whose connection dropped half-way through the body", () =>
    Effect.gen(function*() {
      const { set, s } = yield* standIn({
        faults: [{ route: "trace", kind: "reset", times: 1, match: set0Question }]
      })
      const { results } = yield* runLive(liveClient(s, set), set, [set.cases[0]!])
      expect(results[0]).toMatchObject({ passed: true })
      expect(s.stats().requests.trace).toBe(2)
    }))

  live("gives up after the retries and says how the last attempt ended", () =>
    Effect.gen(function*() {
      const { set, s } = yield* standIn({
        faults: [{ route: "conversation", kind: "status", status: 502, match: set0Question }]
      })
      const { results } = yield* runLive(liveClient(s, set, { retries: 2 }), set, [set.cases[0]!])
      expect(withoutRequest(results[0]?.error)).toBe("conversation: HTTP 502")
      expect(s.stats().requests.conversation).toBe(3)
      expect(s.conversations()).toEqual([])
    }))
})

const otherOrigin = Effect.acquireRelease(
  Effect.async<{ origin: string; seen: Array<IncomingHttpHeaders>; close: () => void }>((resume) => {
    const seen: Array<IncomingHttpHeaders> = []
    const server = createServer((request, response) => {
      seen.push(request.headers)
      response.end("{}")
    })
    server.listen(0, "127.0.0.1", () =>
      resume(Effect.succeed({
        origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
        seen,
        close: () => server.close()
      })))
  }),
  (other) => Effect.sync(other.close)
)

describe("every fault fails only its case, with the route and the fault, and leaks nothing", () => {
  // Every route error names its request: the method and the URL, which holds the case's ids.
  const requestOf: Record<Route, string> = {
    ask: `POST ${origin}/api/ai/(docs|agent)/ask`,
    conversation: `GET ${origin}/api/ai/conversations/conv_\\w+`,
    trace: `GET ${origin}/api/ai/turns/turn_\\w+/trace`,
    delete: `DELETE ${origin}/api/ai/conversations/conv_\\w+`,
    ratings: `GET ${origin}/api/ai/ratings`
  }
  const named = (route: Route, reason: string) => new RegExp(`^${reason} — ${requestOf[route]}$`)
  const webPage = (route: Route) =>
    new RegExp(
      `^${route}: the app answered a web page \\(HTTP 200 text/html from ${
        requestOf[route].replace(/^\S+ /, "")
      }\\), not the protocol — is the route right and the session signed in\\?$`
    )
  const faults: ReadonlyArray<[Route, FaultKind, RegExp]> = [
    ["ask", { kind: "status", status: 500 }, named("ask", "ask: HTTP 500")],
    ["ask", { kind: "status", status: 503 }, named("ask", "ask: HTTP 503")],
    ["ask", { kind: "status", status: 404 }, named("ask", "ask: HTTP 404")],
    ["ask", { kind: "hang" }, named("ask", "ask: timed out after 1500ms")],
    ["ask", { kind: "reset" }, named("ask", "ask: connection reset while reading the answer")],
    ["ask", { kind: "not-json" }, webPage("ask")],
    ["ask", { kind: "wrong-shape" }, named("ask", "ask: the answer carries no conversationId")],
    ["conversation", { kind: "status", status: 500 }, named("conversation", "conversation: HTTP 500")],
    ["conversation", { kind: "status", status: 503, retryAfter: "0" }, named("conversation", "conversation: HTTP 503")],
    ["conversation", { kind: "status", status: 404 }, named("conversation", "conversation: HTTP 404")],
    ["conversation", { kind: "hang" }, named("conversation", "conversation: timed out after 1500ms")],
    [
      "conversation",
      { kind: "reset" },
      named("conversation", "conversation: connection reset while reading the answer")
    ],
    ["conversation", { kind: "not-json" }, webPage("conversation")],
    [
      "conversation",
      { kind: "wrong-shape" },
      named("conversation", "conversation: \\$\\.id: missing \\(and 1 more\\)")
    ],
    ["trace", { kind: "status", status: 502 }, named("trace", "trace: HTTP 502")],
    ["trace", { kind: "status", status: 429 }, named("trace", "trace: HTTP 429")],
    ["trace", { kind: "hang" }, named("trace", "trace: timed out after 1500ms")],
    ["trace", { kind: "reset" }, named("trace", "trace: connection reset while reading the answer")],
    ["trace", { kind: "not-json" }, webPage("trace")],
    ["trace", { kind: "wrong-shape" }, named("trace", "trace: \\$\\.turnId: missing \\(and 5 more\\)")]
  ]

  for (const [route, fault, reason] of faults) {
    live(`${route} ${fault.kind}${fault.kind === "status" ? ` ${fault.status}` : ""}`, () =>
      Effect.gen(function*() {
        const { set, s } = yield* standIn({ faults: [{ route, ...fault, match: set0Question } as Fault] })
        const cases = pick(set.cases)
        const { results, left } = yield* runLive(
          liveClient(s, set, { timeout: Duration.millis(1500), retries: 1 }),
          set,
          cases
        )
        expect(results[0]?.passed).toBe(false)
        expect(results[0]?.error).toMatch(reason)
        expect(results.slice(1).map((r) => [r.passed, r.error])).toEqual(cases.slice(1).map(() => [true, undefined]))
        expect(s.conversations()).toEqual([])
        expect(left.undeleted).toEqual([])
      }))
  }

  live("a 5 MB trace is read and graded like any other", () =>
    Effect.gen(function*() {
      const { set, s } = yield* standIn({ faults: [{ route: "trace", kind: "huge", match: set0Question }] })
      const { results } = yield* runLive(liveClient(s, set), set, pick(set.cases))
      expect(results.every((r) => r.passed)).toBe(true)
    }))

  live("a redirect to another origin is not followed, so the cookie never reaches it", () =>
    Effect.gen(function*() {
      const other = yield* otherOrigin
      for (const route of ["ask", "conversation", "trace", "delete"] as const) {
        // Over loopback: a request that followed the redirect would reach the other origin's server.
        const { set, s } = yield* loopbackStandIn({
          faults: [{ route, kind: "redirect", to: other.origin, match: set0Question }]
        })
        const { results, left } = yield* runLive(liveClient(s, set), set, pick(set.cases))
        expect(s.stats().requests[route]).toBe(4)
        if (route === "delete") {
          expect(results.every((r) => r.passed)).toBe(true)
          expect(left.undeleted).toEqual([{
            caseId: set.cases[0]!.id,
            conversationId: expect.stringMatching(/^conv_/),
            reason: expect.stringMatching(
              new RegExp(
                `^delete: redirected to another origin \\(${
                  other.origin.replace(/[.]/g, "\\.")
                }\\); not followed — DELETE `
              )
            )
          }])
          expect(s.conversations().map((c) => c.id)).toEqual([left.undeleted[0]!.conversationId])
        } else {
          expect(withoutRequest(results[0]?.error)).toBe(
            `${route}: redirected to another origin (${other.origin}); not followed`
          )
          expect(results.slice(1).every((r) => r.passed)).toBe(true)
          expect(s.conversations()).toEqual([])
        }
      }
      expect(other.seen).toEqual([])
    }))

  live("a delete that keeps failing is reported by id; a 404 means already gone", () =>
    Effect.gen(function*() {
      const { set, s } = yield* standIn({
        faults: [
          { route: "delete", kind: "status", status: 500, match: set0Question },
          { route: "delete", kind: "status", status: 404 }
        ]
      })
      const cases = pick(set.cases)
      const { results, left } = yield* runLive(liveClient(s, set, { retries: 1 }), set, cases)
      expect(results.every((r) => r.passed)).toBe(true)
      expect(left.undeleted).toEqual([
        {
          caseId: cases[0]!.id,
          conversationId: expect.stringMatching(/^conv_/),
          reason: expect.stringMatching(
            new RegExp(`^delete: HTTP 500 — DELETE ${origin}/api/ai/conversations/conv_\\w+$`)
          )
        }
      ])
      expect(s.conversations().map((c) => c.id)).toEqual([left.undeleted[0]!.conversationId])
    }))

  live("a delete that hangs is bounded by its own timeout and reported", () =>
    Effect.gen(function*() {
      const { set, s } = yield* standIn({ faults: [{ route: "delete", kind: "hang", match: set0Question }] })
      const { results, left } = yield* runLive(
        liveClient(s, set, { deleteTimeout: Duration.millis(500) }),
        set,
        [set.cases[0]!]
      )
      expect(results[0]?.passed).toBe(true)
      expect(left.undeleted.map((u) => withoutRequest(u.reason))).toEqual(["delete: timed out after 500ms"])
    }))
})
