/**
 * The HTTP policies as transforms of any `HttpClient`, here one answering from a table: the session to
 * one origin only, redirects within it only, a rejected session stopping the run, and the retry
 * schedule on the test clock.
 */
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Duration, Effect, Either, Fiber, Redacted, Schedule, TestClock } from "effect"
import {
  rejectedSessionStops,
  retrySchedule,
  sameOriginRedirects,
  sessionForOrigin
} from "../../src/Runner/HttpPolicy.js"
import { type Answer, tableClient } from "../support/tableClient.js"

const app = "https://app.test"
const auth = { header: "authorization", value: Redacted.make("Bearer s3cret") }
const discard = () => Effect.void

/** The policies over a client answering from `table`, as the transport stacks them. */
const over = (table: Readonly<Record<string, Answer | ReadonlyArray<Answer>>>) => {
  const http = tableClient(table)
  const client = http.client.pipe(
    sessionForOrigin(app, auth),
    sameOriginRedirects({ origin: app, max: 2, discard }),
    rejectedSessionStops(discard)
  )
  return { http, client }
}

describe("sessionForOrigin", () => {
  it.effect("sends the session to the app's origin, and to no other, not even one that starts alike", () =>
    Effect.gen(function*() {
      const { client, http } = over({})
      yield* client.get(`${app}/a`)
      yield* client.get(`${app}.evil.test/a`)
      yield* client.get("https://elsewhere.test/a")
      expect(http.seen.map((s) => s.headers["authorization"])).toEqual(["Bearer s3cret", undefined, undefined])
    }))
})

describe("sameOriginRedirects", () => {
  it.effect("follows a redirect within the origin, with the session", () =>
    Effect.gen(function*() {
      const { client, http } = over({
        [`GET ${app}/a`]: { status: 302, headers: { location: "/b" } },
        [`GET ${app}/b`]: { body: "here" }
      })
      const response = yield* client.get(`${app}/a`)
      expect(yield* response.text).toBe("here")
      expect(http.routes()).toEqual([`GET ${app}/a`, `GET ${app}/b`])
      expect(http.seen[1]!.headers["authorization"]).toBe("Bearer s3cret")
    }))

  it.effect("follows no redirect to another origin, none past the limit, and no POST's 302", () =>
    Effect.gen(function*() {
      const { client, http } = over({
        [`GET ${app}/away`]: { status: 302, headers: { location: "https://elsewhere.test/" } },
        [`GET ${app}/loop`]: { status: 302, headers: { location: "/loop" } },
        [`POST ${app}/ask`]: { status: 302, headers: { location: "/asked" } },
        [`GET ${app}/odd`]: { status: 301, headers: { location: "http://[::1" } }
      })
      const details = yield* Effect.forEach(
        [client.get(`${app}/away`), client.get(`${app}/loop`), client.post(`${app}/ask`), client.get(`${app}/odd`)],
        (request) => Effect.map(Effect.flip(request), (e) => e._tag === "RedirectRefused" ? e.detail : e._tag)
      )
      expect(details).toEqual([
        "redirected to another origin (https://elsewhere.test); not followed",
        "more than 2 redirects",
        "HTTP 302 redirect; a question is not re-posted",
        "HTTP 301 to an unreadable location"
      ])
      expect(http.routes().filter((r) => r.includes("elsewhere") || r.includes("asked"))).toEqual([])
      expect(http.routes().filter((r) => r.endsWith("/loop"))).toHaveLength(3)
    }))

  it.effect("re-posts a question on 307, with its body", () =>
    Effect.gen(function*() {
      const { client, http } = over({
        [`POST ${app}/ask`]: { status: 307, headers: { location: "/asked" } },
        [`POST ${app}/asked`]: { body: "ok" }
      })
      const response = yield* client.post(`${app}/ask`, { body: undefined })
      expect(response.status).toBe(200)
      expect(http.routes()).toEqual([`POST ${app}/ask`, `POST ${app}/asked`])
    }))
})

describe("rejectedSessionStops", () => {
  it.effect("stops the run on a 401, after a redirect too", () =>
    Effect.gen(function*() {
      const { client } = over({
        [`GET ${app}/a`]: { status: 302, headers: { location: "/signin" } },
        [`GET ${app}/signin`]: { status: 401 }
      })
      const stopped = yield* Effect.flip(client.get(`${app}/a`))
      expect(stopped).toMatchObject({ _tag: "RunStopped", reason: "session-rejected" })
    }))

  it.effect("hands on every other status", () =>
    Effect.gen(function*() {
      const { client } = over({ [`GET ${app}/a`]: { status: 403 } })
      expect((yield* client.get(`${app}/a`)).status).toBe(403)
    }))
})

describe("retrySchedule", () => {
  /** Drives the schedule over `inputs`, moving the test clock past each delay; the delays it waited. */
  const delays = (schedule: ReturnType<typeof retrySchedule>, inputs: ReadonlyArray<object>) =>
    Effect.gen(function*() {
      const driver = yield* Schedule.driver(schedule)
      const waited: Array<number> = []
      for (const input of inputs) {
        const before = yield* TestClock.currentTimeMillis
        const next = yield* Effect.fork(Effect.either(driver.next(input)))
        for (let i = 0; i < 100 && Chunk.isEmpty(yield* TestClock.sleeps()); i++) yield* Effect.yieldNow()
        const sleeps = Chunk.toReadonlyArray(yield* TestClock.sleeps())
        if (sleeps.length > 0) yield* TestClock.adjust(Duration.millis(sleeps[0]! - before))
        const outcome = yield* Fiber.join(next)
        if (Either.isLeft(outcome)) return { waited, done: true }
        waited.push((yield* TestClock.currentTimeMillis) - before)
      }
      return { waited, done: false }
    })

  it.effect("backs off exponentially with jitter, and is done after the retries", () =>
    Effect.gen(function*() {
      const { done, waited } = yield* delays(retrySchedule(3, Duration.millis(100)), [{}, {}, {}, {}])
      expect(done).toBe(true)
      expect(waited).toHaveLength(3)
      waited.forEach((ms, n) => {
        expect(ms).toBeGreaterThanOrEqual(0.8 * 100 * 2 ** n)
        expect(ms).toBeLessThanOrEqual(1.2 * 100 * 2 ** n)
      })
    }))

  it.effect("waits at least as long as Retry-After asks, in seconds or as a date, at most 60 s", () =>
    Effect.gen(function*() {
      const inTen = new Date(10_000).toUTCString()
      const { waited } = yield* delays(retrySchedule(3, Duration.millis(100)), [
        { status: 503, headers: { "retry-after": "3" } },
        { status: 429, headers: { "retry-after": "3600" } },
        { status: 503, headers: { "retry-after": inTen } }
      ])
      expect(waited[0]).toBe(3000)
      expect(waited[1]).toBe(60_000)
      // The clock stands at 63 s: a date already past asks for nothing, and the backoff stands.
      expect(waited[2]).toBeGreaterThanOrEqual(320)
      expect(waited[2]).toBeLessThanOrEqual(480)
    }))
})
