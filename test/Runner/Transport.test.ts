/**
 * The transport over an `HttpClient` that answers from a table: redirects, retries and `Retry-After`,
 * the session header and the body limit, each a unit test with no socket. The loopback tests
 * (test/Runner/HostileApp.test.ts, test/Reliability/FaultMatrix.test.ts) run the same paths over HTTP,
 * and the event-stream tests read the same stream from each.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Duration, Effect, Either, Fiber, Redacted, TestClock } from "effect"
import { createServer } from "node:http"
import { HttpLive } from "../../src/Runner/Http.js"
import { cookieAuth, makeTransport, type Transport, type TransportConfig } from "../../src/Runner/Transport.js"
import type { TurnError } from "../../src/Schema/Errors.js"
import { listenOnLoopback } from "../support/loopback.js"
import { type Answer, tableClient } from "../support/tableClient.js"

const app = "https://app.test"
const limit = Duration.seconds(30)

/** The transport for the app at `base`, over a client answering from `table`, and what it was sent. */
const transportOver = (
  table: Readonly<Record<string, Answer | ReadonlyArray<Answer>>>,
  config: Partial<TransportConfig> = {}
) => {
  const http = tableClient(table)
  return Effect.map(
    makeTransport({ baseUrl: new URL(`${app}/base/`), auth: cookieAuth(Redacted.make("session=s3cret")), ...config })
      .pipe(Effect.provide(http.layer)),
    (transport) => ({ transport, http })
  )
}

/** When the sleeps on the test clock end, but for the request's own deadline (`limit`). */
const retrySleeps = Effect.map(
  TestClock.sleeps(),
  (sleeps) => Chunk.toReadonlyArray(sleeps).filter((end) => end !== Duration.toMillis(limit))
)

/** Lets the forked request run until it sleeps on the test clock before a retry; when that sleep ends. */
const untilSleeping = Effect.gen(function*() {
  for (let i = 0; i < 1000 && (yield* retrySleeps).length === 0; i++) {
    yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
  }
  return yield* retrySleeps
})

describe("the transport's requests", () => {
  it.effect("go under the base URL's path, with the session header and an accept header", () =>
    Effect.gen(function*() {
      const { http, transport } = yield* transportOver({ [`GET ${app}/base/api/c/1?x=y`]: { body: "{}" } })
      expect(yield* transport.get("conversation", "/api/c/1?x=y", limit)).toBe("{}")
      expect(http.seen).toHaveLength(1)
      expect(http.seen[0]!.headers).toMatchObject({ cookie: "session=s3cret", accept: "application/json" })
      expect(transport.connected()).toBe(true)
    }))

  it.effect("follow a same-origin redirect, sending the session to the app's origin only", () =>
    Effect.gen(function*() {
      const { http, transport } = yield* transportOver({
        [`GET ${app}/base/a`]: { status: 302, headers: { location: "/base/b" } },
        [`GET ${app}/base/b`]: { body: "here" }
      })
      expect(yield* transport.get("trace", "/a", limit)).toBe("here")
      expect(http.routes()).toEqual([`GET ${app}/base/a`, `GET ${app}/base/b`])
      expect(http.seen.every((s) => s.headers["cookie"] === "session=s3cret")).toBe(true)
    }))

  it.effect("refuse a redirect to another origin, a re-post of a question, and a sixth redirect", () =>
    Effect.gen(function*() {
      const { http, transport } = yield* transportOver({
        [`GET ${app}/base/away`]: { status: 302, headers: { location: "https://elsewhere.test/steal" } },
        [`POST ${app}/base/ask`]: { status: 302, headers: { location: "/base/asked" } },
        [`POST ${app}/base/kept`]: { status: 307, headers: { location: "/base/asked" } },
        [`POST ${app}/base/asked`]: { body: "{}" },
        [`GET ${app}/base/loop`]: { status: 301, headers: { location: "/base/loop" } }
      })
      const away = yield* Effect.flip(transport.get("conversation", "/away", limit))
      expect(away).toMatchObject({
        _tag: "TurnError",
        reason: "redirect",
        route: "conversation",
        message: "conversation: redirected to another origin (https://elsewhere.test); not followed"
      })
      expect(http.routes().some((r) => r.includes("elsewhere"))).toBe(false)

      const reposted = yield* Effect.flip(transport.send("ask", "POST", "/ask", { body: { q: 1 } }))
      const message = "ask: HTTP 302 redirect; a question is not re-posted"
      expect(reposted).toMatchObject({ _tag: "TurnError", reason: "redirect", route: "ask", message })
      // A 307 keeps the method and the body: it is followed.
      expect((yield* transport.send("ask", "POST", "/kept", { body: { q: 1 } })).status).toBe(200)
      expect(http.seen.at(-1)).toMatchObject({ route: `POST ${app}/base/asked`, body: "{\"q\":1}" })

      const loop = yield* Effect.flip(transport.get("trace", "/loop", limit))
      expect(loop).toMatchObject({ _tag: "TurnError", reason: "redirect", message: "trace: more than 5 redirects" })
      expect(http.routes().filter((r) => r === `GET ${app}/base/loop`)).toHaveLength(6)
    }))

  it.effect("stop the run on a 401: the session is not signed in", () =>
    Effect.gen(function*() {
      const { transport } = yield* transportOver({ [`GET ${app}/base/c`]: { status: 401, body: "sign in" } })
      expect(yield* Effect.flip(transport.get("conversation", "/c", limit))).toMatchObject({
        _tag: "RunStopped",
        reason: "session-rejected"
      })
    }))
})

