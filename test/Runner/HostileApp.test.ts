/**
 * The live client against a hostile app on loopback: ids that would redirect a request are refused
 * before any request is made with them, every conversation the app names is deleted (even from an
 * answer that failed), a case that may have left one it never learned of says so, an endless event
 * stream line is cut at its cap, and a case cut short never waits out a retry's sleep.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer, Redacted } from "effect"
import { HttpLive } from "../../src/Runner/Http.js"
import type { LiveConfig } from "../../src/Runner/LiveClient.js"
import { SurfaceClient } from "../../src/Runner/SurfaceClient.js"
import { resolveRoutes } from "../../src/Schema/Protocol.js"
import { type AskAnswer, type HostileApp, startHostileApp } from "../support/hostileApp.js"
import { goldenSet, runLive, withoutRequest } from "../support/live.js"

const client = (app: HostileApp, overrides: Partial<LiveConfig> = {}): Layer.Layer<SurfaceClient> =>
  SurfaceClient.Live({
    baseUrl: new URL(app.url),
    cookie: Redacted.make(app.cookie),
    routes: resolveRoutes(undefined),
    timeout: Duration.seconds(5),
    deleteTimeout: Duration.seconds(2),
    keep: false,
    retryDelay: Duration.millis(10),
    askGrace: Duration.seconds(1),
    ...overrides
  }).pipe(Layer.provide(HttpLive))

/** Runs the first golden-set case (a docs case) against an app answering its ask as `how` says. */
const runOne = (
  how: (n: number) => AskAnswer,
  overrides: Partial<LiveConfig> = {},
  conversationIdOf?: (id: string) => string
) =>
  Effect.gen(function*() {
    const set = yield* goldenSet
    const testCase = set.cases[0]!
    const app = yield* Effect.promise(() =>
      startHostileApp((_, n) => how(n), conversationIdOf === undefined ? {} : { conversationIdOf })
    )
    const { left, results } = yield* runLive(client(app, overrides), set, [testCase]).pipe(
      Effect.ensuring(Effect.promise(() => app.close()))
    )
    return { app, left, result: results[0]!, testCase }
  })

/** The requests other than the ask. */
const afterAsk = (app: HostileApp) => app.requests().filter((r) => r.method !== "POST")

const unsafe: ReadonlyArray<readonly [string, string, ReadonlyArray<"headers" | "json" | "stream">]> = [
  [".", "would change the route's path", ["headers", "json", "stream"]],
  ["..", "would change the route's path", ["headers", "json", "stream"]],
  ["%2e", "would change the route's path", ["headers", "json", "stream"]],
  ["%2E%2e", "would change the route's path", ["headers", "json", "stream"]],
  [".%252E", "would change the route's path", ["json", "stream"]],
  ["a/../../admin", "would change the route's path", ["json", "stream"]],
  ["", "is empty", ["headers", "json", "stream"]],
  ["c".repeat(1025), "is longer than 1024 characters", ["headers", "json", "stream"]],
  ["conv\n::error::forged", "holds a control character", ["json", "stream"]],
  ["conv\u007f", "holds a control character", ["json", "stream"]],
  ["conv\u0085", "holds a control character", ["json", "stream"]],
  ["conv\ud800", "is not valid UTF-8", ["json", "stream"]]
]

