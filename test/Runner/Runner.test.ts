import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Deferred, Effect, Fiber, Layer, Ref } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Runner } from "../../src/Runner/Runner.js"
import { scopedClient, SurfaceClient } from "../../src/Runner/SurfaceClient.js"
import type { QuestionCase as Case } from "../../src/Schema/Case.js"
import { RunStopped, TurnError } from "../../src/Schema/Errors.js"
import type { Catalog } from "../../src/Schema/Surface.js"
import type { Turn } from "../../src/Schema/Trace.js"
import { call, cite, docsSurface, turn } from "../support/turns.js"
import { untimed } from "../support/untimed.js"

const catalog: Catalog = { surfaces: { docs: docsSurface } }

const docsCase = (id: string, expect: Case["expect"] = [{ kind: "cites-only-surfaced" }]): Case => ({
  id,
  surface: "docs",
  question: `Question for ${id}?`,
  guards: "test",
  expect
})

const good = turn({ citations: [cite("/docs/a")], toolExecutions: [call("search_docs")] }, "See /docs/a.")
const recalled = turn({ citations: [cite("/docs/old", "unsurfaced")] }, "See /docs/old.")

const fixtureDir = (files: Record<string, unknown>): string => {
  const dir = mkdtempSync(join(tmpdir(), "eval-fixtures-"))
  for (const [name, content] of Object.entries(files)) {
    writeFileSync(join(dir, name), typeof content === "string" ? content : JSON.stringify(content))
  }
  return dir
}

const recorded = (c: Case, t: Turn) => ({ caseId: c.id, question: c.question, answer: t.answer, trace: t.trace })

const runWith = (
  client: Layer.Layer<SurfaceClient, never, never>,
  cases: ReadonlyArray<Case>,
  concurrency = 4,
  onCaseDone?: () => Effect.Effect<void>
) =>
  Effect.flatMap(Runner, (runner) => runner.run(catalog, cases, { concurrency, onCaseDone })).pipe(
    Effect.provide(Runner.Default.pipe(Layer.provide(client)))
  )

const fixtureLayer = (dir: string) => SurfaceClient.Fixture(dir).pipe(Layer.provide(NodeContext.layer))

describe("Runner on the fixture layer", () => {
  const a = docsCase("a")
  const b = docsCase("b")
  const missing = docsCase("missing")

  it.live("lets Node's event loop take a turn every few dozen cases, so a signal is heard before the run's end", () =>
    Effect.gen(function*() {
      const cases = Array.from({ length: 400 }, (_, i) => docsCase(`c${i}`))
      const dir = fixtureDir(Object.fromEntries(cases.map((c) => [`${c.id}.json`, recorded(c, good)])))
      // Once the first case is done, a callback for the event loop's next turn: which case ends first after it?
      let turned = false
      const turnedAt: Array<boolean> = []
      const onCaseDone = () =>
        Effect.sync(() => {
          if (turnedAt.length === 0) setImmediate(() => (turned = true))
          turnedAt.push(turned)
        })
      const results = yield* runWith(fixtureLayer(dir), cases, 4, onCaseDone)
      expect(results.every((r) => r.passed)).toBe(true)
      const first = turnedAt.indexOf(true)
      expect(first).toBeGreaterThan(0)
      expect(first).toBeLessThanOrEqual(64 + 4)
    }))

  it.effect("grades recorded turns in golden-set order and fails a case with no recording, going on", () =>
    Effect.gen(function*() {
      const dir = fixtureDir({ "a.json": recorded(a, good), "b.json": recorded(b, recalled) })
      const results = yield* runWith(fixtureLayer(dir), [a, missing, b])
      expect(untimed(results)).toEqual([
        {
          id: "a",
          surface: "docs",
          passed: true,
          turnId: "turn_1",
          expectations: [{ kind: "cites-only-surfaced", passed: true }]
        },
        {
          id: "missing",
          surface: "docs",
          passed: false,
          error: `no recorded turn: ${join(dir, "missing.json")}`,
          expectations: []
        },
        {
          id: "b",
          surface: "docs",
          passed: false,
          turnId: "turn_1",
          expectations: [{ kind: "cites-only-surfaced", passed: false, fact: "unsurfaced: /docs/old" }]
        }
      ])
    }))

  it.effect("names the file and the position of a recording that is not JSON", () =>
    Effect.gen(function*() {
      const dir = fixtureDir({ "a.json": "{\n  \"caseId\": \"a\",\n}" })
      const [result] = yield* runWith(fixtureLayer(dir), [a])
      expect(result?.error).toBe(
        `recorded turn ${join(dir, "a.json")}: not valid JSON: unexpected "}" at line 3, column 1`
      )
    }))

  it.effect("names the JSON path of a recording of the wrong shape", () =>
    Effect.gen(function*() {
      const bad = { ...recorded(a, good), trace: { ...good.trace, outcome: 3 } }
      const dir = fixtureDir({ "a.json": bad })
      const [result] = yield* runWith(fixtureLayer(dir), [a])
      expect(result?.error).toBe(`recorded turn ${join(dir, "a.json")}: $.trace.outcome: expected string, got 3`)
    }))

  it.effect("ignores keys a recording adds beyond the contract", () =>
    Effect.gen(function*() {
      const extra = { ...recorded(a, good), model: "m-1", trace: { ...good.trace, tokens: 12 } }
      const [result] = yield* runWith(fixtureLayer(fixtureDir({ "a.json": extra })), [a])
      expect(result?.passed).toBe(true)
    }))

  it.effect("refuses a recording of another case, of another question, or of another surface", () =>
    Effect.gen(function*() {
      const dir = fixtureDir({
        "a.json": { ...recorded(a, good), caseId: "b" },
        "b.json": { ...recorded(b, good), question: "An older wording?" },
        "c.json": { ...recorded(docsCase("c"), good), trace: { ...good.trace, surface: "ops-agent" } }
      })
      const results = yield* runWith(fixtureLayer(dir), [a, b, docsCase("c")])
      expect(results.map((r) => r.error)).toEqual([
        `recorded turn ${join(dir, "a.json")} is for case "b"`,
        `recorded turn ${join(dir, "b.json")} answers another question; record it again for the case's question`,
        `trace is for surface "ops-agent", not "docs"`
      ])
      expect(results.every((r) => !r.passed && r.expectations.length === 0)).toBe(true)
    }))
})

