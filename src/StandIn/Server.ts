/**
 * The stand-in surface server: a deterministic assistant that speaks the surface protocol on loopback.
 * It has accounts with session cookies, a cap on open conversations per account (429 past it, so a
 * runner that forgets to delete fails), the catalog's surfaces, a recorded trace per turn, and knobs
 * for latency and for faults per route, so any route can be made to fail, hang, answer garbage or
 * redirect. Users can rate a turn thumbs-up or down, as an app's rating buttons would, and the ratings
 * route lists the thumbs-down ones; its known flaws (Flaws.ts) give such a rating a bad turn to point at.
 * Tests, the demo and people trying the tool use it before pointing the suite at their app.
 */
import { randomBytes } from "node:crypto"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import type { AddressInfo, Socket } from "node:net"
import { Effect, Redacted, type Scope } from "effect"
import { isRecord } from "../Schema/Decode.js"
import { type Route, resolveRoutes } from "../Schema/Protocol.js"
import type { Catalog } from "../Schema/Surface.js"
import { fnv1a } from "../Runner/Shard.js"
import { flaws, recallsFromMemory, respondWithFlaws } from "./Flaws.js"

/** What a faulted request gets instead of a proper answer. */
export type FaultKind =
  | { readonly kind: "status"; readonly status: number; readonly retryAfter?: string }
  | { readonly kind: "hang" }
  | { readonly kind: "reset" }
  | { readonly kind: "not-json" }
  | { readonly kind: "wrong-shape" }
  | { readonly kind: "huge"; readonly bytes?: number }
  | { readonly kind: "redirect"; readonly to: string }
  /** The ask opens its conversation, then answers this status, naming the conversation in its headers and body. */
  | { readonly kind: "opened"; readonly status: number }
  /** The ask opens its conversation but names it by this id instead (`..`, say): one a client must not put in a route. */
  | { readonly kind: "id"; readonly id: string }

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
  /** Loopback address to listen on (default 127.0.0.1). */
  readonly host?: string
  /** Port (default 0: any free port). */
  readonly port?: number
  /** A path prefix every route is served under, like an app behind a reverse proxy. */
  readonly prefix?: string
  /** Account names; each gets a session cookie (default `demo` and `other`). */
  readonly accounts?: ReadonlyArray<string>
  /** Open conversations an account may hold before asks are answered 429 (default 16). */
  readonly maxConversations?: number
  /** Milliseconds each route waits before answering. */
  readonly latency?: Partial<Record<Route, number>>
  /** Faults to inject. */
  readonly faults?: ReadonlyArray<Fault>
  /** How each surface answers the ask (default: surfaces with gated tools answer JSON, others stream). */
  readonly answerModes?: Readonly<Record<string, AnswerMode>>
  /**
   * Start with a rated-down turn per known flaw in the first account: the flaw's example question
   * asked, answered badly and rated thumbs-down with a comment, for trying `eval candidates` and
   * `eval propose`. Those conversations count towards the account's cap.
   */
  readonly seedRatings?: boolean
  /**
   * Questions answered differently from one ask to the next, like a sampled model: every second ask
   * of one cites a page from memory besides what it surfaced. A number picks that fraction of all
   * questions (stably, by question); a list names them.
   */
  readonly flaky?: number | ReadonlyArray<string>
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
  /** Requests per route, including faulted and rejected ones. */
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

/** A conversation the stand-in holds. */
export interface StoredConversation {
  readonly id: string
  readonly account: string
  readonly surface: string
  readonly question: string
  readonly turnId: string
  /** Whether this turn is the worse answer of a flaky question (see `StandInOptions.flaky`). */
  readonly worse: boolean
}

/** A running stand-in. */
export interface StandIn {
  /** The base URL to point a live run at. */
  readonly url: string
  /** The session cookie of an account (default the first). */
  readonly cookie: (account?: string) => Redacted.Redacted<string>
  /** Counters since start. */
  readonly stats: () => StandInStats
  /** The conversations an account holds now. */
  readonly conversations: (account?: string) => ReadonlyArray<StoredConversation>
  /** Replaces the faults. */
  readonly setFaults: (faults: ReadonlyArray<Fault>) => void
  /** The ratings of an account's turns. */
  readonly ratings: (account?: string) => ReadonlyArray<StoredRating>
}