describe("ids the app answers with", () => {
  for (const [id, why, modes] of unsafe) {
    for (const mode of modes) {
      it.live(
        `refuses the conversation id ${JSON.stringify(id.slice(0, 20))} in ${mode}: no request is made with it, ` +
          `and it is listed as not deleted`,
        () =>
          Effect.gen(function*() {
            const { app, left, result, testCase } = yield* runOne(() => ({ mode, conversationId: id }))
            expect(result.passed).toBe(false)
            expect(result.error).toContain(
              `ask: refused the conversation id ${JSON.stringify(id.length > 200 ? `${id.slice(0, 200)}…` : id)}`
            )
            expect(result.error).toContain(`it ${why}; no request is made with it`)
            expect(afterAsk(app)).toEqual([])
            expect(left.undeleted).toEqual([{
              caseId: testCase.id,
              conversationId: id,
              reason: `the app named it, but the id ${why}: no request is made with it`
            }])
          })
      )
    }
  }

  it.live("refuses a header whose bytes are not UTF-8", () =>
    Effect.gen(function*() {
      const { app, left, result } = yield* runOne(() => ({
        mode: "headers",
        conversationId: Buffer.from([0x63, 0xff, 0xfe])
      }))
      expect(result.error).toMatch(
        /^ask: refused the conversation id "c\uFFFD\uFFFD" \(x-conversation-id\): it is not valid UTF-8/
      )
      expect(afterAsk(app)).toEqual([])
      expect(left.undeleted.map((u) => u.conversationId)).toEqual(["c\ufffd\ufffd"])
    }))

  it.live("takes a header holding UTF-8 as the text it encodes", () =>
    Effect.gen(function*() {
      const { app, left, result } = yield* runOne(() => ({ mode: "headers", conversationId: Buffer.from("conv_é") }))
      expect(withoutRequest(result.error)).toBe(undefined)
      expect(app.open()).toEqual([])
      expect(left.undeleted).toEqual([])
    }))

  it.live("refuses an unsafe turn id, and still deletes the conversation the ask opened", () =>
    Effect.gen(function*() {
      for (const turnId of ["..", "%2e%2E", "t".repeat(1025)]) {
        const { app, left, result } = yield* runOne(() => ({ mode: "json", turnId }))
        expect(withoutRequest(result.error)).toMatch(
          /^ask: refused the turn id ".*": it (would change the route's path|is longer than 1024 characters); no request is made with it$/
        )
        expect(afterAsk(app)).toEqual([{ method: "DELETE", url: "/api/ai/conversations/conv_1" }])
        expect(app.open()).toEqual([])
        expect(left).toEqual({ kept: [], undeleted: [], unknown: [] })
      }
    }))
})

describe("every conversation the app names is deleted", () => {
  it.live("from an ask answered with an error status (in its headers or its body)", () =>
    Effect.gen(function*() {
      for (const headers of [true, false]) {
        const { app, left, result } = yield* runOne(() => ({ mode: "json", status: 500, headers }))
        expect(withoutRequest(result.error)).toBe("ask: HTTP 500")
        expect(afterAsk(app)).toEqual([{ method: "DELETE", url: "/api/ai/conversations/conv_1" }])
        expect(app.open()).toEqual([])
        expect(left).toEqual({ kept: [], undeleted: [], unknown: [] })
      }
    }))

  it.live("from each answer of a retried ask", () =>
    Effect.gen(function*() {
      const { app, left, result } = yield* runOne((n) => n < 2 ? { mode: "json", status: 503 } : { mode: "json" })
      expect(withoutRequest(result.error)).toBe(undefined)
      expect(afterAsk(app).filter((r) => r.method === "DELETE").map((r) => r.url).sort()).toEqual(
        ["/api/ai/conversations/conv_1", "/api/ai/conversations/conv_2", "/api/ai/conversations/conv_3"]
      )
      expect(app.open()).toEqual([])
      expect(left.undeleted).toEqual([])
    }))

  it.live("when the ask names two, both are deleted and the case fails", () =>
    Effect.gen(function*() {
      const { app, left, result } = yield* runOne(() => ({ mode: "json", bodyConversationId: "conv_other" }))
      expect(withoutRequest(result.error)).toBe(`ask: named 2 conversations ("conv_1", "conv_other"); each is deleted`)
      expect(afterAsk(app).map((r) => r.url).sort()).toEqual([
        "/api/ai/conversations/conv_1",
        "/api/ai/conversations/conv_other"
      ])
      expect(left.undeleted).toEqual([])
    }))

  it.live("when the conversation comes back as another, both are deleted and the case fails", () =>
    Effect.gen(function*() {
      const { app, result } = yield* runOne(() => ({ mode: "json" }), {}, (id) => `${id}_renamed`)
      expect(withoutRequest(result.error)).toBe(
        `conversation: is conversation "conv_1_renamed", not "conv_1"; each is deleted`
      )
      expect(afterAsk(app).filter((r) => r.method === "DELETE").map((r) => r.url).sort()).toEqual([
        "/api/ai/conversations/conv_1",
        "/api/ai/conversations/conv_1_renamed"
      ])
    }))
})

describe("a case that may have left a conversation it never learned of", () => {
  const unknownOf = (how: AskAnswer, overrides: Partial<LiveConfig> = {}) =>
    Effect.map(runOne(() => how, overrides), ({ app, left, result }) => ({ app, left, result }))

  it.live("says so when the ask timed out, broke off, or answered without naming one", () =>
    Effect.gen(function*() {
      const cases: ReadonlyArray<readonly [AskAnswer, string]> = [
        [{ stall: "beforeHeaders" }, "timed out after 1s"],
        [{ stall: "afterHeaders", headers: false }, "timed out after 1s"],
        [{ breakOff: true, headers: false }, "ended"],
        [{ rawBody: "<html>sign in</html>", headers: false }, "ended"],
        [{ rawBody: "{\"turnId\": \"t\"}", headers: false }, "ended"],
        [{ status: 500, headers: false, rawBody: "oops" }, "was answered HTTP 500"]
      ]
      for (const [how, what] of cases) {
        const { app, left, result } = yield* unknownOf(how, { timeout: Duration.seconds(1) })
        expect(result.passed).toBe(false)
        expect(left.undeleted).toEqual([])
        expect(left.unknown).toEqual([{
          caseId: result.id,
          reason:
            `the ask (POST ${app.url}/api/ai/docs/ask) ${what} before naming its conversation: the app may hold one`
        }])
      }
    }))

  it.live("says nothing when the app refused the question or could not be reached", () =>
    Effect.gen(function*() {
      for (const status of [400, 404, 422, 429]) {
        const { left, result } = yield* unknownOf({ status, headers: false, rawBody: "{}" })
        expect(withoutRequest(result.error)).toBe(`ask: HTTP ${status}`)
        expect(left).toEqual({ kept: [], undeleted: [], unknown: [] })
      }
      const set = yield* goldenSet
      const closed = SurfaceClient.Live({
        baseUrl: new URL("http://127.0.0.1:1"),
        cookie: Redacted.make("s=1"),
        routes: resolveRoutes(undefined),
        timeout: Duration.seconds(2),
        deleteTimeout: Duration.seconds(1),
        keep: false
      }).pipe(Layer.provide(HttpLive))
      // An app no ask can reach at all stops the run, as a rejected session does.
      const stopped = yield* Effect.flip(runLive(closed, set, [set.cases[0]!]))
      expect(stopped.message).toBe(
        "cannot reach the app at http://127.0.0.1:1/api/ai/docs/ask: connection refused — is the dev server running?"
      )
    }))
})

describe("bounds", () => {
  it.live("an event-stream line without end fails the case at the line cap, and the rest is not read", () =>
    Effect.gen(function*() {
      const { app, left, result } = yield* runOne(
        () => ({ endlessLine: { limit: 200 * 1024 * 1024 }, headers: false }),
        {
          maxBodyBytes: 512 * 1024 * 1024
        }
      )
      expect(withoutRequest(result.error)).toBe("ask: an event-stream line over 8 MiB")
      // What the app managed to write before the client hung up: the cap and what was in the pipes.
      expect(app.endlessWritten()).toBeLessThan(40 * 1024 * 1024)
      expect(left.unknown).toHaveLength(1)
    }))

  // A grace far longer than a test may take: a case that waited it out would never finish.
  const endless = Duration.minutes(10)

  it.live("a retry sleeping in a backoff stops as soon as the case is cut short", () =>
    Effect.gen(function*() {
      // Retry-After asks for the longest sleep the client honours, longer than a test may take; the case's timeout ends it.
      const { app, left, result } = yield* runOne(
        () => ({ status: 429, retryAfter: "60", headers: false, rawBody: "{}" }),
        { timeout: Duration.seconds(1), askGrace: endless }
      )
      expect(withoutRequest(result.error)).toBe("ask: HTTP 429 (retried until the 1s timeout)")
      // The sleep never ran out into a second ask, and a sleeping ask is not one in flight: no grace, no doubt.
      expect(app.requests().filter((r) => r.method === "POST")).toHaveLength(1)
      expect(left.unknown).toEqual([])
    }))

  it.live("the grace an ask gets to name its conversation is within the case's timeout", () =>
    Effect.gen(function*() {
      // The answer stalls for good: the case ends only if its grace ends with its timeout.
      const { left, result } = yield* runOne(() => ({ stall: "afterHeaders", headers: false }), {
        timeout: Duration.seconds(1),
        askGrace: endless
      })
      expect(withoutRequest(result.error)).toBe("ask: timed out after 1s")
      expect(left.unknown).toHaveLength(1)
    }))
})