describe("the transport's retries", () => {
  it.effect("wait as long as Retry-After asks when that is longer than the backoff, then retry", () =>
    Effect.gen(function*() {
      const { http, transport } = yield* transportOver({
        [`GET ${app}/base/c`]: [{ status: 503, headers: { "retry-after": "2" } }, { body: "again" }]
      })
      const read = yield* Effect.fork(transport.get("conversation", "/c", limit))
      expect(yield* untilSleeping).toEqual([2000])
      expect(http.seen).toHaveLength(1)
      yield* TestClock.adjust("1999 millis")
      expect(http.seen).toHaveLength(1)
      yield* TestClock.adjust("1 millis")
      expect(yield* Fiber.join(read)).toBe("again")
      expect(http.seen).toHaveLength(2)
    }))

  it.effect("back off exponentially, with jitter, when Retry-After asks for less", () =>
    Effect.gen(function*() {
      const { transport } = yield* transportOver(
        { [`GET ${app}/base/c`]: [{ status: 429, headers: { "retry-after": "0" } }, { status: 502 }, { body: "ok" }] },
        { retryDelay: Duration.millis(300) }
      )
      const read = yield* Effect.fork(transport.get("conversation", "/c", limit))
      const [first] = yield* untilSleeping
      expect(first).toBeGreaterThanOrEqual(240)
      expect(first).toBeLessThanOrEqual(360)
      yield* TestClock.adjust(Duration.millis(first!))
      const [second] = yield* untilSleeping
      expect(second! - first!).toBeGreaterThanOrEqual(480)
      expect(second! - first!).toBeLessThanOrEqual(720)
      yield* TestClock.adjust(Duration.millis(second! - first!))
      expect(yield* Fiber.join(read)).toBe("ok")
    }))

  it.effect("spread the retries of cases that met the same answer: no two wait alike", () =>
    Effect.gen(function*() {
      const { transport } = yield* transportOver(
        {
          [`GET ${app}/base/c`]: [
            ...Array.from({ length: 8 }, () => ({ status: 503 })),
            ...Array.from({ length: 8 }, () => ({ body: "ok" }))
          ]
        },
        { retryDelay: Duration.millis(1000) }
      )
      const reads = yield* Effect.forkAll(Array.from({ length: 8 }, () => transport.get("conversation", "/c", limit)))
      let sleeps: ReadonlyArray<number> = []
      for (let i = 0; i < 1000 && sleeps.length < 8; i++) {
        yield* Effect.promise(() => new Promise((resolve) => setImmediate(resolve)))
        sleeps = yield* retrySleeps
      }
      expect(sleeps).toHaveLength(8)
      expect(new Set(sleeps).size).toBe(8)
      for (const end of sleeps) {
        expect(end).toBeGreaterThanOrEqual(800)
        expect(end).toBeLessThanOrEqual(1200)
      }
      yield* TestClock.adjust("1200 millis")
      expect(yield* Fiber.join(reads)).toEqual(Array.from({ length: 8 }, () => "ok"))
    }))

  it.live("give up after the configured retries, naming the last status", () =>
    Effect.gen(function*() {
      const { http, transport } = yield* transportOver(
        { [`GET ${app}/base/c`]: { status: 503 } },
        { retries: 2, retryDelay: Duration.millis(1) }
      )
      const failed = yield* Effect.flip(transport.get("conversation", "/c", limit))
      expect(failed).toMatchObject({
        reason: "status",
        route: "conversation",
        status: 503,
        message: "conversation: HTTP 503"
      })
      expect(http.seen).toHaveLength(3)
    }))

  it.live("time out naming what was being retried, the route and the limit as fields", () =>
    Effect.gen(function*() {
      const { transport } = yield* transportOver(
        { [`GET ${app}/base/c`]: { status: 503 } },
        { retries: 1_000_000, retryDelay: Duration.millis(1) }
      )
      const failed = yield* Effect.flip(transport.get("conversation", "/c", Duration.millis(50)))
      expect(failed).toMatchObject({
        _tag: "TurnError",
        reason: "timed-out",
        route: "conversation",
        limit: 50,
        retrying: "HTTP 503",
        message: "conversation: HTTP 503 (retried until the 50ms timeout)"
      })
    }))

  it.effect("name a failure by its request once, and a refused path by none", () =>
    Effect.gen(function*() {
      const { transport } = yield* transportOver({ [`GET ${app}/base/c`]: { status: 404 } })
      const failed = yield* Effect.flip(transport.get("conversation", "/c", limit))
      const named = transport.naming(failed as TurnError, "POST", "/c")
      expect(named).toMatchObject({
        reason: "status",
        status: 404,
        request: { method: "POST", url: `${app}/base/c` },
        message: `conversation: HTTP 404 — POST ${app}/base/c`
      })
      expect(transport.naming(named, "DELETE", "/c").message).toBe(named.message)
      const refused = yield* Effect.flip(transport.get("conversation", "//elsewhere.test/c", limit))
      expect(refused).toMatchObject({ reason: "path-refused", route: "conversation", path: "//elsewhere.test/c" })
      expect(transport.naming(refused as TurnError, "POST", "//elsewhere.test/c").request).toBeUndefined()
    }))

  it.effect("never retry an answer that is not retryable", () =>
    Effect.gen(function*() {
      const { http, transport } = yield* transportOver({ [`GET ${app}/base/c`]: { status: 500 } })
      const failed = yield* Effect.flip(transport.get("conversation", "/c", limit))
      expect(failed).toMatchObject({
        reason: "status",
        route: "conversation",
        status: 500,
        message: "conversation: HTTP 500"
      })
      expect(http.seen).toHaveLength(1)
    }))
})

