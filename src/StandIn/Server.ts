/**
 * The stand-in surface server: a deterministic assistant that speaks, on loopback, this product's own
 * protocol or any of the live protocols a surface may name (the AI SDK's UI message stream, LangGraph
 * Server, AG-UI; each in Wire/). It has accounts signed in by a session cookie or the same token in
 * a header, a cap on open conversations per account (429 past it, so a runner that forgets to delete
 * fails), the catalog's surfaces, a recorded trace per turn, and knobs for latency and for faults per
 * route, so any route can be made to fail, hang, answer garbage or redirect. Users can rate a turn
 * thumbs-up or down, as an app's rating buttons would, and the ratings route lists the thumbs-down
 * ones; its known flaws (Flaws.ts) give such a rating a bad turn to point at. Tests, the demo and
 * people trying the tool use it before pointing the suite at their app. This module is the router:
 * each request goes to the first wire that routes it.
 */
import { Effect, Redacted, type Scope } from "effect"
import { createServer } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import {
  type ProtocolName,
  protocolNamed,
  protocolNames,
  protocolOf,
  protocols as registered
} from "../Protocols/Registry.js"
import { resolveRoutes, type Route } from "../Schema/Protocol.js"
import type { Catalog } from "../Schema/Surface.js"
import type { AssistantTurn, Decision } from "./Assistant.js"
import { faultProblem } from "./Faults.js"
import { flaws, type Miscarriage } from "./Flaws.js"
import { nodeRequest, nodeResponse, sendJson, targetOf, type WireRequest, type WireResponse } from "./Http.js"
import { cookieName, makeStore, stableFraction } from "./Store.js"
import type { Handler, Incoming, ServedSurface } from "./Wire.js"

export { stableFraction }

/** What a faulted request gets instead of a proper answer. */
export type FaultKind =
  | { readonly kind: "status"; readonly status: number; readonly retryAfter?: string }
  | { readonly kind: "hang" }
  | { readonly kind: "reset" }
  | { readonly kind: "not-json" }
  | { readonly kind: "wrong-shape" }
  | { readonly kind: "huge"; readonly bytes?: number }
  | { readonly kind: "redirect"; readonly to: string }
  /**
   * The ask opens its conversation, then answers this status, naming the conversation in its headers
   * and body (an AI SDK chat is the client's to name; an AG-UI agent opens none, so it takes no `opened`).
   */
  | { readonly kind: "opened"; readonly status: number }
  /**
   * The ask opens its conversation but names it by this id instead (`..`, say): one a client must not
   * put in a route. Only this product's protocol and LangGraph's thread ids are the app's to name.
   */
  | { readonly kind: "id"; readonly id: string }
  /**
   * The answer's stream runs a second call under an earlier call's id: `search_docs`, then the gated
   * `deploy` started again under its id — a wire that would hide a call that ran (ai-sdk and ag-ui).
   */
  | { readonly kind: "reused-id" }
  /**
   * The answer's stream drops the result of the turn's first tool call: the call is started, its input
   * sent and the call ended, and nothing says how it went — as a tool that throws leaves an AG-UI run on
   * some frameworks. The call is an attempt, not a call that never happened (ai-sdk and ag-ui).
   */
  | { readonly kind: "no-result" }

/**
 * A fault injected into one route. It hits the questions it selects — those containing `match`, and
 * of those the fraction `rate` (chosen by a hash of the question, so the same questions every run) —
 * and, with `times`, only the first that many requests of each question.
 */
export type Fault = FaultKind & {
  readonly route: Route
  readonly rate?: number
  readonly match?: string
  readonly times?: number
}

/** How a surface answers the ask: an event stream, JSON (ids in body and headers), or ids in headers only. */
export type AnswerMode = "stream" | "json" | "headers"

/** The stand-in's knobs. */
export interface StandInOptions {
  /** The surfaces to serve and the route templates to serve them on. */
  readonly catalog: Catalog
  /** The protocol every surface is served over (default: each surface's own, this product's when it names none). */
  readonly protocol?: ProtocolName | undefined
  /** Loopback address to listen on (default 127.0.0.1). */
  readonly host?: string | undefined
  /** Port (default 0: any free port). */
  readonly port?: number | undefined
  /** A path prefix every route is served under, like an app behind a reverse proxy. */
  readonly prefix?: string | undefined
  /** Account names; each gets a session token, sent as a cookie or a header (default `demo` and `other`). */
  readonly accounts?: ReadonlyArray<string> | undefined
  /** Open conversations an account may hold before asks are answered 429 (default 16). */
  readonly maxConversations?: number | undefined
  /** Milliseconds each route waits before answering. */
  readonly latency?: Partial<Record<Route, number>> | undefined
  /** Faults to inject; each must be one a served protocol can take (see Faults.ts), or the stand-in does not start. */
  readonly faults?: ReadonlyArray<Fault> | undefined
  /** How each surface answers the ask (default: surfaces with gated tools answer JSON, others stream). */
  readonly answerModes?: Readonly<Record<string, AnswerMode>> | undefined
  /**
   * Start with a rated-down turn per known flaw in the first account: the flaw's example question
   * asked, answered badly and rated thumbs-down with a comment, for trying `eval candidates` and
   * `eval propose`. Those conversations count towards the account's cap. Only surfaces served over
   * this product's protocol are seeded: its routes are the ones ratings are read back through.
   */
  readonly seedRatings?: boolean | undefined
  /**
   * Questions answered differently from one ask to the next, like a sampled model: every second ask
   * of one cites a page from memory besides what it surfaced. A number picks that fraction of all
   * questions (stably, by question); a list names them.
   */
  readonly flaky?: number | ReadonlyArray<string> | undefined
  /**
   * Carry out every decision on a proposal wrongly, this way (see `Flaws.ts`): so that each fact of
   * `runs-as-proposed` can be shown failing.
   */
  readonly miscarriage?: Miscarriage | undefined
}

