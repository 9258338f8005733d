/**
 * The HTTP client of live runs: an `HttpClient` on undici's own `request`, which keeps connections
 * alive. `@effect/platform-node`'s undici client (`NodeHttpClient.layerUndici`) allocates several times
 * what undici does per request — its response builds its headers anew at every read and reads a body
 * through a cached effect run on a fiber of its own — and a live run makes four requests a case. This
 * one answers with a response that makes its headers once and reads a body straight from undici's —
 * for the transport, a chunk at a time without a Stream (`Body.ts`). Redirects are never followed here
 * (the transport follows the same-origin ones itself), nothing is timed out here (the run's own
 * timeouts are), no span is made (`makeWith` makes none, unlike `make`), and an interrupted
 * request or read is aborted at once. Its own module, so that commands that never go on the network do
 * not load it.
 */
import {
  Cookies,
  Headers,
  HttpClient,
  HttpClientError,
  type HttpClientRequest,
  HttpClientResponse,
  HttpIncomingMessage,
  UrlParams
} from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import * as NodeStream from "@effect/platform-node/NodeStream"
import type { Dispatcher } from "@effect/platform-node/Undici"
import type { HttpBody } from "@effect/platform/HttpBody"
import { Effect, Either, Inspectable, Layer, Option, type Stream } from "effect"
import { EventEmitter } from "node:events"
import type { Readable } from "node:stream"
import { type Chunks, ChunksTypeId, type HasChunks, readableChunks } from "./Body.js"

/** What undici sends as a request's body. */
type UndiciBody = Exclude<Dispatcher.DispatchOptions["body"], undefined>

/** A request's body as undici takes it; a stream body becomes a Node stream. */
const bodyOf = (body: HttpBody): Effect.Effect<UndiciBody> => {
  switch (body._tag) {
    case "Empty":
      return Effect.succeed(null)
    case "Uint8Array":
      return Effect.succeed(body.body)
    case "Raw":
      return Effect.succeed(body.body as UndiciBody)
    case "FormData":
      return Effect.succeed(body.formData as unknown as UndiciBody)
    case "Stream":
      return NodeStream.toReadable(body.stream) as Effect.Effect<Readable>
  }
}

/** An error that ended a body no one listens to must not end the process: the reader sees it. */
const ignoreError = (): void => {}

/** undici's answer as an `HttpClientResponse`: headers made once, the body read from undici's. */
class UndiciResponse extends Inspectable.Class implements HttpClientResponse.HttpClientResponse, HasChunks {
  readonly [HttpIncomingMessage.TypeId]: HttpIncomingMessage.TypeId = HttpIncomingMessage.TypeId
  readonly [HttpClientResponse.TypeId]: HttpClientResponse.TypeId = HttpClientResponse.TypeId
  readonly status: number
  readonly headers: Headers.Headers
  readonly remoteAddress: Option.Option<string> = Option.none()
  private cachedCookies: Cookies.Cookies | undefined
  // A body is consumed once: each way of reading it keeps its first read, which answers every later one.
  private textBody: Promise<string> | undefined
  private arrayBufferBody: Promise<ArrayBuffer> | undefined
  private formDataBody: Promise<FormData> | undefined

  constructor(readonly request: HttpClientRequest.HttpClientRequest, readonly source: Dispatcher.ResponseData) {
    super()
    this.status = source.statusCode
    this.headers = Headers.fromInput(source.headers)
    source.body.on("error", ignoreError)
  }

  get cookies(): Cookies.Cookies {
    if (this.cachedCookies !== undefined) return this.cachedCookies
    const header = this.source.headers["set-cookie"]
    this.cachedCookies = header === undefined
      ? Cookies.empty
      : Cookies.fromSetCookie(Array.isArray(header) ? header : [header])
    return this.cachedCookies
  }

  private decodeError(cause: unknown): HttpClientError.ResponseError {
    return new HttpClientError.ResponseError({ request: this.request, response: this, reason: "Decode", cause })
  }

