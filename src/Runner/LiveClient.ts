/**
 * Obtaining turns from a live app over HTTP, as a signed-in user: ask the question in a new
 * conversation, read the answer and the trace, and delete the conversation when the case's scope
 * closes — after grading, after a failure, or when the run is interrupted.
 *
 * The session cookie is sent only to the app's own origin: a redirect elsewhere is not followed.
 */
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import { Data, Duration, Effect, Either, Fiber, Option, Redacted, Ref, type Schema, type Scope, Stream } from "effect"
import type { Case } from "../Schema/Case.js"
import { decodeValue, type FastDecoder } from "../Schema/Decode.js"
import { SessionRejected, TurnError } from "../Schema/Errors.js"
import { AskIds, Conversation, fillRoute, type Route } from "../Schema/Protocol.js"
import type { Routes } from "../Schema/Surface.js"
import { fastTurnTrace, type Turn, TurnTrace } from "../Schema/Trace.js"

/** How to reach the app and how patient to be with it. */
export interface LiveConfig {
  /** The app's base URL; a path in it prefixes every route. */
  readonly baseUrl: URL
  /** The session cookie, `name=value`. */
  readonly cookie: Redacted.Redacted<string>
  /** Route templates (the catalog's, over the defaults). */
  readonly routes: Required<Routes>
  /** Bounds obtaining one turn: the ask and the reads, retries included. */
  readonly timeout: Duration.Duration
  /** Bounds deleting one conversation, retries included. */
  readonly deleteTimeout: Duration.Duration
  /** Leave conversations in the account instead of deleting them. */
  readonly keep: boolean
  /** Retries of a retryable answer (default 4). */
  readonly retries?: number
  /** The first retry's delay, doubled for each further retry (default 250 ms). */
  readonly retryDelay?: Duration.Duration
  /** The largest body read from any route (default 32 MiB). */
  readonly maxBodyBytes?: number
  /** How long an ask cut short may still take to say which conversation it opened (default 5 s). */
  readonly askGrace?: Duration.Duration
}

/** A conversation left in the account: kept on request, or one whose delete failed (with why). */
export interface LeftConversation {
  readonly caseId: string
  readonly conversationId: string
  readonly reason?: string
}

/** The conversations a live run left behind. */
export interface LeftBehind {
  readonly kept: ReadonlyArray<LeftConversation>
  readonly undeleted: ReadonlyArray<LeftConversation>
}

const maxRedirects = 5
const maxRetryAfter = Duration.seconds(60)

/** `2s`, `1500ms`. */
export const showDuration = (duration: Duration.Duration): string => {
  const ms = Duration.toMillis(duration)
  return ms % 1000 === 0 ? `${ms / 1000}s` : `${ms}ms`
}

/** The delay a `Retry-After` header asks for (seconds or an HTTP date), if it is readable. */
export const retryAfter = (header: string | undefined, now: number): Option.Option<Duration.Duration> => {
  if (header === undefined) return Option.none()
  const trimmed = header.trim()
  const millis = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now
  return Number.isFinite(millis) ? Option.some(Duration.min(Duration.millis(Math.max(0, millis)), maxRetryAfter)) : Option.none()
}

const codeOf = (error: unknown, depth = 0): string | undefined => {
  if (depth > 5 || error === null || typeof error !== "object") return undefined
  const code = (error as { code?: unknown }).code
  return typeof code === "string" ? code : codeOf((error as { cause?: unknown }).cause, depth + 1)
}

/** A transport failure in a few words, never with request details. */
const describeTransport = (error: HttpClientError): string => {
  const code = codeOf(error.cause)
  switch (code) {
    case "ECONNREFUSED":
      return "connection refused"
    case "ECONNRESET":
    case "UND_ERR_SOCKET":
    case "EPIPE":
      return "connection reset"
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return "host not found"
    case "UND_ERR_BODY_TIMEOUT":
    case "UND_ERR_HEADERS_TIMEOUT":
      return "the app stopped answering"
    default:
      return code === undefined ? "connection failed" : `connection failed (${code})`
  }
}

type Failure = TurnError | SessionRejected

/** What retrying looks at in an answer. */
interface Answered {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
}