/** A user's rating of a turn. */
export interface StoredRating {
  readonly turnId: string
  readonly conversationId: string
  readonly rating: "up" | "down"
  readonly comment?: string
}

/** What the stand-in saw, for tests and benchmarks. */
export interface StandInStats {
  /**
   * Requests per route, including faulted and rejected ones. On LangGraph an ask is two requests, the
   * thread's creation and its run, both counted as `ask`; `conversation` and `trace` are its thread
   * and state reads.
   */
  readonly requests: Readonly<Record<Route, number>>
  /** The most requests in flight at once. */
  readonly peakInFlight: number
  /** Conversations created and deleted. */
  readonly created: number
  readonly deleted: number
  /** Asks refused because the account held its cap of conversations. */
  readonly capHits: number
  /** Requests refused for want of a valid session. */
  readonly unauthorized: number
}

/** A conversation the stand-in holds: a conversation, an AI SDK chat or a LangGraph thread. */
export interface StoredConversation {
  readonly id: string
  /** The protocol it was opened over. */
  readonly protocol: ProtocolName
  readonly account: string
  /** The surface and question of its turn; empty for a LangGraph thread no run has asked in yet. */
  readonly surface: string
  readonly question: string
  /** Its turn's id (a LangGraph run's id); empty while it holds none. */
  readonly turnId: string
  /** Whether this turn is the worse answer of a flaky question (see `StandInOptions.flaky`). */
  readonly worse: boolean
  /** The exchanges before its current turn, oldest first: what a follow-up is answered in view of. */
  readonly earlier?: ReadonlyArray<StoredExchange> | undefined
  /** Its current turn, when a later step of the conversation made it (a follow-up, a decision). */
  readonly held?: AssistantTurn | undefined
  /** The decision on a proposal its current turn answers (`question` is then `approved` or `denied: REASON`). */
  readonly decision?: Decision | undefined
}

/** An exchange of a conversation before its current turn: what the user said (or decided) and the turn it got. */
export interface StoredExchange {
  readonly turnId: string
  /** The user's message, or for a decision `approved` / `denied: REASON`. */
  readonly said: string
  /** The decision on a proposal it answered; none for a question. */
  readonly decision?: Decision | undefined
  readonly turn: AssistantTurn
}

/** A running stand-in. */
export interface StandIn {
  /** The base URL to point a live run at. */
  readonly url: string
  /** The protocols it speaks. */
  readonly protocols: ReadonlyArray<ProtocolName>
  /** What it serves, one line per route: `METHOD PATH  what`. */
  readonly serves: ReadonlyArray<string>
  /** The session cookie of an account (default the first). */
  readonly cookie: (account?: string) => Redacted.Redacted<string>
  /** The session token of an account (default the first): a bearer token or an API key signs in as the cookie does. */
  readonly token: (account?: string) => Redacted.Redacted<string>
  /** Counters since start. */
  readonly stats: () => StandInStats
  /** Settles once `count` requests of `route` have come since start (counted as `stats` counts them). */
  readonly whenRequests: (route: Route, count: number) => Promise<void>
  /** The conversations an account holds now. */
  readonly conversations: (account?: string) => ReadonlyArray<StoredConversation>
  /** Replaces the faults; throws for one no served protocol can take. */
  readonly setFaults: (faults: ReadonlyArray<Fault>) => void
  /** The ratings of an account's turns. */
  readonly ratings: (account?: string) => ReadonlyArray<StoredRating>
}

/**
 * The protocol each surface is served over: the options' one for all, else the surface's own (a surface
 * naming no known protocol is served none: `start` refuses it).
 */
export const servedProtocols = (options: Pick<StandInOptions, "catalog" | "protocol">): ReadonlyArray<ProtocolName> => [
  ...new Set(
    Object.values(options.catalog.surfaces).flatMap((s) => {
      const protocol = options.protocol ?? protocolOf(s)
      return protocol === undefined ? [] : [protocol]
    })
  )
]

/** Why these faults cannot be injected into a stand-in serving these protocols, or `undefined` when they can. */
const faultsProblem = (faults: ReadonlyArray<Fault>, protocols: ReadonlyArray<ProtocolName>): string | undefined => {
  for (const fault of faults) {
    const problem = faultProblem(fault, protocols)
    if (problem !== undefined) return problem
  }
  return undefined
}