/** The name of the stand-in's session cookie. */
const cookieName = "standin_session"

const maxRequestBody = 1024 * 1024

/** The size of a `huge` fault's padding when the fault names none. */
const hugeBytes = 5 * 1024 * 1024

/** A stable fraction in [0, 1) for a string (FNV-1a), so a rate selects the same questions every run. */
export const stableFraction = (text: string): number => fnv1a(text) / 0x1_0000_0000

const templatePattern = (prefix: string, template: string): RegExp =>
  new RegExp(
    `^${(prefix + template).replace(/[.*+?^${}()|[\]\\]/g, "\\$&").replace(/\\\{(conversationId|turnId)\\\}/g, "(?<$1>[^/]+)")}$`
  )

const readBody = (request: IncomingMessage): Promise<string | undefined> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    let size = 0
    request.on("data", (chunk: Buffer) => {
      size += chunk.length
      if (size <= maxRequestBody) chunks.push(chunk)
    })
    request.on("end", () => resolve(size > maxRequestBody ? undefined : Buffer.concat(chunks).toString("utf8")))
    request.on("error", () => resolve(undefined))
  })

const sendJson = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  const text = JSON.stringify(body)
  response.writeHead(status, { "content-type": "application/json", "content-length": Buffer.byteLength(text), ...headers })
  response.end(text)
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