/** An answer: a 2xx with its body still to read, or any other status with its body read away. */
interface Sent extends Answered {
  readonly response: HttpClientResponse.HttpClientResponse | undefined
}

/** A request that got no answer (refused, reset, dropped); retried where that is safe. */
class TransportFailure extends Data.TaggedError("TransportFailure")<{ readonly reason: string }> {}

/**
 * Runs cleanup to its end in a fiber of its own, bounded by `limit`: the interruption that closes a
 * case's scope (a timeout, Ctrl-C, a stopped run) must not cut a delete short, and only the limit can.
 */
const detached = <A, E>(effect: Effect.Effect<A, E>, limit: Duration.Duration): Effect.Effect<Option.Option<A>, E> =>
  Effect.flatMap(Effect.forkDaemon(Effect.timeoutOption(Effect.interruptible(effect), limit)), Fiber.join)

const failure = (route: Route, reason: string): TurnError => new TurnError({ reason: `${route}: ${reason}` })

/** A body that broke off, in the words a case's error uses. */
const brokeOff = (error: HttpClientError) =>
  new TransportFailure({ reason: `${describeTransport(error)} while reading the answer` })

/** A timeout names what was being retried when time ran out, or that nothing answered. */
const timedOut = (route: Route, limit: Duration.Duration, retrying: Option.Option<string>): TurnError =>
  Option.match(retrying, {
    onNone: () => failure(route, `timed out after ${showDuration(limit)}`),
    onSome: (why) => failure(route, `${why} (retried until the ${showDuration(limit)} timeout)`)
  })