/** Starts the stand-in; it stops, dropping every open connection, when the scope closes. */
export const start = (options: StandInOptions): Effect.Effect<StandIn, Error, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.tryPromise({
      try: () => listen(options),
      catch: (error) => error instanceof Error ? error : new Error(String(error))
    }),
    (running) => Effect.promise(() => running.close())
  ).pipe(Effect.map((running) => running.standIn))

/**
 * A stand-in ready to answer requests however they reach it: one request a call, and the handle for the
 * origin it is reached at (its `url` is that origin under the options' prefix).
 */
export interface Assembled {
  readonly handle: (request: WireRequest, response: WireResponse) => void
  readonly standIn: (origin: string) => StandIn
}

/** The stand-in's wires and store, ready to answer; throws for a catalog or faults it cannot serve. */
export const assemble = async (options: StandInOptions): Promise<Assembled> => {
  for (const [name, surface] of Object.entries(options.catalog.surfaces)) {
    if (surface.protocol !== undefined && protocolNamed(surface.protocol) === undefined) {
      throw new Error(
        `surface ${JSON.stringify(name)}: unknown protocol ${JSON.stringify(surface.protocol)}, expected one of ${
          protocolNames.join(", ")
        }`
      )
    }
  }
  const protocols = servedProtocols(options)
  const problem = faultsProblem(options.faults ?? [], protocols)
  if (problem !== undefined) throw new Error(problem)
  const prefix = (options.prefix ?? "").replace(/\/+$/, "")
  const store = makeStore(options)
  const surfaces: ReadonlyArray<ServedSurface> = Object.entries(options.catalog.surfaces).map(([name, surface]) => ({
    name,
    surface,
    // Every surface's protocol is known: checked above.
    protocol: options.protocol ?? protocolOf(surface)!,
    routes: resolveRoutes(options.catalog.routes, surface.routes)
  }))
  const context = { store, prefix, surfaces, catalogRoutes: resolveRoutes(options.catalog.routes) }
  // The stand-in's own protocol is always served: its ratings routes are there whatever the surfaces speak.
  const served = registered.filter((p) => p.name === "turn-eval" || protocols.includes(p.name))
  const routers = await Promise.all(served.map((p) => p.wire().then((make) => make(context))))
  const routeOf = (incoming: Incoming): Handler | undefined => {
    for (const wire of routers) {
      const handler = wire.route(incoming)
      if (handler !== undefined) return handler
    }
    return undefined
  }

  if (options.seedRatings === true) {
    for (const flaw of flaws) {
      const surface = surfaces.find((s) => s.name === flaw.surface)
      // Ratings are read back over this product's own routes, so only its surfaces are seeded.
      if (surface?.protocol !== "turn-eval") continue
      const conversation = store.open(store.first, flaw.surface, flaw.example)
      store.rate({
        turnId: conversation.turnId,
        conversationId: conversation.id,
        rating: "down",
        comment: flaw.comment
      })
    }
  }

  const tokenOf = (account: string | undefined) => {
    const token = store.tokenOf(account ?? store.first)
    if (token === undefined) throw new Error(`the stand-in has no account ${account}`)
    return token
  }
  return {
    handle: (request, response) => {
      store.track(response)
      const incoming = { request, response, method: request.method, target: targetOf(request.url) }
      const handler = routeOf(incoming)
      if (handler === undefined) return sendJson(response, 404, { error: "no such route" })
      Promise.resolve()
        .then(handler)
        .catch(() => {
          if (!response.headersSent()) sendJson(response, 500, { error: "stand-in failure" })
          else response.drop()
        })
    },
    standIn: (origin) => ({
      url: `${origin}${prefix}`,
      protocols,
      // The asks first: this product's own wire (always there, for its ratings) goes last.
      serves: [...routers.slice(1), ...routers.slice(0, 1)].flatMap((r) => r.serves),
      cookie: (account) => Redacted.make(`${cookieName}=${tokenOf(account)}`),
      token: (account) => Redacted.make(tokenOf(account)),
      stats: store.stats,
      whenRequests: store.whenRequests,
      conversations: (account = store.first) => store.conversationsOf(account),
      setFaults: (next) => {
        const problem = faultsProblem(next, protocols)
        if (problem !== undefined) throw new Error(problem)
        store.setFaults(next)
      },
      ratings: (account = store.first) => store.ratingsOf(account)
    })
  }
}

const listen = async (options: StandInOptions): Promise<{ standIn: StandIn; close: () => Promise<void> }> => {
  const { handle, standIn } = await assemble(options)
  const host = options.host ?? "127.0.0.1"
  const server = createServer((request, response) => handle(nodeRequest(request), nodeResponse(response)))
  const sockets = new Set<Socket>()
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, host, () => {
      const { port } = server.address() as AddressInfo
      resolve({
        standIn: standIn(`http://${host.includes(":") ? `[${host}]` : host}:${port}`),
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
          })
      })
    })
  })
}
