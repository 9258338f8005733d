/**
 * The stand-in in this process with no socket: an `HttpClient` that hands each request to the
 * stand-in's wires as they are (`WireRequest`) and reads their answer (`WireResponse`) as a web
 * `Response`, for tests of what a live run does that need no network. What a socket would do, it does
 * as Node's HTTP client reports it: a request to another origin is refused (`ECONNREFUSED`), a
 * connection the stand-in drops before its answer fails the request and one it drops mid-answer
 * breaks the body off (undici's `UND_ERR_SOCKET`, "other side closed"), and a request the client gives
 * up (interrupted, or its body cancelled) is over for the stand-in as a closed connection is.
 */
import { HttpClient, HttpClientError, type HttpClientRequest, HttpClientResponse, UrlParams } from "@effect/platform"
import { Effect, Either } from "effect"
import { maxRequestBody, type WireRequest, type WireResponse } from "./Http.js"
import { assemble, type StandIn, type StandInOptions } from "./Server.js"

/** The origin a stand-in in this process answers on: no name a real host has. */
export const inProcessOrigin = "http://stand-in.invalid"

/** An error as Node's HTTP client gives it: a message and a system code. */
const systemError = (message: string, code: string): Error => Object.assign(new Error(message), { code })

/** What a dropped connection gives, as undici reports a socket the other side closed. */
const socketClosed = () => systemError("other side closed", "UND_ERR_SOCKET")

/** Statuses whose answer has no body, which a web `Response` must be made without. */
const bodiless: ReadonlySet<number> = new Set([204, 205, 304])

/** A request's body as bytes: the bodies a live run sends (none, bytes, text). */
const bodyBytes = (request: HttpClientRequest.HttpClientRequest): Uint8Array | undefined => {
  const body = request.body
  switch (body._tag) {
    case "Empty":
      return new Uint8Array()
    case "Uint8Array":
      return body.body
    case "Raw":
      return typeof body.body === "string" ? new TextEncoder().encode(body.body) : undefined
    default:
      return undefined
  }
}

/** A request as a client hands it over: where it goes, and what it carries. */
export interface InProcessRequest {
  readonly method: string
  readonly url: URL
  readonly headers: Readonly<Record<string, string>>
  readonly body: Uint8Array
}

/** Answers one request through a stand-in's wires, in this process. */
export type Handle = (request: WireRequest, response: WireResponse) => void

/**
 * One request answered by `handle`: the answer comes as a web `Response` once the wire starts it, its
 * body streaming as the wire writes it; a drop fails whichever of the two is under way, and an abort of
 * `signal` (or a cancelled body) is a client that hung up.
 */