describe("Runner on a table layer", () => {
  it.effect("grades the same turn the same as the fixture layer does", () =>
    Effect.gen(function*() {
      const cases = [docsCase("a"), docsCase("b", [{ kind: "no-citations" }, { kind: "calls-any-tool" }])]
      const table = new Map([["a", good], ["b", recalled]])
      const dir = fixtureDir({ "a.json": recorded(cases[0]!, good), "b.json": recorded(cases[1]!, recalled) })
      const fromTable = yield* runWith(SurfaceClient.fromTable(table), cases)
      const fromFiles = yield* runWith(fixtureLayer(dir), cases)
      expect(fromTable).toEqual(fromFiles)
      expect(fromTable[1]?.expectations).toEqual([
        { kind: "no-citations", passed: false, fact: "cited: /docs/old" },
        { kind: "calls-any-tool", passed: false, fact: "no tool ran" }
      ])
    }))

  it.live("keeps golden-set order whatever the completion order", () =>
    Effect.gen(function*() {
      const cases = Array.from({ length: 12 }, (_, i) => docsCase(`case-${i}`))
      const slowFirst = Layer.succeed(
        SurfaceClient,
        scopedClient((c) => Effect.as(Effect.sleep(`${(12 - Number(c.id.slice(5))) * 5} millis`), good))
      )
      const results = yield* runWith(slowFirst, cases, 12)
      expect(results.map((r) => r.id)).toEqual(cases.map((c) => c.id))
    }))

  it.effect("turns a defect in a client into a failed case and goes on", () =>
    Effect.gen(function*() {
      const flaky = Layer.succeed(
        SurfaceClient,
        scopedClient((c) => c.id === "boom" ? Effect.die(new Error("socket exploded")) : Effect.succeed(good))
      )
      const results = yield* runWith(flaky, [docsCase("boom"), docsCase("fine")])
      expect(results.map((r) => [r.passed, r.error])).toEqual([
        [false, "internal error: Error: socket exploded"],
        [true, undefined]
      ])
    }))
})

