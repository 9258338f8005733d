/**
 * A route the catalog gives never takes the session off the app, over real HTTP on loopback: for
 * every spelling that would name another host or leave the base URL's path (test/support/routeSpellings.ts),
 * on every protocol and every route that protocol builds from the catalog, a live case signed in by
 * the protocol's header fails naming the route and why, before any request; a second listener, the
 * host the spellings name, sees no request at all, and the app none outside its base path. The
 * transport refuses each spelling on its own too (the last line of defence, whatever built the path),
 * and sends the routes that only look alike.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Either, Layer, Redacted } from "effect"
import { createServer } from "node:http"
import type { ProtocolName } from "../../src/Protocols/Registry.js"
import { HttpLive } from "../../src/Runner/Http.js"
import { SurfaceClient } from "../../src/Runner/SurfaceClient.js"
import { type Auth, makeTransport } from "../../src/Runner/Transport.js"
import type { Case } from "../../src/Schema/Case.js"
import { resolveRoutes } from "../../src/Schema/Protocol.js"
import type { Surface } from "../../src/Schema/Surface.js"
import type { StandIn } from "../../src/StandIn/Server.js"
import { startHoldingProxy } from "../support/holdingProxy.js"
import { runLive } from "../support/live.js"
import { type Listening, listenOnLoopback } from "../support/loopback.js"
import { allProtocols, headerSignInOf, type ProtocolSet, withProtocolStandIn } from "../support/protocols.js"
import { spellings, staying } from "../support/routeSpellings.js"

/** A listener that records the path and headers of every request, answering 404. */
const recording = async (): Promise<Listening & { readonly seen: Array<{ url: string; headers: string }> }> => {
  const seen: Array<{ url: string; headers: string }> = []
  const listening = await listenOnLoopback(createServer((request, response) => {
    seen.push({ url: request.url ?? "", headers: JSON.stringify(request.headers) })
    response.writeHead(404, { "content-type": "application/json" }).end("{}")
  }))
  return { ...listening, seen }
}

/** The session a protocol's runs sign in with here: its header, carrying the stand-in's token. */
const authOf = (protocol: ProtocolName, s: StandIn): Auth =>
  headerSignInOf[protocol] === "api-key"
    ? { header: "x-api-key", value: s.token() }
    : { header: "authorization", value: Redacted.make(`Bearer ${Redacted.value(s.token())}`) }

/** A catalog field a protocol builds request paths from: the route its failures name, and what they call it. */
interface Field {
  readonly route: "ask" | "conversation" | "trace" | "delete"
  readonly what: string
  /** The surface with the field set to a path starting with `path`. */
  readonly set: (surface: Surface, path: string) => Surface
}

const endpoint: Field = { route: "ask", what: "endpoint", set: (surface, path) => ({ ...surface, endpoint: path }) }
const routeField = (route: "conversation" | "trace" | "delete", placeholder: string): Field => ({
  route,
  what: `${route} route`,
  set: (surface, path) => ({ ...surface, routes: { ...surface.routes, [route]: `${path}/${placeholder}` } })
})

/** The fields each protocol builds paths from: this product's four routes; the others' endpoint and delete route. */
const fieldsOf: { readonly [P in ProtocolName]: ReadonlyArray<Field> } = {
  "turn-eval": [
    endpoint,
    routeField("conversation", "{conversationId}"),
    routeField("trace", "{turnId}/trace"),
    routeField("delete", "{conversationId}")
  ],
  "ai-sdk": [endpoint, routeField("delete", "{conversationId}")],
  langgraph: [endpoint, routeField("delete", "{conversationId}")],
  "ag-ui": [endpoint, routeField("delete", "{conversationId}")]
}

/**
 * The protocol's golden set with a surface per spelling and field, each the docs surface with that one
 * field spelled so, and a case of each: the docs case, asked on it.
 */
const spelledSet = (p: ProtocolSet, host: string) => {
  const docs = p.set.catalog.surfaces["docs"]!
  const asked = p.set.cases.find((c) => c.surface === "docs")!
  const tried = fieldsOf[p.protocol].flatMap((field) =>
    spellings.map((spelling) => {
      const surface = field.set(docs, spelling.path(host))
      const value = field.route === "ask" ? surface.endpoint! : surface.routes![field.route]!
      const name = `docs-${field.route}-${spellings.indexOf(spelling)}`
      const testCase: Case = { ...asked, id: `${asked.id}.${name}`, surface: name }
      const reason = `${field.route}: refused the ${field.what} ${JSON.stringify(value)}: it ${spelling.why}; ` +
        "no request is made"
      return { name, surface, testCase, reason, spelling: spelling.name }
    })
  )
  const catalog = {
    ...p.set.catalog,
    surfaces: { ...p.set.catalog.surfaces, ...Object.fromEntries(tried.map((t) => [t.name, t.surface])) }
  }
  return { set: { ...p.set, catalog }, tried, asked }
}

