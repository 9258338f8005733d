/**
 * Every streaming protocol reads an event stream as the standard frames it, over real HTTP on loopback:
 * the same app's answers framed again (test/support/reframingProxy.ts) — each event's JSON over several
 * `data:` lines, comments and `id`, `retry` and `event` fields about, lines ended by LF, CRLF and CR, in
 * one piece or a byte at a time — grade exactly as they do read straight from the app.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Layer, Redacted } from "effect"
import { defaultCasesFile, defaultSurfacesFile } from "../../src/ProjectFiles.js"
import { loadGoldenSet } from "../../src/Runner/GoldenSet.js"
import { HttpLive } from "../../src/Runner/Http.js"
import { SurfaceClient } from "../../src/Runner/SurfaceClient.js"
import { stepsOf } from "../../src/Schema/Case.js"
import { resolveRoutes } from "../../src/Schema/Protocol.js"
import type { CaseResult } from "../../src/Schema/Result.js"
import { startAgUiApp } from "../support/apps/agUiApp.js"
import { startAiSdkApp } from "../support/apps/aiSdkApp.js"
import { goldenCases } from "../support/golden.js"
import { runLive, withStandIn } from "../support/live.js"
import { surfacesOf } from "../support/protocolRun.js"
import { type Delivery, reframed, startReframingProxy } from "../support/reframingProxy.js"

/** What a case showed: its verdict, its error and each expectation's fact. */
const shown = (results: ReadonlyArray<CaseResult>) =>
  results.map((r) => ({
    id: r.id,
    passed: r.passed,
    error: r.error,
    expectations: r.expectations.map((e) => [e.kind, e.passed, e.fact])
  }))

/** Runs a golden set live against `url` with a session cookie, and shows what every case showed. */
const runAgainst = (url: string, cookie: string, casesFile: string, surfacesFile: string) =>
  Effect.gen(function*() {
    const set = yield* loadGoldenSet(casesFile, surfacesFile).pipe(Effect.provide(NodeContext.layer), Effect.orDie)
    const client = SurfaceClient.Live({
      baseUrl: new URL(url),
      cookie: Redacted.make(cookie),
      routes: resolveRoutes(set.catalog.routes),
      timeout: Duration.seconds(30),
      deleteTimeout: Duration.seconds(5),
      keep: false,
      retryDelay: Duration.millis(20),
      askGrace: Duration.seconds(1)
    }).pipe(Layer.provide(HttpLive))
    const { results } = yield* runLive(client, set)
    return shown(results)
  })

/** What a golden set shows read straight from an app, and read through the proxy in each delivery. */
const throughProxy = (url: string, cookie: string, casesFile: string, surfacesFile: string) =>
  Effect.gen(function*() {
    const straight = yield* runAgainst(url, cookie, casesFile, surfacesFile)
    const proxied: Array<{ delivery: Delivery; shown: typeof straight; streams: number; events: number }> = []
    for (const delivery of ["whole", "bytes"] as const) {
      const proxy = yield* Effect.acquireRelease(
        Effect.promise(() => startReframingProxy(url, delivery)),
        (p) => Effect.promise(p.close)
      )
      const shownThere = yield* runAgainst(proxy.url, cookie, casesFile, surfacesFile)
      proxied.push({ delivery, shown: shownThere, ...proxy.framed() })
    }
    return { straight, proxied }
  }).pipe(Effect.scoped)

/** Checks that every delivery showed what the app's own framing did, over streams the proxy framed again. */
const expectSame = (
  { proxied, straight }: Effect.Effect.Success<ReturnType<typeof throughProxy>>,
  streamed: number
) => {
  // Read straight from the app every case is graded: no case failed to read its turn.
  expect(straight.filter((c) => c.error !== undefined)).toEqual([])
  for (const run of proxied) {
    expect({ delivery: run.delivery, shown: run.shown }).toEqual({ delivery: run.delivery, shown: straight })
    expect(run.streams).toBe(streamed)
    expect(run.events).toBeGreaterThan(streamed * 2)
  }
}

describe("an event of several data lines", () => {
  it("is one event, the lines joined with LF, as the framing the proxy writes shows", () => {
    const event = reframed(JSON.stringify({ type: "start", messageId: "m1" }), 0)
    expect(event).toBe(
      ": framed again\nid: 0\nretry: 3000\nevent: message\ndata: {\ndata:   \"type\": \"start\",\n" +
        "data:   \"messageId\": \"m1\"\ndata: }\n\n"
    )
    expect(reframed("[DONE]", 1)).toBe(
      ": framed again\r\nid: 1\r\nretry: 3000\r\nevent: message\r\ndata: [DONE]\r\n\r\n"
    )
  })

  it.live(
    "ai-sdk: the AI SDK 7 chat route's answers grade the same framed again, whole and a byte at a time",
    () =>
      Effect.gen(function*() {
        const app = yield* Effect.acquireRelease(
          Effect.promise(() => startAiSdkApp({ version: 7, errorMessages: true })),
          (a) => Effect.promise(a.close)
        )
        const seen = yield* throughProxy(
          app.url,
          "session=s",
          "test/fixtures/protocols/golden-cases.json",
          surfacesOf("ai-sdk")
        )
        expectSame(seen, 6)
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "ag-ui: an agent streaming through AG-UI's encoder grades the same framed again, whole and a byte at a time",
    () =>
      Effect.gen(function*() {
        const app = yield* Effect.acquireRelease(Effect.promise(() => startAgUiApp()), (a) => Effect.promise(a.close))
        const seen = yield* throughProxy(
          app.url,
          "session=s",
          "test/fixtures/protocols/golden-cases.json",
          surfacesOf("ag-ui")
        )
        expectSame(seen, 6)
      }).pipe(Effect.scoped),
    120_000
  )

  it.live(
    "turn-eval: an ask answered with an event stream grades the same framed again, whole and a byte at a time",
    () =>
      Effect.promise(() =>
        withStandIn({}, (standIn) =>
          Effect.runPromise(Effect.gen(function*() {
            const seen = yield* throughProxy(
              standIn.url,
              Redacted.value(standIn.cookie()),
              defaultCasesFile,
              defaultSurfacesFile
            )
            // The docs surface answers each step with an event stream; the ops agent with JSON, passed on as it is.
            const streamed = goldenCases.filter((c) => c.surface === "docs").reduce((n, c) => n + stepsOf(c).length, 0)
            expect(streamed).toBeGreaterThan(0)
            expectSame(seen, streamed)
          })))
      ),
    120_000
  )
})