describe("the transport's limits", () => {
  const mib = 1024 * 1024

  it.effect("refuse a body over the limit, declared or streamed, and read one at it", () =>
    Effect.gen(function*() {
      const { transport } = yield* transportOver(
        {
          [`GET ${app}/base/declared`]: { headers: { "content-length": String(mib + 1) }, body: "x" },
          [`GET ${app}/base/streamed`]: { body: "x".repeat(mib + 1) },
          [`GET ${app}/base/at`]: { body: "x".repeat(mib) }
        },
        { maxBodyBytes: mib }
      )
      for (const path of ["/declared", "/streamed"]) {
        const refused = yield* Effect.flip(transport.get("trace", path, limit))
        expect(refused).toMatchObject({
          reason: "too-large",
          route: "trace",
          part: "body",
          message: "trace: body over 1 MiB"
        })
      }
      expect((yield* transport.get("trace", "/at", limit)).length).toBe(mib)
    }))
})

describe("the transport's delete", () => {
  it.effect("says deleted for a 2xx, already gone for a 404, and why not for anything else", () =>
    Effect.gen(function*() {
      const { transport } = yield* transportOver({
        [`DELETE ${app}/base/c/1`]: { status: 204 },
        [`DELETE ${app}/base/c/3`]: { status: 403 }
      })
      expect(yield* transport.deleteAt("/c/1", limit)).toEqual(Either.right("deleted"))
      expect(yield* transport.deleteAt("/c/2", limit)).toEqual(Either.right("already gone"))
      const refused = `delete: HTTP 403 — DELETE ${app}/base/c/3`
      expect(yield* transport.deleteAt("/c/3", limit)).toEqual(Either.left(refused))
    }))
})