// A base URL with a path is asked as well: there a route's `..` would leave the path, and without one
// `//host` would name the host.
const prefixes = ["", "/app"] as const

describe("a catalog route that would leave the app", () => {
  for (const protocol of allProtocols) {
    it.live.each(prefixes)(
      `${protocol}, under the base path "%s": fails its case before any request, on every route, however it is spelled`,
      (prefix) =>
        Effect.promise(() =>
          withProtocolStandIn(protocol, { prefix }, async (s, p) => {
            const other = await recording()
            // Every request the run makes passes through the proxy, which records it on its way to the app.
            const proxy = await startHoldingProxy(new URL(s.url).origin, () => false)
            try {
              const host = new URL(other.url).host
              const { asked, set, tried } = spelledSet(p, host)
              const client = SurfaceClient.Live({
                baseUrl: new URL(`${proxy.url}${prefix}`),
                auth: authOf(protocol, s),
                routes: resolveRoutes(set.catalog.routes),
                timeout: Duration.seconds(10),
                deleteTimeout: Duration.seconds(5),
                keep: false,
                retryDelay: Duration.millis(20)
              }).pipe(Layer.provide(HttpLive))
              const spelled = await Effect.runPromise(runLive(client, set, tried.map((t) => t.testCase)))
              expect(spelled.results.map((r) => [r.id, r.passed, r.error])).toEqual(
                tried.map((t) => [t.testCase.id, false, t.reason])
              )
              expect(spelled.left).toEqual({ kept: [], undeleted: [], unknown: [] })
              expect([other.seen, proxy.seen(), s.conversations()]).toEqual([[], [], []])

              // The same case on the surface as the catalog has it reaches the app, under its path, and only it.
              const plain = await Effect.runPromise(runLive(client, set, [asked]))
              expect(plain.results.map((r) => [r.id, r.error])).toEqual([[asked.id, undefined]])
              expect(proxy.seen().length).toBeGreaterThan(0)
              expect(proxy.seen().filter((r) => !r.path.startsWith(`${prefix}/`))).toEqual([])
              expect(other.seen).toEqual([])
            } finally {
              await proxy.close()
              await other.close()
            }
          })
        ),
      60_000
    )
  }
})

describe("the transport, whatever built the path", () => {
  const limit = Duration.seconds(5)

  it.live("refuses each spelling for every method, sending nothing anywhere, and sends the look-alikes", () =>
    Effect.gen(function*() {
      const app = yield* Effect.promise(recording)
      const other = yield* Effect.promise(recording)
      const host = new URL(other.url).host
      const secret = "s3cret-session"
      const transport = yield* makeTransport({
        baseUrl: new URL(`${app.url}/app/`),
        auth: { header: "authorization", value: Redacted.make(`Bearer ${secret}`) },
        retryDelay: Duration.millis(10)
      })
      for (const spelling of spellings) {
        const path = spelling.path(host)
        const refused = (route: string) =>
          `${route}: refused the path ${JSON.stringify(path)}: it ${spelling.why}; no request is made`
        expect(yield* Effect.flip(transport.send("ask", "POST", path, { body: { message: "hi" } })), spelling.name)
          .toMatchObject({ _tag: "TurnError", reason: "path-refused", route: "ask", path, message: refused("ask") })
        expect(yield* Effect.flip(transport.get("ratings", path, limit)), spelling.name)
          .toMatchObject({ _tag: "TurnError", reason: "path-refused", route: "ratings", message: refused("ratings") })
        expect(yield* transport.deleteAt(path, limit), spelling.name).toEqual(Either.left(refused("delete")))
      }
      expect([app.seen, other.seen]).toEqual([[], []])

      for (const path of staying) {
        const sent = yield* transport.send("conversation", "GET", path(host))
        expect(sent.status, path(host)).toBe(404)
      }
      // The HTTP client writes a query's reserved characters percent-encoded: queries are compared decoded.
      const decodedQuery = (url: string) => url.replace(/\?.*$/, (query) => decodeURIComponent(query))
      expect(app.seen.map((r) => decodedQuery(r.url))).toEqual(
        staying.map((path) => decodedQuery(`/app${path(host)}`))
      )
      expect(app.seen.every((r) => r.headers.includes(secret))).toBe(true)
      expect(other.seen).toEqual([])
      yield* Effect.promise(() => Promise.all([app.close(), other.close()]))
    }).pipe(Effect.provide(HttpLive)))
})
