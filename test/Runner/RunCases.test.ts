/**
 * The runner's options, on a table client: `bail` stops starting cases, `keepTurns` keeps each graded
 * turn, `repeat` times every attempt, and a case of a surface the catalog lacks fails on its own.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Fiber, Layer, TestClock } from "effect"
import { Runner, type RunOptions } from "../../src/Runner/Runner.js"
import { plainClient, SurfaceClient } from "../../src/Runner/SurfaceClient.js"
import type { Case } from "../../src/Schema/Case.js"
import type { Catalog } from "../../src/Schema/Surface.js"
import { keptTurn } from "../../src/Scorecard/Kept.js"
import { cite, docsSurface, turn } from "../support/turns.js"

const catalog: Catalog = { surfaces: { docs: docsSurface } }
const docsCase = (id: string): Case => ({
  id,
  surface: "docs",
  question: `${id}?`,
  guards: "test",
  expect: [{ kind: "cites-only-surfaced" }]
})
const good = turn({ citations: [cite("/docs/a")] }, "See /docs/a.")
const recalled = turn({ citations: [cite("/docs/old", "unsurfaced")] }, "See /docs/old.")

/** Turns from a table: a case whose id starts with `bad` recalls a page, any other cites a surfaced one. */
const table = (delay = 0) =>
  Layer.succeed(
    SurfaceClient,
    plainClient((c) => Effect.as(Effect.sleep(`${delay} millis`), c.id.startsWith("bad") ? recalled : good))
  )

const runCases = (cases: ReadonlyArray<Case>, options: RunOptions, client = table()) =>
  Effect.flatMap(Runner, (runner) => runner.runCases(catalog, cases, options)).pipe(
    Effect.provide(Runner.Default.pipe(Layer.provide(client)))
  )

describe("Runner.runCases", () => {
  const cases = ["ok-1", "bad-1", "ok-2", "bad-2", "ok-3", "ok-4"].map(docsCase)

  it.effect("with bail N, starts no case once N have failed, and says the run is partial", () =>
    Effect.gen(function*() {
      const outcome = yield* runCases(cases, { bail: 2, concurrency: 1 })
      expect(outcome.bailed).toBe(true)
      expect(outcome.results.map((r) => [r.id, r.passed])).toEqual([
        ["ok-1", true],
        ["bad-1", false],
        ["ok-2", true],
        ["bad-2", false]
      ])
      const once = yield* runCases(cases, { bail: 1, concurrency: 1 })
      expect([once.bailed, once.results.map((r) => r.id)]).toEqual([true, ["ok-1", "bad-1"]])
    }))

  it.effect("with bail N, runs every case when fewer fail, and is then no partial run", () =>
    Effect.gen(function*() {
      for (const bail of [3, 100]) {
        const outcome = yield* runCases(cases, { bail, concurrency: 1 })
        expect([outcome.bailed, outcome.results.length]).toEqual([false, cases.length])
      }
      const unbounded = yield* runCases(cases, { concurrency: 1 })
      expect([unbounded.bailed, unbounded.results.length]).toEqual([false, cases.length])
      // The last case failing bails a run that has nothing left to start: it is complete.
      const lastFails = yield* runCases([docsCase("ok-1"), docsCase("bad-1")], { bail: 1, concurrency: 1 })
      expect([lastFails.bailed, lastFails.results.length]).toEqual([false, 2])
    }))

  it.effect("keeps each graded turn, clipped, when asked, and none otherwise", () =>
    Effect.gen(function*() {
      const kept = yield* runCases([docsCase("ok-1"), docsCase("bad-1")], { keepTurns: true })
      // Each with everything it surfaced: the citation that matched, and none for the one that did not.
      expect(kept.results.map((r) => r.turn)).toEqual([keptTurn(good, ["/docs/a"]), keptTurn(recalled, [])])
      const plain = yield* runCases([docsCase("ok-1")], {})
      expect("turn" in plain.results[0]!).toBe(false)
    }))

  it.effect("fails a case of a surface the catalog lacks, naming it, and goes on", () =>
    Effect.gen(function*() {
      const elsewhere: Case = { ...docsCase("elsewhere"), surface: "ops" }
      const outcome = yield* runCases([elsewhere, docsCase("ok-1")], {})
      expect(outcome.results.map(({ durationMs: _, ...r }) => r)).toEqual([
        { id: "elsewhere", surface: "ops", passed: false, error: "unknown surface \"ops\"", expectations: [] },
        {
          id: "ok-1",
          surface: "docs",
          passed: true,
          turnId: "turn_1",
          expectations: [{ kind: "cites-only-surfaced", passed: true }]
        }
      ])
    }))

  // Effect's clock, driven by the test: each attempt takes exactly its 20 ms, on a loaded machine too.
  it.effect("times each attempt and the case from its first attempt's start to its last one's end", () =>
    Effect.gen(function*() {
      const run = yield* Effect.fork(runCases([docsCase("ok-1")], { repeat: 3, concurrency: 1 }, table(20)))
      yield* TestClock.adjust("60 millis")
      const [result] = (yield* Fiber.join(run)).results
      expect(result!.attempts!.map((a) => a.durationMs)).toEqual([20, 20, 20])
      expect(result!.durationMs).toBe(60)
    }))

  it.effect("keeps the failure behind each attempt's error, by case and attempt, for matching on its fields", () =>
    Effect.gen(function*() {
      const client = SurfaceClient.fromTable(new Map([["ok-1", good]]))
      const outcome = yield* runCases([docsCase("ok-1"), docsCase("gone")], { repeat: 2 }, client)
      expect(outcome.results.find((r) => r.id === "gone")?.error).toBe("no turn for case gone")
      const gone = outcome.turnErrors.get("gone") ?? []
      expect(gone).toHaveLength(2)
      for (const failure of gone) {
        expect(failure).toMatchObject({ _tag: "TurnError", reason: "no-turn", caseId: "gone" })
      }
      expect(outcome.turnErrors.has("ok-1")).toBe(false)
    }))
})
