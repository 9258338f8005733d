/**
 * The live runs' HTTP client against a server on loopback: what the transport relies on it for — the
 * status and headers, a body read once however often it is asked for, streamed bodies, request bodies,
 * redirects left to the caller, a refused connection's code, and an interrupted request aborted at once.
 */
import { HttpClient, HttpClientRequest } from "@effect/platform"
import { describe, expect, it } from "@effect/vitest"
import { Chunk, Effect, Fiber, Stream } from "effect"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { HttpLive } from "../../src/Runner/Http.js"
import { type Listening, listenOnLoopback } from "../support/loopback.js"

interface Server extends Listening {
  /** Resolves when a request's connection has closed before its answer was sent. */
  readonly abandoned: Promise<void>
}

/** A loopback server answering by `handle`, closed with the scope. */
const serve = (handle: (request: IncomingMessage, response: ServerResponse, body: string) => void) =>
  Effect.acquireRelease(
    Effect.promise(async (): Promise<Server> => {
      let onAbandoned: () => void = () => {}
      const abandoned = new Promise<void>((done) => (onAbandoned = done))
      const server = createServer((request, response) => {
        let body = ""
        request.on("data", (chunk: Buffer) => (body += chunk.toString("utf8")))
        request.on("end", () => handle(request, response, body))
        response.on("close", () => {
          if (!response.writableEnded) onAbandoned()
        })
      })
      return { ...(await listenOnLoopback(server)), abandoned }
    }),
    (server) => Effect.promise(server.close)
  )

describe("HttpLive", () => {
  it.scopedLive("gives the status and headers, and a body read once answers every read of it", () =>
    Effect.gen(function*() {
      const server = yield* serve((_, response) => {
        response.setHeader("set-cookie", ["a=1", "b=2"])
        response.writeHead(201, { "content-type": "application/json", "x-conversation-id": "c1" })
        response.end(JSON.stringify({ ok: true }))
      })
      const client = yield* HttpClient.HttpClient
      const response = yield* client.get(`${server.url}/x`)
      expect(response.status).toBe(201)
      expect(response.headers["x-conversation-id"]).toBe("c1")
      expect(response.headers["set-cookie"]).toBe("a=1, b=2")
      expect(response.cookies.cookies["b"]?.value).toBe("2")
      expect(yield* response.text).toBe(`{"ok":true}`)
      expect(yield* response.text).toBe(`{"ok":true}`)
      expect(yield* response.json).toEqual({ ok: true })
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("sends a request's method, headers and body", () =>
    Effect.gen(function*() {
      const server = yield* serve((request, response, body) => {
        response.writeHead(200, { "content-type": "application/json" })
        const { headers, method, url } = request
        response.end(JSON.stringify({ method, path: url, cookie: headers.cookie, body }))
      })
      const client = yield* HttpClient.HttpClient
      const request = HttpClientRequest.post(`${server.url}/ask?x=1`, { headers: { cookie: "session=s" } }).pipe(
        HttpClientRequest.bodyUnsafeJson({ message: "hello" })
      )
      const echoed = yield* Effect.flatMap(client.execute(request), (response) => response.json)
      expect(echoed).toEqual({ method: "POST", path: "/ask?x=1", cookie: "session=s", body: `{"message":"hello"}` })
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("streams a body as it arrives", () =>
    Effect.gen(function*() {
      const server = yield* serve((_, response) => {
        response.writeHead(200, { "content-type": "text/event-stream" })
        response.write("data: 1\n\n")
        setTimeout(() => response.end("data: 2\n\n"), 20)
      })
      const client = yield* HttpClient.HttpClient
      const response = yield* client.get(server.url)
      const text = yield* response.stream.pipe(Stream.decodeText(), Stream.runCollect, Effect.map(Chunk.join("")))
      expect(text).toBe("data: 1\n\ndata: 2\n\n")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("answers a redirect as it is, for the transport to follow or refuse", () =>
    Effect.gen(function*() {
      const server = yield* serve((_, response) => {
        response.writeHead(302, { location: "http://elsewhere.invalid/" })
        response.end()
      })
      const client = yield* HttpClient.HttpClient
      const response = yield* client.get(server.url)
      expect(response.status).toBe(302)
      expect(response.headers["location"]).toBe("http://elsewhere.invalid/")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("fails a refused connection as a transport error carrying the code", () =>
    Effect.gen(function*() {
      const server = yield* serve(() => {})
      yield* Effect.promise(server.close)
      const client = yield* HttpClient.HttpClient
      const error = yield* Effect.flip(client.get(server.url))
      expect(error._tag).toBe("RequestError")
      expect(error.reason).toBe("Transport")
      expect((error.cause as { code?: string }).code).toBe("ECONNREFUSED")
    }).pipe(Effect.provide(HttpLive)))

  it.scopedLive("aborts a request at once when its fiber is interrupted", () =>
    Effect.gen(function*() {
      let onReached = (): void => {}
      const reached = new Promise<void>((done) => (onReached = done))
      // The server never answers: only an abort ends the request, so its socket closing proves one.
      const server = yield* serve(() => onReached())
      const client = yield* HttpClient.HttpClient
      const fiber = yield* Effect.fork(client.get(server.url))
      yield* Effect.promise(() => reached)
      yield* Fiber.interrupt(fiber)
      yield* Effect.promise(() => server.abandoned)
    }).pipe(Effect.provide(HttpLive)))
})
