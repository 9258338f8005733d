/**
 * A case's delete runs in the background: it does not hold the next case back, at most `maxDeleting`
 * cases' deletes are under way at once, and the run (its `leftBehind`, its layer) waits for every one,
 * even when it is interrupted.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Fiber, Option, type Scope } from "effect"
import { type StandInOptions, start } from "../../src/StandIn/Server.js"
import { isAsk, startHoldingProxy } from "../support/holdingProxy.js"
import { goldenSet, liveClient, runLive } from "../support/live.js"

const live = <A, E>(name: string, body: () => Effect.Effect<A, E, Scope.Scope>) =>
  it.live(name, () => Effect.scoped(body()), 60_000)

const standIn = (options: Omit<StandInOptions, "catalog"> = {}) =>
  Effect.flatMap(goldenSet, (set) => Effect.map(start({ catalog: set.catalog, ...options }), (s) => ({ set, s })))

describe("deletes in the background", () => {
  live(
    "a delete still unanswered does not hold the next case back, and the run waits for every delete",
    () =>
      Effect.gen(function*() {
        const { set, s } = yield* standIn()
        // Every delete reaches the stand-in, which deletes the conversation, but its answer is held back.
        const proxy = yield* Effect.acquireRelease(
          Effect.promise(() => startHoldingProxy(s.url, (method) => method === "DELETE")),
          (p) => Effect.promise(() => p.close())
        )
        const cases = set.cases.slice(0, 4)
        const run = yield* Effect.fork(runLive(liveClient(s, set, { baseUrl: new URL(proxy.url) }), set, cases, 1))
        // Every delete's answer held back at once, which only a delete that does not hold its case back
        // allows: the wait is for that event, and vitest's timeout only guards against a hang.
        yield* Effect.promise(() => proxy.whenHeld(cases.length))
        // One case at a time, each case after the first asked while every earlier delete was unanswered.
        expect(proxy.seen().filter((r) => r.method === "DELETE")).toHaveLength(cases.length)
        expect(proxy.seen().filter((r) => isAsk(r.method, r.path))).toHaveLength(cases.length)
        // The run is not over while its deletes are.
        yield* Effect.sleep("50 millis")
        expect(Option.isNone(yield* Fiber.poll(run))).toBe(true)
        proxy.release()
        const { left, results } = yield* Fiber.join(run)
        expect(results.map((r) => r.passed)).toEqual([true, true, true, true])
        expect(s.stats()).toMatchObject({ created: 4, deleted: 4 })
        expect(s.conversations()).toEqual([])
        expect(left).toEqual({ kept: [], undeleted: [], unknown: [] })
      })
  )

  live(
    "at most maxDeleting cases' deletes are under way at once; past that a case waits for the oldest",
    () =>
      Effect.gen(function*() {
        const bounded = yield* standIn({ latency: { delete: 300 } })
        yield* runLive(
          liveClient(bounded.s, bounded.set, { maxDeleting: 1 }),
          bounded.set,
          bounded.set.cases.slice(0, 5),
          1
        )
        // One case asking and one delete under way.
        expect(bounded.s.stats().peakInFlight).toBeLessThanOrEqual(2)
        expect(bounded.s.conversations()).toEqual([])
        const unbounded = yield* standIn({ latency: { delete: 300 } })
        yield* runLive(liveClient(unbounded.s, unbounded.set), unbounded.set, unbounded.set.cases.slice(0, 5), 1)
        expect(unbounded.s.stats().peakInFlight).toBeGreaterThan(2)
        expect(unbounded.s.conversations()).toEqual([])
      })
  )

  live("an interrupted run still waits for the deletes under way", () =>
    Effect.gen(function*() {
      const { set, s } = yield* standIn({ latency: { delete: 500 } })
      const fiber = yield* Effect.fork(runLive(liveClient(s, set), set, set.cases, 2))
      while (s.stats().requests.delete < 2) yield* Effect.sleep("10 millis")
      const exit = yield* Fiber.interrupt(fiber)
      expect(Exit.isInterrupted(exit)).toBe(true)
      expect(s.conversations()).toEqual([])
      expect(s.stats().created).toBe(s.stats().deleted)
    }))
})
