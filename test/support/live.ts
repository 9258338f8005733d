/** A stand-in on loopback and the live SurfaceClient pointed at it, for tests over real HTTP. */
import { HttpClient } from "@effect/platform"
import { NodeContext } from "@effect/platform-node"
import { Duration, Effect, Exit, Layer, Scope } from "effect"
import { defaultCasesFile, defaultSurfacesFile } from "../../src/ProjectFiles.js"
import { type GoldenSet, loadGoldenSet } from "../../src/Runner/GoldenSet.js"
import { HttpLive } from "../../src/Runner/Http.js"
import type { LiveConfig } from "../../src/Runner/LiveClient.js"
import { Runner } from "../../src/Runner/Runner.js"
import { SurfaceClient } from "../../src/Runner/SurfaceClient.js"
import type { Case } from "../../src/Schema/Case.js"
import { resolveRoutes } from "../../src/Schema/Protocol.js"
import type { Catalog } from "../../src/Schema/Surface.js"
import { type InProcessStandIn, startInProcess } from "../../src/StandIn/InProcess.js"
import { type StandIn, type StandInOptions, start } from "../../src/StandIn/Server.js"

/** The committed golden set and catalog, loaded and checked. */
export const goldenSet: Effect.Effect<GoldenSet> = loadGoldenSet(defaultCasesFile, defaultSurfacesFile).pipe(
  Effect.provide(NodeContext.layer),
  Effect.orDie
)

/** The clients of each stand-in started in this process: the ones that reach it. */
const inProcessClients = new WeakMap<StandIn, Pick<InProcessStandIn, "client" | "fetch">>()

/** The `fetch` that reaches a stand-in: its in-process one, or the platform's over loopback. */
export const fetchAt = (standIn: StandIn): InProcessStandIn["fetch"] => inProcessClients.get(standIn)?.fetch ?? fetch

/**
 * A stand-in serving the golden set's catalog in this process, with no socket, and the golden set:
 * `liveClient` reaches it through its own `HttpClient`. A fault that drops a connection is reported as
 * a dropped socket is; what needs a real one (TLS, signals, the bin) is the e2e tier's.
 */
export const standInProcess = (options: Omit<StandInOptions, "catalog"> = {}, catalog?: Catalog) =>
  Effect.gen(function*() {
    const set = yield* goldenSet
    const { client, fetch, standIn } = yield* Effect.orDie(
      startInProcess({ catalog: catalog ?? set.catalog, ...options })
    )
    inProcessClients.set(standIn, { client, fetch })
    return { set, s: standIn }
  })

/**
 * The live client against a stand-in, with short waits so retries and timeouts are quick: over
 * loopback, or through the in-process client of a stand-in `standInProcess` started.
 */
export const liveClient = (standIn: StandIn, set: GoldenSet, overrides: Partial<LiveConfig> = {}) => {
  const inProcess = inProcessClients.get(standIn)
  return SurfaceClient.Live({
    baseUrl: new URL(standIn.url),
    cookie: standIn.cookie(),
    routes: resolveRoutes(set.catalog.routes),
    timeout: Duration.seconds(10),
    deleteTimeout: Duration.seconds(5),
    keep: false,
    retryDelay: Duration.millis(20),
    askGrace: Duration.seconds(1),
    ...overrides
  }).pipe(Layer.provide(inProcess === undefined ? HttpLive : Layer.succeed(HttpClient.HttpClient, inProcess.client)))
}

/** Runs cases through the Runner on a client layer; returns the results and what the client left behind. */
export const runLive = (
  client: Layer.Layer<SurfaceClient>,
  set: GoldenSet,
  cases: ReadonlyArray<Case> = set.cases,
  concurrency = 4
) =>
  Effect.gen(function*() {
    const runner = yield* Runner
    const results = yield* runner.run(set.catalog, cases, { concurrency })
    const left = yield* Effect.flatMap(SurfaceClient, (c) =>
      c.leftBehind ?? Effect.succeed({ kept: [], undeleted: [], unknown: [] }))
    return { results, left }
  }).pipe(Effect.provide(Runner.Default.pipe(Layer.provideMerge(client))))

/** Runs `body` with a stand-in serving the committed catalog, stopping it afterwards. */
export const withStandIn = async <A>(
  options: Omit<StandInOptions, "catalog">,
  body: (s: StandIn) => Promise<A>
): Promise<A> => {
  const scope = Effect.runSync(Scope.make())
  const set = await Effect.runPromise(goldenSet)
  const standIn = await Effect.runPromise(Scope.extend(start({ catalog: set.catalog, ...options }), scope))
  try {
    return await body(standIn)
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** Runs `body` with a stand-in serving the committed catalog in this process: `fetchAt` reaches it. */
export const withStandInProcess = async <A>(
  options: Omit<StandInOptions, "catalog">,
  body: (s: StandIn) => Promise<A>
): Promise<A> => body((await Effect.runPromise(standInProcess(options))).s)

/** A case's error without the request it names (` — GET http://…`), for comparing what failed. */
export const withoutRequest = (reason: string | undefined): string | undefined =>
  reason?.replace(/ — (GET|POST|DELETE) \S+$/, "")