const listen = (options: StandInOptions): Promise<{ standIn: StandIn; close: () => Promise<void> }> => {
  const host = options.host ?? "127.0.0.1"
  const prefix = (options.prefix ?? "").replace(/\/+$/, "")
  const routes = resolveRoutes(options.catalog.routes)
  const accounts = options.accounts ?? ["demo", "other"]
  const first = accounts[0] ?? "demo"
  const maxConversations = options.maxConversations ?? 16
  const tokens = new Map(accounts.map((account) => [randomBytes(16).toString("hex"), account] as const))
  const tokenOf = new Map([...tokens].map(([token, account]) => [account, token] as const))
  const runId = randomBytes(3).toString("hex")
  let faults = options.faults ?? []
  const attempts = new Map<string, number>()
  const conversations = new Map<string, StoredConversation>()
  const byTurn = new Map<string, StoredConversation>()
  const ratings = new Map<string, StoredRating>()
  let counter = 0
  let inFlight = 0
  const stats = {
    requests: { ask: 0, conversation: 0, trace: 0, delete: 0, ratings: 0 } as Record<Route, number>,
    peakInFlight: 0,
    created: 0,
    deleted: 0,
    capHits: 0,
    unauthorized: 0
  }

  const endpoints = new Map(Object.entries(options.catalog.surfaces).map(([name, s]) => [prefix + s.endpoint, name] as const))
  const modeOf = (surface: string): AnswerMode =>
    options.answerModes?.[surface] ?? ((options.catalog.surfaces[surface]?.gatedTools ?? []).length > 0 ? "json" : "stream")
  const conversationPattern = templatePattern(prefix, routes.conversation)
  const tracePattern = templatePattern(prefix, routes.trace)
  const deletePattern = templatePattern(prefix, routes.delete ?? "/api/ai/conversations/{conversationId}")
  // The ratings route's template may carry a query (`?rating=down`); the path alone selects the route.
  const ratingsPath = prefix + (routes.ratings.split("?")[0] ?? "")
  const ratePattern = templatePattern(prefix, "/api/ai/turns/{turnId}/rating")

  const accountOf = (request: IncomingMessage): string | undefined => {
    for (const part of (request.headers.cookie ?? "").split(";")) {
      const [name, ...value] = part.trim().split("=")
      if (name === cookieName) return tokens.get(value.join("="))
    }
    return undefined
  }

  const faultFor = (route: Route, question: string): FaultKind | undefined => {
    for (const fault of faults) {
      if (fault.route !== route) continue
      if (fault.match !== undefined && !question.includes(fault.match)) continue
      if (fault.rate !== undefined && stableFraction(`${route}\u0000${question}`) >= fault.rate) continue
      if (fault.times !== undefined) {
        const key = `${route}\u0000${question}`
        const seen = attempts.get(key) ?? 0
        attempts.set(key, seen + 1)
        if (seen >= fault.times) continue
      }
      return fault
    }
    return undefined
  }

  const conversationsOf = (account: string) => [...conversations.values()].filter((c) => c.account === account)
  const ratingsOf = (account: string) =>
    [...ratings.values()].filter((r) => conversations.get(r.conversationId)?.account === account)

  const remove = (conversation: StoredConversation) => {
    conversations.delete(conversation.id)
    byTurn.delete(conversation.turnId)
    ratings.delete(conversation.turnId)
    stats.deleted++
  }

  /** The turn a conversation holds: the flawed assistant's, or the worse one of a flaky question. */
  const turnOf = (c: StoredConversation) => {
    const turn = respondWithFlaws(c.surface, c.question)
    return c.worse ? recallsFromMemory(turn) : turn
  }
  const asks = new Map<string, number>()
  const isFlaky = (question: string): boolean =>
    typeof options.flaky === "number"
      ? stableFraction(`flaky\u0000${question}`) < options.flaky
      : (options.flaky ?? []).includes(question)
  /** Opens a conversation holding one question and its turn. */
  const openConversation = (account: string, surface: string, question: string): StoredConversation => {
    counter++
    const asked = (asks.get(question) ?? 0) + 1
    asks.set(question, asked)
    const conversation: StoredConversation = {
      id: `conv_${runId}${counter.toString(36)}`,
      account,
      surface,
      question,
      turnId: `turn_${runId}${counter.toString(36)}`,
      worse: asked % 2 === 0 && isFlaky(question)
    }
    conversations.set(conversation.id, conversation)
    byTurn.set(conversation.turnId, conversation)
    stats.created++
    return conversation
  }

  const padding = (fault: { readonly bytes?: number }) => "x".repeat(fault.bytes ?? hugeBytes)

  /** Answers a request with a fault instead of `body`, its proper answer. */
  const injure = (response: ServerResponse, route: Route, fault: FaultKind, path: string, body: unknown): void => {
    switch (fault.kind) {
      case "status":
        return sendJson(response, fault.status, { error: `injected HTTP ${fault.status}` }, fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter })
      case "hang":
        return
      case "reset": {
        // A delete's reset drops the connection before any answer: a 200 would say it was done.
        if (route === "delete") return void response.socket?.destroy()
        const text = JSON.stringify(body)
        response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
        response.write(text.slice(0, Math.floor(text.length / 2)), () => response.socket?.destroy())
        return
      }
      case "not-json":
        response.writeHead(200, { "content-type": "text/html" })
        return void response.end("<html><body>502 Bad Gateway</body></html>")
      case "wrong-shape":
        return sendJson(response, 200, { unexpected: true, items: [1, 2, 3] })
      case "huge":
        return sendJson(response, 200, { ...(body as object), padding: padding(fault) })
      case "redirect":
        response.writeHead(307, { location: `${fault.to}${path}` })
        return void response.end()
      case "opened":
      case "id":
        // Ask faults, answered where the ask opens its conversation.
        return sendJson(response, 500, { error: "stand-in failure" })
    }
  }

  const handleAsk = async (request: IncomingMessage, response: ServerResponse, account: string, surface: string) => {
    const raw = await readBody(request)
    let question: unknown
    try {
      question = raw === undefined ? undefined : (JSON.parse(raw) as { message?: unknown }).message
    } catch {
      question = undefined
    }
    if (typeof question !== "string" || question.trim() === "") {
      return sendJson(response, 400, { error: "expected a JSON body {\"message\": QUESTION}" })
    }
    const fault = faultFor("ask", question)
    if (fault !== undefined && fault.kind !== "reset" && fault.kind !== "huge" && fault.kind !== "opened" && fault.kind !== "id") {
      return injure(response, "ask", fault, request.url ?? "/", { error: "fault" })
    }
    if (conversationsOf(account).length >= maxConversations) {
      stats.capHits++
      return sendJson(response, 429, { error: `conversation cap reached (${maxConversations} open)` })
    }
    const conversation = openConversation(account, surface, question)
    const { answer } = turnOf(conversation)
    if (fault?.kind === "opened") {
      const named = { conversationId: conversation.id, turnId: conversation.turnId }
      return sendJson(response, fault.status, { error: `injected HTTP ${fault.status}`, ...named }, {
        "x-conversation-id": conversation.id
      })
    }
    // Under an `id` fault the answer names the conversation by another id.
    const conversationId = fault?.kind === "id" ? fault.id : conversation.id
    const ids = { conversationId, turnId: conversation.turnId }
    const mode = modeOf(surface)
    if (mode === "stream") {
      response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
      response.write(`data: ${JSON.stringify({ type: "start", conversationId })}\n\n`)
      const chunks = answer.match(/[\s\S]{1,48}/g) ?? []
      if (fault?.kind === "reset") {
        response.write(`data: ${JSON.stringify({ type: "text-delta", delta: chunks[0] ?? "" })}\n\n`, () => response.socket?.destroy())
        return
      }
      for (const delta of chunks) response.write(`data: ${JSON.stringify({ type: "text-delta", delta })}\n\n`)
      if (fault?.kind === "huge") response.write(`data: ${JSON.stringify({ type: "debug", padding: padding(fault) })}\n\n`)
      response.write(`data: ${JSON.stringify({ type: "finish", turnId: conversation.turnId })}\n\n`)
      return void response.end("data: [DONE]\n\n")
    }
    const headers = { "x-conversation-id": conversationId, "x-turn-id": conversation.turnId }
    if (fault !== undefined && fault.kind !== "id") {
      for (const [name, value] of Object.entries(headers)) response.setHeader(name, value)
      return injure(response, "ask", fault, request.url ?? "/", { ...ids, answer })
    }
    if (mode === "headers") {
      response.writeHead(200, { "content-type": "text/plain; charset=utf-8", ...headers })
      return void response.end(answer)
    }
    return sendJson(response, 200, { ...ids, answer }, headers)
  }

  const owned = (account: string, conversation: StoredConversation | undefined) =>
    conversation !== undefined && conversation.account === account ? conversation : undefined

  /** Rates a turn of the account: `{"rating": "up" | "down", "comment"?: string}`. */
  const handleRate = async (request: IncomingMessage, response: ServerResponse, account: string, turnId: string) => {
    const conversation = owned(account, byTurn.get(turnId))
    if (conversation === undefined) return sendJson(response, 404, { error: "not found" })
    const raw = await readBody(request)
    let body: Record<string, unknown> | undefined
    try {
      const parsed: unknown = raw === undefined ? undefined : JSON.parse(raw)
      body = isRecord(parsed) ? parsed : undefined
    } catch {
      body = undefined
    }
    const rating = body?.rating
    const comment = body?.comment
    if ((rating !== "up" && rating !== "down") || (comment !== undefined && comment !== null && typeof comment !== "string")) {
      return sendJson(response, 400, { error: "expected a JSON body {\"rating\": \"up\" | \"down\", \"comment\"?: TEXT}" })
    }
    const stored: StoredRating = {
      turnId,
      conversationId: conversation.id,
      rating,
      ...(typeof comment === "string" && comment.trim() !== "" ? { comment } : {})
    }
    ratings.set(turnId, stored)
    return sendJson(response, 200, stored)
  }

  /** The account's ratings with the asked rating (`?rating=`, thumbs-down when not given). */
  const listRatings = (request: IncomingMessage, account: string) => {
    const asked = new URL(request.url ?? "/", "http://stand-in").searchParams.get("rating") ?? "down"
    return ratingsOf(account)
      .filter((r) => r.rating === asked)
      .map(({ comment, conversationId, turnId }) => comment === undefined ? { turnId, conversationId } : { turnId, conversationId, comment })
  }

  const handle = async (
    request: IncomingMessage,
    response: ServerResponse,
    route: Route | undefined,
    work: (account: string) => Promise<void> | void
  ) => {
    if (route !== undefined) stats.requests[route]++
    const wait = route === undefined ? 0 : options.latency?.[route] ?? 0
    if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
    const account = accountOf(request)
    if (account === undefined) {
      stats.unauthorized++
      return sendJson(response, 401, { error: "sign in first" })
    }
    return work(account)
  }

  const server = createServer((request, response) => {
    inFlight++
    stats.peakInFlight = Math.max(stats.peakInFlight, inFlight)
    response.on("close", () => inFlight--)
    const path = (request.url ?? "/").split("?")[0] ?? "/"
    const method = request.method ?? "GET"
    const surface = endpoints.get(path)
    const routeFor = (): [Route, RegExpExecArray] | undefined => {
      if (method === "GET") {
        const trace = tracePattern.exec(path)
        if (trace !== null) return ["trace", trace]
        const conversation = conversationPattern.exec(path)
        if (conversation !== null) return ["conversation", conversation]
      }
      if (method === "DELETE") {
        const del = deletePattern.exec(path)
        if (del !== null) return ["delete", del]
      }
      return undefined
    }
    const done = (promise: Promise<void> | void) =>
      Promise.resolve(promise).catch(() => {
        if (!response.headersSent) sendJson(response, 500, { error: "stand-in failure" })
        else response.destroy()
      })
    if (surface !== undefined && method === "POST") {
      return done(handle(request, response, "ask", (account) => handleAsk(request, response, account, surface)))
    }
    const rate = method === "POST" ? ratePattern.exec(path) : null
    if (rate !== null) {
      const turnId = decodeURIComponent(rate.groups?.["turnId"] ?? "")
      return done(handle(request, response, undefined, (account) => handleRate(request, response, account, turnId)))
    }
    if (method === "GET" && path === ratingsPath) {
      return done(handle(request, response, "ratings", (account) => {
        const body = listRatings(request, account)
        const fault = faultFor("ratings", "")
        return fault === undefined ? sendJson(response, 200, body) : injure(response, "ratings", fault, path, body)
      }))
    }
    const matched = routeFor()
    if (matched === undefined) return sendJson(response, 404, { error: "no such route" })
    const [route, match] = matched
    const groups = match.groups ?? {}
    return done(handle(request, response, route, (account) => {
      const conversation = route === "trace"
        ? owned(account, byTurn.get(decodeURIComponent(groups["turnId"] ?? "")))
        : owned(account, conversations.get(decodeURIComponent(groups["conversationId"] ?? "")))
      if (conversation === undefined) return sendJson(response, 404, { error: "not found" })
      const turn = turnOf(conversation)
      const body = route === "trace"
        ? { turnId: conversation.turnId, surface: conversation.surface, ...turn }
        : route === "conversation"
        ? {
          id: conversation.id,
          messages: [
            { role: "user", content: conversation.question },
            { role: "assistant", content: turn.answer, turnId: conversation.turnId }
          ]
        }
        : { deleted: conversation.id }
      const fault = faultFor(route, conversation.question)
      if (fault !== undefined) {
        // A delete answered 200 (whatever its body) or 404 says the conversation is gone, so it goes.
        const deletesAnyway = route === "delete" &&
          (fault.kind === "not-json" || fault.kind === "wrong-shape" || fault.kind === "huge" ||
            (fault.kind === "status" && fault.status === 404))
        if (deletesAnyway) remove(conversation)
        return injure(response, route, fault, path, body)
      }
      if (route === "delete") remove(conversation)
      return sendJson(response, 200, body)
    }))
  })

  if (options.seedRatings === true) {
    for (const flaw of flaws) {
      if (!Object.hasOwn(options.catalog.surfaces, flaw.surface)) continue
      const conversation = openConversation(first, flaw.surface, flaw.example)
      ratings.set(conversation.turnId, {
        turnId: conversation.turnId,
        conversationId: conversation.id,
        rating: "down",
        comment: flaw.comment
      })
    }
  }

  const sockets = new Set<Socket>()
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })

  return new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(options.port ?? 0, host, () => {
      const { port } = server.address() as AddressInfo
      const url = `http://${host.includes(":") ? `[${host}]` : host}:${port}${prefix}`
      resolve({
        standIn: {
          url,
          cookie: (account = first) => {
            const token = tokenOf.get(account)
            if (token === undefined) throw new Error(`the stand-in has no account ${account}`)
            return Redacted.make(`${cookieName}=${token}`)
          },
          stats: () => ({ ...stats, requests: { ...stats.requests } }),
          conversations: (account = first) => conversationsOf(account),
          setFaults: (next) => {
            faults = next
            attempts.clear()
          },
          ratings: (account = first) => ratingsOf(account)
        },
        close: () =>
          new Promise<void>((done) => {
            for (const socket of sockets) socket.destroy()
            server.close(() => done())
          })
      })
    })
  })
}