  /** What a read of the body (`read()`, made at most once by the caller) answers. */
  private body<A>(read: () => Promise<A>): Effect.Effect<A, HttpClientError.ResponseError> {
    return Effect.async((resume) => {
      read().then((value) => resume(Effect.succeed(value)), (cause) => resume(Effect.fail(this.decodeError(cause))))
      return Effect.sync(() => this.source.body.destroy())
    })
  }

  [ChunksTypeId](): Chunks {
    return readableChunks(this.source.body)
  }

  get stream(): Stream.Stream<Uint8Array, HttpClientError.ResponseError> {
    return NodeStream.fromReadable(() => this.source.body, (cause) => this.decodeError(cause))
  }

  get text(): Effect.Effect<string, HttpClientError.ResponseError> {
    return this.body(() => this.textBody ??= this.source.body.text())
  }

  get json(): Effect.Effect<unknown, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => text === "" ? null : JSON.parse(text) as unknown,
        catch: (cause) => this.decodeError(cause)
      }))
  }

  get urlParamsBody(): Effect.Effect<UrlParams.UrlParams, HttpClientError.ResponseError> {
    return Effect.flatMap(this.text, (text) =>
      Effect.try({
        try: () => UrlParams.fromInput(new URLSearchParams(text)),
        catch: (cause) => this.decodeError(cause)
      }))
  }

  get arrayBuffer(): Effect.Effect<ArrayBuffer, HttpClientError.ResponseError> {
    return this.body(() => this.arrayBufferBody ??= this.source.body.arrayBuffer())
  }

  get formData(): Effect.Effect<FormData, HttpClientError.ResponseError> {
    return this.body(() => this.formDataBody ??= this.source.body.formData() as Promise<FormData>)
  }

  toJSON(): unknown {
    return HttpIncomingMessage.inspect(this, {
      _id: "@effect/platform/HttpClientResponse",
      request: this.request.toJSON(),
      status: this.status
    })
  }
}

/**
 * One request through `dispatcher`. Interrupted before its answer, it is aborted at once: its abort
 * signal is an `EventEmitter`, which undici takes as well as an `AbortSignal` and which costs far less.
 */
const send = (
  dispatcher: Dispatcher,
  request: HttpClientRequest.HttpClientRequest
): Effect.Effect<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError> => {
  const url = UrlParams.makeUrl(request.url, request.urlParams, request.hash)
  if (Either.isLeft(url)) {
    return Effect.fail(new HttpClientError.RequestError({ request, reason: "InvalidUrl", cause: url.left }))
  }
  const { hash, origin, pathname, search } = url.right
  return Effect.flatMap(
    bodyOf(request.body),
    (body) =>
      Effect.async<HttpClientResponse.HttpClientResponse, HttpClientError.RequestError>((resume) => {
        const signal = new EventEmitter()
        dispatcher.request({
          signal,
          method: request.method,
          headers: request.headers,
          origin,
          path: pathname + search + hash,
          body,
          // The run's own timeouts bound a request; undici's would cut a slow stream short.
          headersTimeout: 60 * 60 * 1000,
          bodyTimeout: 0
        }, (cause, data) =>
          resume(
            cause === null
              ? Effect.succeed(new UndiciResponse(request, data))
              : Effect.fail(new HttpClientError.RequestError({ request, reason: "Transport", cause }))
          ))
        return Effect.sync(() => signal.emit("abort"))
      })
  )
}

/**
 * An `HttpClient` sending through `dispatcher`. Built with `makeWith` rather than `make`, which would
 * wrap every response (so that the transport could not read its body a chunk at a time), make an
 * `AbortController` per request and register each response for finalization.
 */
const make = (dispatcher: Dispatcher): HttpClient.HttpClient =>
  HttpClient.makeWith<never, never, HttpClientError.HttpClientError, never>(
    (request) => Effect.flatMap(request, (r) => send(dispatcher, r)),
    Effect.succeed
  )

/** The live runs' HTTP client, on an undici agent of its own that is closed with the layer. */
export const HttpLive: Layer.Layer<HttpClient.HttpClient> = Layer.scoped(
  HttpClient.HttpClient,
  Effect.map(NodeHttpClient.makeDispatcher, make)
)