/** Builds the live client's operations over an HttpClient. */
export const makeLive = (config: LiveConfig) =>
  Effect.gen(function*() {
    // No spans: nothing here reads them, and making one per request costs more than the request.
    const client = (yield* HttpClient.HttpClient).pipe(
      HttpClient.withTracerPropagation(false),
      HttpClient.withTracerDisabledWhen(() => true)
    )
    const origin = config.baseUrl.origin
    const prefix = config.baseUrl.pathname.replace(/\/+$/, "")
    const retries = config.retries ?? 4
    const retryDelay = config.retryDelay ?? Duration.millis(250)
    const maxBody = config.maxBodyBytes ?? 32 * 1024 * 1024
    const askGrace = config.askGrace ?? Duration.seconds(5)
    const tooLarge = (route: Route) => failure(route, `body over ${Math.round(maxBody / 1024 / 1024)} MiB`)
    const left = yield* Ref.make<LeftBehind>({ kept: [], undeleted: [] })

    const urlOf = (path: string): URL => new URL(`${prefix}${path.startsWith("/") ? path : `/${path}`}`, origin)

    /** One request, following same-origin redirects; the cookie goes to the app's origin only. */
    const send = (
      route: Route,
      method: "GET" | "POST" | "DELETE",
      path: string,
      body?: unknown
    ): Effect.Effect<Sent, Failure | TransportFailure> =>
      Effect.gen(function*() {
        let url = urlOf(path)
        for (let hop = 0;; hop++) {
          let request = HttpClientRequest.make(method)(url).pipe(
            HttpClientRequest.setHeader("cookie", Redacted.value(config.cookie)),
            HttpClientRequest.acceptJson
          )
          if (route === "ask") request = HttpClientRequest.setHeader(request, "accept", "application/json, text/event-stream")
          if (body !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, body)
          const response = yield* client.execute(request).pipe(
            Effect.mapError((error) => new TransportFailure({ reason: describeTransport(error) }))
          )
          const { headers, status } = response
          if (status >= 200 && status < 300) return { status, headers, response }
          // A body nobody reads would hold its connection open: every other answer is read away.
          yield* discard(route, response)
          if (status === 401) return yield* new SessionRejected()
          const location = headers["location"]
          if (status < 300 || status >= 400 || location === undefined) return { status, headers, response: undefined }
          const target = yield* Effect.try({
            try: () => new URL(location, url),
            catch: () => failure(route, `HTTP ${response.status} to an unreadable location`)
          })
          if (target.origin !== origin) {
            return yield* failure(route, `redirected to another origin (${target.origin}); not followed`)
          }
          if (method === "POST" && response.status !== 307 && response.status !== 308) {
            return yield* failure(route, `HTTP ${response.status} redirect; a question is not re-posted`)
          }
          if (hop >= maxRedirects) return yield* failure(route, `more than ${maxRedirects} redirects`)
          url = target
        }
      })

    /**
     * Retries retryable answers with exponential backoff, honouring `Retry-After`, and — when
     * `retryTransport` — a connection that failed. Any other failure ends the attempts at once.
     */
    const withRetries = <A extends Answered>(
      route: Route,
      retryable: ReadonlyArray<number>,
      attempt: Effect.Effect<A, Failure | TransportFailure>,
      retryTransport: boolean,
      retrying: Ref.Ref<Option.Option<string>>
    ): Effect.Effect<A, Failure> => {
      const once = attempt.pipe(
        Effect.map(Either.right),
        Effect.catchTag("TransportFailure", (error) => Effect.succeed(Either.left(error)))
      )
      const loop = (n: number): Effect.Effect<A, Failure> =>
        Effect.flatMap(once, (outcome) =>
          Effect.gen(function*() {
            const backoff = Duration.times(retryDelay, 2 ** n)
            if (n < retries && Either.isLeft(outcome) && retryTransport) {
              yield* Ref.set(retrying, Option.some(outcome.left.reason))
              yield* Effect.sleep(backoff)
              return yield* loop(n + 1)
            }
            if (n < retries && Either.isRight(outcome) && retryable.includes(outcome.right.status)) {
              yield* Ref.set(retrying, Option.some(`HTTP ${outcome.right.status}`))
              const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
              const asked = retryAfter(outcome.right.headers["retry-after"], now)
              yield* Effect.sleep(Option.match(asked, { onNone: () => backoff, onSome: (d) => Duration.max(d, backoff) }))
              return yield* loop(n + 1)
            }
            return yield* Either.match(outcome, {
              onLeft: (error) => Effect.fail(failure(route, error.reason)),
              onRight: Effect.succeed
            })
          }))
      return Effect.zipRight(Ref.set(retrying, Option.none()), loop(0))
    }

    /** The body as a stream of text, failing past `maxBody` bytes. */
    const bodyText = (
      route: Route,
      response: HttpClientResponse.HttpClientResponse
    ): Stream.Stream<string, TurnError | TransportFailure> => {
      let bytes = 0
      return response.stream.pipe(
        Stream.mapError(brokeOff),
        Stream.tap((chunk) => {
          bytes += chunk.byteLength
          return bytes > maxBody ? Effect.fail(tooLarge(route)) : Effect.void
        }),
        Stream.decodeText()
      )
    }

    /** The body as text, at most `maxBody` bytes. */
    const readText = (
      route: Route,
      response: HttpClientResponse.HttpClientResponse
    ): Effect.Effect<string, TurnError | TransportFailure> => {
      // A declared length is checked up front and the body read in one piece; only a body of unknown
      // length is read as a stream, counting its bytes.
      const declared = Number(response.headers["content-length"])
      if (!Number.isInteger(declared)) return Stream.mkString(bodyText(route, response))
      if (declared > maxBody) return Effect.fail(tooLarge(route))
      return Effect.mapError(response.text, brokeOff)
    }

    /** Reads a body nobody needs to its end, so its connection can serve the next request. */
    const discard = (route: Route, response: HttpClientResponse.HttpClientResponse) =>
      Effect.ignore(readText(route, response))

    /** Parses and decodes a JSON body (trying `fast` first); a problem names the route and the JSON path. */
    const decodeBody = <A, I>(
      route: Route,
      text: string,
      schema: Schema.Schema<A, I>,
      fast?: FastDecoder<A>
    ): Effect.Effect<A, TurnError> => {
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        return Effect.fail(failure(route, "not JSON"))
      }
      const decoded = fast?.(value)
      if (decoded !== undefined) return Effect.succeed(decoded)
      return Either.mapLeft(decodeValue(schema, route, value, "lenient"), (error) => failure(route, error.summary))
    }

    const requireOk = <A extends Answered>(route: Route, answered: A) =>
      answered.status >= 200 && answered.status < 300
        ? Effect.succeed(answered)
        : Effect.fail(failure(route, `HTTP ${answered.status}`))

    /** Asks the question; the conversation id is recorded in `opened` the moment it is known. */
    const ask = (
      endpoint: string,
      question: string,
      opened: Ref.Ref<Option.Option<string>>,
      retrying: Ref.Ref<Option.Option<string>>
    ) =>
      Effect.gen(function*() {
        const response = yield* withRetries(
          "ask",
          [429, 503],
          send("ask", "POST", endpoint, { message: question }),
          false,
          retrying
        ).pipe(
          Effect.flatMap((sent) =>
            sent.response === undefined ? Effect.fail(failure("ask", `HTTP ${sent.status}`)) : Effect.succeed(sent.response)
          )
        )
        let conversationId = response.headers["x-conversation-id"]
        let turnId = response.headers["x-turn-id"]
        const learn = (ids: typeof AskIds.Type) =>
          Effect.gen(function*() {
            if (conversationId === undefined && ids.conversationId !== undefined && ids.conversationId !== "") {
              conversationId = ids.conversationId
              yield* Ref.set(opened, Option.some(ids.conversationId))
            }
            if (turnId === undefined && ids.turnId !== undefined && ids.turnId !== "") turnId = ids.turnId
          })
        if (conversationId !== undefined) yield* Ref.set(opened, Option.some(conversationId))
        const fromJson = (text: string) => {
          try {
            const value: unknown = JSON.parse(text)
            return Either.getOrUndefined(decodeValue(AskIds, "ask", value, "lenient"))
          } catch {
            return undefined
          }
        }
        // The question is not re-asked when its answer breaks off: that would open a second conversation.
        const body = (response.headers["content-type"] ?? "").startsWith("text/event-stream")
          ? bodyText("ask", response).pipe(
            Stream.splitLines,
            Stream.runForEach((line) => {
              if (!line.startsWith("data:")) return Effect.void
              const ids = fromJson(line.slice(5).trim())
              return ids === undefined ? Effect.void : learn(ids)
            })
          )
          : Effect.flatMap(readText("ask", response), (text) => {
            const ids = fromJson(text)
            if (ids !== undefined) return learn(ids)
            // Ids in headers make any body acceptable (plain text, say); without them it had to be JSON.
            return conversationId === undefined ? Effect.fail(failure("ask", "not JSON")) : Effect.void
          })
        yield* body.pipe(Effect.catchTag("TransportFailure", (error) => failure("ask", error.reason)))
        if (conversationId === undefined) return yield* failure("ask", "the answer carries no conversationId")
        if (turnId === undefined) return yield* failure("ask", "the answer carries no turnId")
        return { conversationId, turnId }
      })

    /** Reads a route's body as text; a dropped connection, even half-way through the body, is retried. */
    const readBody = (
      route: "conversation" | "trace" | "ratings",
      path: string,
      retrying: Ref.Ref<Option.Option<string>>
    ): Effect.Effect<string, Failure> => {
      const fetch = Effect.flatMap(send(route, "GET", path), ({ headers, response, status }) =>
        response === undefined
          ? Effect.succeed({ status, headers, text: "" })
          : Effect.map(readText(route, response), (text) => ({ status, headers, text })))
      return withRetries(route, [429, 502, 503, 504], fetch, true, retrying).pipe(
        Effect.flatMap((answered) => requireOk(route, answered)),
        Effect.map((answered) => answered.text)
      )
    }

    /** Reads a route's JSON. */
    const read = <A, I>(
      route: "conversation" | "trace",
      template: string,
      ids: { conversationId: string; turnId: string },
      schema: Schema.Schema<A, I>,
      retrying: Ref.Ref<Option.Option<string>>,
      fast?: FastDecoder<A>
    ) =>
      Effect.flatMap(readBody(route, fillRoute(template, ids), retrying), (text) => decodeBody(route, text, schema, fast))

    /**
     * Reads a route's body as text, as a case's reads do (same-origin redirects only, retries, the
     * body limit), bounded by the timeout: for commands that read the app without asking it anything.
     */
    const get = (route: "conversation" | "trace" | "ratings", path: string): Effect.Effect<string, Failure> =>
      Effect.flatMap(Ref.make<Option.Option<string>>(Option.none()), (retrying) =>
        readBody(route, path, retrying).pipe(
          Effect.timeout(config.timeout),
          Effect.catchTag("TimeoutException", () =>
            Effect.flatMap(Ref.get(retrying), (why) => Effect.fail(timedOut(route, config.timeout, why))))
        ))

    /** Deletes a conversation; 404 means it is already gone. Never fails: a failure is recorded. */
    const remove = (testCase: Case, conversationId: string): Effect.Effect<void> =>
      Effect.gen(function*() {
        const retrying = yield* Ref.make<Option.Option<string>>(Option.none())
        const attempt = withRetries(
          "delete",
          [429, 502, 503, 504],
          send("delete", "DELETE", fillRoute(config.routes.delete, { conversationId })),
          true,
          retrying
        ).pipe(
          Effect.flatMap(({ response, status }) =>
            response !== undefined
              ? discard("delete", response)
              : status === 404
              ? Effect.void
              : Effect.fail(failure("delete", `HTTP ${status}`))
          )
        )
        yield* detached(attempt, config.deleteTimeout).pipe(
          Effect.flatMap(Option.match({
            onSome: Effect.succeed,
            onNone: () => Effect.flatMap(Ref.get(retrying), (why) => Effect.fail(timedOut("delete", config.deleteTimeout, why)))
          })),
          Effect.catchAll((error) =>
            Ref.update(left, (l) => ({
              ...l,
              undeleted: [...l.undeleted, { caseId: testCase.id, conversationId, reason: error.message }]
            }))
          )
        )
      })

    const obtain = (testCase: Case, endpoint: string): Effect.Effect<Turn, Failure, Scope.Scope> =>
      Effect.gen(function*() {
        const opened = yield* Ref.make<Option.Option<string>>(Option.none())
        const retrying = yield* Ref.make<Option.Option<string>>(Option.none())
        // The ask runs in a fiber of its own. When the case is cut short mid-ask (a timeout, Ctrl-C, a
        // rejected session), the app may already have opened the conversation: the ask gets a short
        // grace to say which, so that it can be deleted too.
        const asking = yield* Effect.uninterruptible(
          Effect.gen(function*() {
            const fiber = yield* Effect.forkDaemon(Effect.interruptible(ask(endpoint, testCase.question, opened, retrying)))
            yield* Effect.addFinalizer(() =>
              Effect.gen(function*() {
                if (Option.isNone(yield* Fiber.poll(fiber)) && Option.isNone(yield* Ref.get(opened))) {
                  yield* detached(Fiber.await(fiber), askGrace)
                  yield* Fiber.interrupt(fiber)
                }
                const id = yield* Ref.get(opened)
                if (Option.isNone(id)) return
                yield* config.keep
                  ? Ref.update(left, (l) => ({ ...l, kept: [...l.kept, { caseId: testCase.id, conversationId: id.value }] }))
                  : remove(testCase, id.value)
              })
            )
            return fiber
          })
        )
        const stage = yield* Ref.make<Route>("ask")
        const turn = Effect.gen(function*() {
          const ids = yield* Fiber.join(asking)
          yield* Ref.set(stage, "conversation")
          const conversation = yield* read("conversation", config.routes.conversation, ids, Conversation, retrying)
          yield* Ref.set(stage, "trace")
          const trace = yield* read("trace", config.routes.trace, ids, TurnTrace, retrying, fastTurnTrace)
          if (trace.turnId !== ids.turnId) {
            return yield* failure("trace", `is for turn ${JSON.stringify(trace.turnId)}, not ${JSON.stringify(ids.turnId)}`)
          }
          const assistant = conversation.messages.filter((m) => m.role === "assistant")
          const message = assistant.some((m) => m.turnId !== undefined && m.turnId !== null)
            ? assistant.find((m) => m.turnId === ids.turnId)
            : assistant[assistant.length - 1]
          if (message === undefined) {
            return yield* failure("conversation", `no assistant message for turn ${JSON.stringify(ids.turnId)}`)
          }
          return { answer: message.content, trace }
        })
        return yield* turn.pipe(
          Effect.timeout(config.timeout),
          Effect.catchTag("TimeoutException", () =>
            Effect.flatMap(Effect.zip(Ref.get(stage), Ref.get(retrying)), ([route, why]) =>
              Effect.fail(timedOut(route, config.timeout, why))))
        )
      })

    return {
      obtain,
      get,
      leftBehind: Ref.get(left)
    }
  })