describe("the transport's event streams", () => {
  // Lines ended by LF, CRLF and CR; an event of two data lines (one leading space stripped from each);
  // a comment; id, retry and event fields; an event the stream ends inside, which is never dispatched.
  const stream = "data: 1\n\nid: 2\nretry: 10\nevent: x\ndata: {\"a\":2}\r\n\r\n: a comment\rdata: three\n" +
    "data:  four \n\ndata: 5\n\ndata: 6"

  /** Every event of the answer to GET /events, its event field, and how many effects the reader ran before each. */
  const readEvents = (transport: Transport) =>
    Effect.gen(function*() {
      const sent = yield* transport.send("ask", "GET", "/events")
      const seen: Array<string> = []
      let effects = 0
      yield* transport.forEachEventData("ask", sent.response!, (data, event) => {
        seen.push(`${data}@${effects}${event === undefined ? "" : ` (${event})`}`)
        return data.startsWith("three") ? Effect.sync(() => effects++) : undefined
      })
      return seen
    })
  const expected = ["1@0", "{\"a\":2}@0 (x)", "three\n four @0", "5@1"]

  it.effect("give every event's data in order, its lines joined, running the effect one gives before the next is seen", () =>
    Effect.gen(function*() {
      const { transport } = yield* transportOver({ [`GET ${app}/base/events`]: { body: stream } })
      expect(yield* readEvents(transport)).toEqual(expected)
    }))

  it.live("read the same from the live client a byte at a time, and hang up on a line, an event or a declared body over the limit", () =>
    Effect.gen(function*() {
      const abandoned = new Set<string>()
      const server = createServer((request, response) => {
        response.on("close", () => response.writableEnded || abandoned.add(request.url!))
        if (request.url === "/large") {
          // A declared length over the limit: refused unread, and its connection closed.
          response.writeHead(200, { "content-type": "application/json", "content-length": String(8 * 1024 * 1024) })
          response.write("{")
          return
        }
        response.writeHead(200, { "content-type": "text/event-stream" })
        if (request.url === "/events") {
          const bytes = Buffer.from(stream)
          let at = 0
          const next = () => at === bytes.length ? response.end() : response.write(bytes.subarray(at, ++at), next)
          next()
        } else if (request.url === "/event") {
          // Lines each under the line's bound, one event's data over the event's.
          response.write(`data: ${"x".repeat(60 * 1024)}\n`.repeat(3))
        } else {
          response.write(`data: ${"x".repeat(200 * 1024)}`)
        }
      })
      const listening = yield* Effect.acquireRelease(
        Effect.promise(() => listenOnLoopback(server)),
        (l) => Effect.promise(l.close)
      )
      const transport = yield* makeTransport({
        baseUrl: new URL(listening.url),
        auth: cookieAuth(Redacted.make("session=s3cret")),
        maxLineBytes: 100 * 1024,
        maxBodyBytes: 1024 * 1024
      })
      expect(yield* readEvents(transport)).toEqual(expected)
      const long = yield* transport.send("ask", "GET", "/long")
      const refused = yield* Effect.flip(transport.forEachEventData("ask", long.response!, () => undefined))
      expect(refused).toMatchObject({
        reason: "too-large",
        part: "line",
        message: "ask: an event-stream line over 0.1 MiB"
      })
      const big = yield* transport.send("ask", "GET", "/event")
      const overEvent = yield* Effect.flip(transport.forEachEventData("ask", big.response!, () => undefined))
      expect(overEvent).toMatchObject({
        reason: "too-large",
        part: "event",
        message: "ask: an event-stream event's data over 0.1 MiB"
      })
      const large = yield* Effect.flip(transport.get("trace", "/large", Duration.seconds(5)))
      expect(large).toMatchObject({
        reason: "too-large",
        route: "trace",
        part: "body",
        message: "trace: body over 1 MiB"
      })
      for (let i = 0; i < 100 && abandoned.size < 3; i++) yield* Effect.sleep("10 millis")
      expect([...abandoned].sort()).toEqual(["/event", "/large", "/long"])
    }).pipe(Effect.provide(HttpLive), Effect.scoped))
})