describe("Runner scopes", () => {
  /** A client that opens a "conversation" per case and records when it is closed. */
  const conversations = (
    opened: Ref.Ref<number>,
    closed: Ref.Ref<number>,
    obtainAfterOpen: (c: Case) => Effect.Effect<Turn, TurnError>
  ) =>
    Layer.succeed(
      SurfaceClient,
      scopedClient((c) =>
        Effect.acquireRelease(Ref.update(opened, (n) => n + 1), () => Ref.update(closed, (n) => n + 1)).pipe(
          Effect.zipRight(obtainAfterOpen(c))
        )
      )
    )

  it.effect("closes every case's scope, whether its turn was graded or failed", () =>
    Effect.gen(function*() {
      const opened = yield* Ref.make(0)
      const closed = yield* Ref.make(0)
      const client = conversations(
        opened,
        closed,
        (c) =>
          c.id === "fails"
            ? Effect.fail(new TurnError({ reason: "status", route: "trace", status: 500 }))
            : Effect.succeed(good)
      )
      const results = yield* runWith(client, [docsCase("ok"), docsCase("fails"), docsCase("ok-2")])
      expect(results.map((r) => r.error)).toEqual([undefined, "trace: HTTP 500", undefined])
      expect(yield* Ref.get(opened)).toBe(3)
      expect(yield* Ref.get(closed)).toBe(3)
    }))

  it.effect("closes the scopes of in-flight cases when the run is interrupted", () =>
    Effect.gen(function*() {
      const opened = yield* Ref.make(0)
      const closed = yield* Ref.make(0)
      const allOpen = yield* Deferred.make<void>()
      const client = conversations(opened, closed, () =>
        Effect.gen(function*() {
          if ((yield* Ref.get(opened)) === 4) yield* Deferred.succeed(allOpen, undefined)
          return yield* Effect.never
        }))
      const fiber = yield* Effect.fork(runWith(client, Array.from({ length: 10 }, (_, i) => docsCase(`c${i}`)), 4))
      yield* Deferred.await(allOpen)
      yield* Fiber.interrupt(fiber)
      expect(yield* Ref.get(opened)).toBe(4)
      expect(yield* Ref.get(closed)).toBe(4)
    }))

  it.live("stops at a rejected session only after every in-flight case's scope has closed", () =>
    Effect.gen(function*() {
      const opened = yield* Ref.make(0)
      const closed = yield* Ref.make(0)
      // Closing a scope takes a while (a delete over HTTP); the rejection comes while cases are still queued.
      const client = Layer.succeed(
        SurfaceClient,
        scopedClient((c) =>
          Effect.acquireRelease(
            Ref.update(opened, (n) => n + 1),
            () => Effect.zipRight(Effect.sleep("100 millis"), Ref.update(closed, (n) => n + 1))
          ).pipe(
            Effect.zipRight(Effect.sleep(c.id === "c0" ? "50 millis" : "2 seconds")),
            Effect.zipRight(
              c.id === "c0" ? Effect.fail(new RunStopped({ reason: "session-rejected" })) : Effect.succeed(good)
            )
          )
        )
      )
      const exit = yield* Effect.exit(runWith(client, Array.from({ length: 12 }, (_, i) => docsCase(`c${i}`)), 4))
      expect(String(exit)).toContain("RunStopped")
      expect(yield* Ref.get(opened)).toBe(4)
      expect(yield* Ref.get(closed)).toBe(4)
    }))
})

describe("Runner.run with repeat (pass^k)", () => {
  // A client whose nth turn for a case comes from a script: a flaky assistant, made deterministic.
  const scripted = (script: Record<string, ReadonlyArray<Turn>>) =>
    Effect.map(Ref.make(new Map<string, number>()), (asked) =>
      Layer.succeed(
        SurfaceClient,
        scopedClient((testCase) =>
          Ref.modify(asked, (m) => {
            const n = m.get(testCase.id) ?? 0
            return [script[testCase.id]![n % script[testCase.id]!.length]!, new Map(m).set(testCase.id, n + 1)]
          })
        )
      ))

  it.effect("passes a case only when all K attempts pass, keeps every attempt, and shows the first failing one", () =>
    Effect.gen(function*() {
      const cases = [docsCase("steady"), docsCase("flaky"), docsCase("broken")]
      const client = yield* scripted({ steady: [good], flaky: [good, recalled], broken: [recalled] })
      const done: Array<string> = []
      const results = yield* Effect.flatMap(Runner, (runner) =>
        runner.run(catalog, cases, {
          repeat: 3,
          concurrency: 2,
          onCaseDone: (r) => Effect.sync(() => done.push(r.id))
        })).pipe(Effect.provide(Runner.Default.pipe(Layer.provide(client))))
      expect(results.map((r) => [r.id, r.passed, r.attempts?.map((a) => a.passed)])).toEqual([
        ["steady", true, [true, true, true]],
        ["flaky", false, [true, false, true]],
        ["broken", false, [false, false, false]]
      ])
      expect(results[1]!.expectations).toEqual([
        { kind: "cites-only-surfaced", passed: false, fact: "unsurfaced: /docs/old" }
      ])
      expect(done.sort()).toEqual(["broken", "flaky", "steady"])
    }))

  it.effect("keeps the single-attempt shape when K is 1", () =>
    Effect.gen(function*() {
      const client = yield* scripted({ steady: [good] })
      const results = yield* runWith(client, [docsCase("steady")])
      expect(results[0]).not.toHaveProperty("attempts")
      expect(results[0]!.passed).toBe(true)
    }))
})
