/**
 * The live client's deadlines run on Effect's Clock: a case's timeout, the grace an ask cut short gets and
 * a delete's limit are driven here by `TestClock`, and no real time passes.
 */
import { HttpClient } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Cause, Duration, Effect, Exit, Fiber, Layer, Option, Redacted, TestClock } from "effect"
import { makeLive } from "../../src/Runner/LiveClient.js"
import { detached } from "../../src/Runner/Transport.js"
import type { Case } from "../../src/Schema/Case.js"
import { resolveRoutes } from "../../src/Schema/Protocol.js"
import type { Surface } from "../../src/Schema/Surface.js"

const testCase: Case = {
  id: "docs.hangs",
  surface: "docs",
  question: "Where is the refund policy?",
  guards: "an app that never answers",
  expect: [{ kind: "no-citations" }]
}
const surface: Surface = { endpoint: "/api/ask", tools: [] }

/** A client whose every request waits forever, as an app that accepted the connection and went silent. */
const silent = Layer.succeed(HttpClient.HttpClient, HttpClient.make(() => Effect.never))

describe("the live client on the Clock", () => {
  it.effect("times a case out when its timeout passes on the clock, and not a moment before", () =>
    Effect.gen(function*() {
      const live = yield* makeLive({
        baseUrl: new URL("https://app.test/"),
        cookie: Redacted.make("session=abc"),
        routes: resolveRoutes(undefined),
        timeout: Duration.seconds(30),
        deleteTimeout: Duration.seconds(5),
        keep: false,
        askGrace: Duration.seconds(5)
      })
      const fiber = yield* Effect.fork(live.withTurn(testCase, surface, (turn) => turn.answer))
      yield* TestClock.adjust(Duration.seconds(29))
      expect(Option.isNone(yield* Fiber.poll(fiber))).toBe(true)
      yield* TestClock.adjust(Duration.seconds(1))
      const exit = yield* Fiber.await(fiber)
      expect(Exit.isFailure(exit) && Exit.causeOption(exit)).toMatchObject(
        Option.some({ _tag: "Fail", error: { _tag: "TurnError", reason: "timed-out", route: "ask", limit: 30_000 } })
      )
      const failure = Exit.isFailure(exit) ? Cause.squash(exit.cause) : undefined
      expect(failure instanceof Error && failure.message).toBe(
        "ask: timed out after 30s — POST https://app.test/api/ask"
      )
      // The ask was still sending when its time ran out: the app may hold a conversation it never named.
      const left = yield* live.leftBehind
      expect(left.unknown).toEqual([{
        caseId: "docs.hangs",
        reason: "the ask (POST https://app.test/api/ask) timed out after 30s before naming its conversation: " +
          "the app may hold one"
      }])
    }).pipe(Effect.provide(silent)))

  it.effect("bounds cleanup by its limit on the clock: cut short when the limit passes, whole before it", () =>
    Effect.gen(function*() {
      const hanging = yield* Effect.fork(detached(Effect.never, Duration.seconds(5)))
      yield* TestClock.adjust(Duration.millis(4_999))
      expect(Option.isNone(yield* Fiber.poll(hanging))).toBe(true)
      yield* TestClock.adjust(Duration.millis(1))
      expect(yield* Fiber.join(hanging)).toEqual(Option.none())
      const quick = yield* Effect.fork(
        detached(Effect.as(Effect.sleep(Duration.seconds(4)), "deleted"), Duration.seconds(5))
      )
      yield* TestClock.adjust(Duration.seconds(4))
      expect(yield* Fiber.join(quick)).toEqual(Option.some("deleted"))
    }))
})
