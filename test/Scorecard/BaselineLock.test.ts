/**
 * The baseline's lock, step by step: the clock is the test's, so a ratchet waiting for the lock wakes
 * only when the test moves time on, and what each holder saw can be checked in order.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, type Duration, Effect, Either, Exit, Fiber, Option, Ref, TestClock } from "effect"
import { existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { withBaselineLock } from "../../src/Scorecard/BaselineStore.js"

const baselineIn = () => join(mkdtempSync(join(tmpdir(), "eval-lock-")), "baseline.json")

/** A pid no process holds: far above any kernel's limit. */
const deadPid = 2 ** 31 - 2

/** Lets real file I/O finish while the test clock stands still. */
const settle = Effect.promise(() => new Promise((resolve) => setTimeout(resolve, 15)))

/** Moves the test clock on in steps, letting I/O settle between them, until the fiber is done. */
const driveUntilDone = <A, E>(fiber: Fiber.Fiber<A, E>, step: Duration.DurationInput) =>
  Effect.gen(function*() {
    for (let i = 0; i < 2000; i++) {
      const done = yield* Fiber.poll(fiber)
      if (Option.isSome(done)) return done.value
      yield* TestClock.adjust(step)
      yield* settle
    }
    return yield* Effect.dieMessage("the fiber never finished")
  })

describe("withBaselineLock", () => {
  it.effect("holds FILE.lock with its own pid while the effect runs, and removes it after, even on failure", () =>
    Effect.gen(function*() {
      const file = baselineIn()
      const seen = yield* withBaselineLock(file, Effect.sync(() => readFileSync(`${file}.lock`, "utf8")))
      expect(seen).toBe(`${process.pid}\n`)
      expect(existsSync(`${file}.lock`)).toBe(false)
      const failed = yield* Effect.either(withBaselineLock(file, Effect.fail("refused" as const)))
      expect(failed).toEqual(Either.left("refused"))
      expect(existsSync(`${file}.lock`)).toBe(false)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("makes a second holder wait until the first has released the lock", () =>
    Effect.gen(function*() {
      const file = baselineIn()
      const events = yield* Ref.make<ReadonlyArray<string>>([])
      const note = (event: string) => Ref.update(events, (all) => [...all, event])
      const inside = yield* Deferred.make<void>()
      const release = yield* Deferred.make<void>()
      const first = yield* Effect.fork(withBaselineLock(
        file,
        Effect.gen(function*() {
          yield* note("first in")
          yield* Deferred.succeed(inside, undefined)
          yield* Deferred.await(release)
          yield* note("first out")
        })
      ))
      yield* Deferred.await(inside)
      const second = yield* Effect.fork(withBaselineLock(file, note("second in")))
      // The second holder tries, finds the lock taken by a live process (this one), and sleeps; time
      // moving on wakes it to try again, and it still finds the lock taken.
      for (let i = 0; i < 10; i++) {
        yield* settle
        yield* TestClock.adjust("50 millis")
      }
      expect(yield* Ref.get(events)).toEqual(["first in"])
      expect(Option.isNone(yield* Fiber.poll(second))).toBe(true)
      yield* Deferred.succeed(release, undefined)
      yield* Fiber.join(first)
      expect(Exit.isSuccess(yield* driveUntilDone(second, "50 millis"))).toBe(true)
      expect(yield* Ref.get(events)).toEqual(["first in", "first out", "second in"])
      expect(existsSync(`${file}.lock`)).toBe(false)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("gives up after 30 seconds on a lock a live process holds, naming it, and leaves the lock", () =>
    Effect.gen(function*() {
      const file = baselineIn()
      writeFileSync(`${file}.lock`, `${process.pid}\n`)
      const ran = yield* Ref.make(false)
      const waiting = yield* Effect.fork(Effect.either(withBaselineLock(file, Ref.set(ran, true))))
      const exit = yield* driveUntilDone(waiting, "5 seconds")
      const outcome = Exit.isSuccess(exit) ? exit.value : undefined
      expect(outcome !== undefined && Either.isLeft(outcome) && outcome.left.message).toBe(
        `${file}: locked by another ratchet (process ${process.pid}); if none runs, delete ${file}.lock`
      )
      expect(yield* Ref.get(ran)).toBe(false)
      expect(readFileSync(`${file}.lock`, "utf8")).toBe(`${process.pid}\n`)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("waits on a lock whose owner it cannot read, as one a process still holds", () =>
    Effect.gen(function*() {
      const file = baselineIn()
      writeFileSync(`${file}.lock`, "not a pid\n")
      const waiting = yield* Effect.fork(Effect.either(withBaselineLock(file, Effect.void)))
      const exit = yield* driveUntilDone(waiting, "5 seconds")
      const outcome = Exit.isSuccess(exit) ? exit.value : undefined
      expect(outcome !== undefined && Either.isLeft(outcome) && outcome.left.message).toMatch(
        /: locked by another ratchet \(process unknown\); if none runs, delete .*baseline\.json\.lock$/
      )
      expect(existsSync(`${file}.lock`)).toBe(true)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("takes over a lock left by a process that no longer runs, at once", () =>
    Effect.gen(function*() {
      const file = baselineIn()
      writeFileSync(`${file}.lock`, `${deadPid}\n`)
      const seen = yield* withBaselineLock(file, Effect.sync(() => readFileSync(`${file}.lock`, "utf8")))
      expect(seen).toBe(`${process.pid}\n`)
      expect(existsSync(`${file}.lock`)).toBe(false)
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("reports a lock it cannot create for another reason than its being taken", () =>
    Effect.gen(function*() {
      const file = join(baselineIn(), "missing-folder", "baseline.json")
      const failed = yield* Effect.either(withBaselineLock(file, Effect.void))
      expect(Either.isLeft(failed) && failed.left.message).toMatch(/baseline\.json: cannot lock: /)
    }).pipe(Effect.provide(NodeContext.layer)))
})