export const exchange = (handle: Handle, request: InProcessRequest, signal?: AbortSignal): Promise<Response> =>
  new Promise<Response>((resolve, reject) => {
    const { url } = request
    if (url.origin !== inProcessOrigin) return reject(systemError(`connect ECONNREFUSED ${url.host}`, "ECONNREFUSED"))
    const closeListeners: Array<() => void> = []
    let over = false
    const close = () => {
      if (over) return
      over = true
      for (const listener of closeListeners.splice(0)) listener()
    }
    const pending: Record<string, string> = {}
    let started = false
    // The body as the wire wrote it, handed to the reader a chunk at a time: what was written before a
    // drop is read before the drop is, as on a socket (erroring a web stream would discard its queue).
    const queue: Array<Uint8Array> = []
    let ending: "open" | "ended" | "dropped" = "open"
    let wake: (() => void) | undefined
    const push = () => {
      const waiting = wake
      wake = undefined
      waiting?.()
    }
    const pull = (controller: ReadableStreamDefaultController<Uint8Array>): Promise<void> | void => {
      const chunk = queue.shift()
      if (chunk !== undefined) return controller.enqueue(chunk)
      if (ending === "ended") return controller.close()
      if (ending === "dropped") return controller.error(socketClosed())
      return new Promise<void>((resolve) => void (wake = resolve)).then(() => pull(controller))
    }
    const encoder = new TextEncoder()
    const response: WireResponse = {
      writeHead: (status, headers = {}) => {
        if (started || over) return
        started = true
        const all = new Headers(pending)
        for (const [name, value] of Object.entries(headers)) all.set(name, String(value))
        const body = bodiless.has(status)
          ? null
          // The client gave the body up: the connection is over for the stand-in.
          : new ReadableStream<Uint8Array>({ pull, cancel: () => close() }, { highWaterMark: 0 })
        resolve(new Response(body, { status, headers: all }))
      },
      setHeader: (name, value) => void (pending[name.toLowerCase()] = value),
      write: (chunk, written) => {
        if (!started) response.writeHead(200)
        if (over) return
        if (chunk !== "") queue.push(encoder.encode(chunk))
        push()
        if (written !== undefined) queueMicrotask(written)
      },
      end: (chunk) => {
        if (!started) response.writeHead(200)
        if (over) return
        if (chunk !== undefined && chunk !== "") queue.push(encoder.encode(chunk))
        ending = "ended"
        push()
        close()
      },
      drop: () => {
        if (over) return
        if (!started) reject(socketClosed())
        ending = "dropped"
        push()
        close()
      },
      headersSent: () => started,
      onClose: (listener) => void (over ? queueMicrotask(listener) : closeListeners.push(listener))
    }
    const headers: Record<string, string> = {}
    for (const [name, value] of Object.entries(request.headers)) headers[name.toLowerCase()] = value
    headers["host"] ??= url.host
    const { body } = request
    const wireRequest: WireRequest = {
      method: request.method,
      url: url.pathname + url.search,
      headers,
      text: () => Promise.resolve(body.byteLength > maxRequestBody ? undefined : new TextDecoder().decode(body))
    }
    signal?.addEventListener("abort", () => {
      if (!started) reject(signal.reason)
      close()
    }, { once: true })
    // Answered on a later turn, as a socket's request would be: never inside the client's own call.
    queueMicrotask(() => handle(wireRequest, response))
  })

/** A `fetch` whose every request is answered by `handle`, a stand-in's, in this process. */
export const inProcessFetch =
  (handle: Handle) => async (input: string | URL, init: RequestInit = {}): Promise<Response> => {
    const request = new Request(input, init)
    return exchange(handle, {
      method: request.method,
      url: new URL(request.url),
      headers: Object.fromEntries(request.headers),
      body: new Uint8Array(await request.arrayBuffer())
    }, init.signal ?? undefined)
  }

/** An `HttpClient` whose every request is answered by `handle`, a stand-in's, in this process. */
export const inProcessClient = (handle: Handle): HttpClient.HttpClient =>
  HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
    (effect) =>
      Effect.flatMap(effect, (request) => {
        const url = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
        if (Either.isLeft(url)) {
          return Effect.fail(new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause: url.left }))
        }
        const body = bodyBytes(request)
        if (body === undefined) {
          return Effect.fail(
            new HttpClientError.RequestError({
              request,
              reason: "Encode",
              cause: new Error(`a ${request.body._tag} body cannot be sent to the stand-in in this process`)
            })
          )
        }
        return Effect.map(
          Effect.tryPromise({
            try: (signal) =>
              exchange(handle, { method: request.method, url: url.right, headers: request.headers, body }, signal),
            catch: (cause) => new HttpClientError.RequestError({ request, reason: "Transport", cause })
          }),
          (answer) => HttpClientResponse.fromWeb(request, answer)
        )
      }),
    Effect.succeed
  )

/** A stand-in in this process, and the clients that reach it. */
export interface InProcessStandIn {
  readonly standIn: StandIn
  readonly client: HttpClient.HttpClient
  readonly fetch: (input: string | URL, init?: RequestInit) => Promise<Response>
}

/**
 * A stand-in in this process: the handle (its `url` on `inProcessOrigin`, under the options' prefix)
 * and the `HttpClient` that reaches it. Nothing to stop: it holds no socket, and is gone with the last
 * reference to it.
 */
export const startInProcess = (
  options: StandInOptions
): Effect.Effect<InProcessStandIn, Error> =>
  Effect.map(
    Effect.tryPromise({
      try: () => assemble(options),
      catch: (error) => error instanceof Error ? error : new Error(String(error))
    }),
    ({ handle, standIn }) => ({
      standIn: standIn(inProcessOrigin),
      client: inProcessClient(handle),
      fetch: inProcessFetch(handle)
    })
  )
