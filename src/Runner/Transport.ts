/**
 * The transport every live protocol speaks through: one HTTP client with the policies of
 * `HttpPolicy.ts` stacked over it (the session to the app's origin only, same-origin redirects, a
 * rejected session stopping the run, the retry schedule), the app's base URL, and body and line limits.
 * It knows nothing of any protocol's routes or bodies; a protocol (`Protocols/NAME/`) says what to send
 * and reads what comes back.
 */
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import {
  Data,
  Deferred,
  Duration,
  Effect,
  Either,
  Exit,
  Fiber,
  FiberRef,
  Option,
  Redacted,
  Ref,
  Schedule,
  type Schema
} from "effect"
import { decodeValue, type FastDecoder } from "../Schema/Decode.js"
import { FailedRequest, RunStopped, TurnError } from "../Schema/Errors.js"
import { placeRoute, type Route, routeBaseOf } from "../Schema/Protocol.js"
import { showMillis } from "../Schema/Shown.js"
import * as Body from "./Body.js"
import type { EventLimits, ReadFailures } from "./Body.js"
import {
  type Auth,
  rejectedSessionStops,
  type Retried,
  retrySchedule,
  sameOriginRedirects,
  sessionForOrigin
} from "./HttpPolicy.js"

export { type Auth, retryAfter } from "./HttpPolicy.js"

/**
 * The name a request goes by in failures: a route of this product's protocol, or `thread` and `state`
 * (a LangGraph server's thread and its state).
 */
export type RouteName = Route | "thread" | "state" | "decide"

/** A session cookie as the run's auth. */
export const cookieAuth = (cookie: Redacted.Redacted<string>, source?: string): Auth => ({
  header: "cookie",
  value: cookie,
  ...(source === undefined ? {} : { source })
})

/**
 * What identifies the session in the journal: the cookie itself (as runs always have), or the header
 * with its name. Never written anywhere: the journal keeps only a salted hash of it.
 */
export const sessionOf = (auth: Auth): Redacted.Redacted<string> =>
  auth.header === "cookie" ? auth.value : Redacted.make(`${auth.header}: ${Redacted.value(auth.value)}`)

/** How to reach the app and how patient to be with it. */
export interface TransportConfig {
  /** The app's base URL; a path in it prefixes every route. */
  readonly baseUrl: URL
  readonly auth: Auth
  /** Retries of a retryable answer (default 4). */
  readonly retries?: number | undefined
  /** The first retry's delay, doubled for each further retry (default 250 ms). */
  readonly retryDelay?: Duration.Duration | undefined
  /** The largest body read from any route (default 32 MiB). */
  readonly maxBodyBytes?: number | undefined
  /** The longest line of an event stream (default 8 MiB). */
  readonly maxLineBytes?: number | undefined
  /** The most data one event of an event stream may hold, its lines joined (default: `maxLineBytes`). */
  readonly maxEventBytes?: number | undefined
}

/** A failure of a case (`TurnError`) or of the whole run (`RunStopped`). */
export type Failure = TurnError | RunStopped

/** What retrying looks at in an answer. */
export interface Answered {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
}

/** An answer: a 2xx with its body still to read, or any other status with its body read away (or kept in `text`). */
export interface Sent extends Answered {
  readonly response: HttpClientResponse.HttpClientResponse | undefined
  readonly text?: string
}

/**
 * A request that got no answer (refused, reset, dropped); retried where that is safe. `reached` says
 * whether the app may have received it (false for a refused connection or a host not found); `code`
 * is the system's code for what failed, when it gave one.
 */
export class TransportFailure extends Data.TaggedError("TransportFailure")<{
  readonly reason: string
  readonly reached: boolean
  readonly code?: string | undefined
}> {}

/** How a delete ended: the conversation is gone (deleted now, or already), or why not. */
export type Deleted = Either.Either<"deleted" | "already gone", string>

/** Where an ask is, for deciding what cutting it short may leave behind. */
export type AskPhase = "waiting" | "sending" | "sleeping" | "reading" | "done"

/** A retry that sleeps stops at once when `stopping` completes; `phase` is told it sleeps. */
export interface Sleeping {
  readonly stopping: Deferred.Deferred<void>
  readonly phase: Ref.Ref<AskPhase>
}

/** How a request is retried (`withRetries`). */
export interface Retrying {
  /** The route, which a failure names. */
  readonly route: RouteName
  /** The statuses that are retried. */
  readonly statuses: ReadonlyArray<number>
  /** Whether a request that got no answer is retried: only where asking twice is harmless. */
  readonly unanswered: boolean
  /** Set to what is being retried, for a timeout's message. */
  readonly retrying: Ref.Ref<Option.Option<string>>
  /** Stops a sleep before a retry at once, and is told of it. */
  readonly sleeping?: Sleeping | undefined
}

/** What a request sends besides its method and path. */
export interface SendOptions {
  /** A JSON body. */
  readonly body?: unknown
  /** The `accept` header (default `application/json`). */
  readonly accept?: string
  /** Read (up to a bound) the body of an answer other than 2xx into `text`, to look for ids it names. */
  readonly keepErrorBody?: boolean
}

const maxRedirects = 5
/** The largest error body an ask reads, looking for the conversation it may name. */
const maxErrorBody = 1024 * 1024

/** A limit (a timeout) exactly as it was set: `2s`, `1500ms`, `120s`. */
export const showLimit = (duration: Duration.Duration): string => showMillis(Duration.toMillis(duration))

const codeOf = (error: unknown, depth = 0): string | undefined => {
  if (depth > 5 || error === null || typeof error !== "object") return undefined
  const code = (error as { code?: unknown }).code
  return typeof code === "string" ? code : codeOf((error as { cause?: unknown }).cause, depth + 1)
}

/** Whether an error code is one of TLS: the connection was made but never secured. */
export const isTls = (code: string): boolean =>
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|EPROTO$|HOSTNAME_MISMATCH)/
    .test(code)

/** The TLS codes of a handshake answered in plain HTTP: the app runs, but on http. */
const plainHttpCodes: ReadonlySet<string> = new Set([
  "ERR_SSL_WRONG_VERSION_NUMBER",
  "ERR_SSL_HTTP_REQUEST",
  "ERR_SSL_PACKET_LENGTH_TOO_LONG",
  "EPROTO"
])

/** Whether an error code says a TLS handshake was answered in plain HTTP. */
export const isPlainHttp = (code: string | undefined): boolean => code !== undefined && plainHttpCodes.has(code)

/** A transport failure (an `HttpClientError`, or what broke a body off) in a few words, never with request details. */
const describeTransport = (error: unknown): string => {
  const code = codeOf(error)
  if (code !== undefined && isTls(code)) return `TLS failed (${code})`
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

/** Codes of a request that never reached the app: nothing was asked of it. */
export const isUnreached = (code: string | undefined): boolean =>
  code !== undefined && (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN" || isTls(code))

/** An id quoted for a message, clipped (the message is made inert where it is printed). */
export { quoteId } from "../Schema/Shown.js"

/**
 * An id the app named that no request is made with (`idProblem` says why): a conversation's, with
 * where the answer gave it, or a turn's.
 */
export const refusedId = (idOf: "conversation" | "turn", id: string, why: string, where?: string): TurnError =>
  new TurnError({ reason: "id-refused", route: "ask", idOf, id, where, detail: why })

/**
 * A header value as text: headers arrive as one character per byte, so one holding UTF-8 is decoded,
 * and bytes that are not UTF-8 become U+FFFD (which `idProblem` refuses).
 */
export const headerText = (value: string | undefined): string | undefined => {
  if (value === undefined || /^[\u0000-\u007f]*$/.test(value)) return value
  if (/[^\u0000-\u00ff]/.test(value)) return value
  return new TextDecoder("utf-8").decode(Buffer.from(value, "latin1"))
}

/**
 * Runs cleanup to its end in a fiber of its own, bounded by `limit` on the Clock: the interruption that
 * closes a case's scope (a timeout, Ctrl-C, a stopped run) must not cut a delete short, and only the
 * limit can. None when the limit cut it short. The cleanup's fiber starts at once, the limit's timer
 * beside it, so that a delete is sent within the step that starts it, before its case's worker asks again.
 */
export const detached = <A, E>(
  effect: Effect.Effect<A, E>,
  limit: Duration.Duration
): Effect.Effect<Option.Option<A>, E> =>
  Effect.flatMap(
    Effect.uninterruptible(Effect.flatMap(Effect.forkDaemon(Effect.interruptible(effect)), (fiber) => {
      const late = { now: false }
      const cut = Effect.zipRight(Effect.sync(() => (late.now = true)), Fiber.interruptFork(fiber))
      return Effect.map(Effect.forkDaemon(Effect.zipRight(Effect.sleep(limit), cut)), (timer) => {
        fiber.addObserver(() => timer.unsafeInterruptAsFork(fiber.id()))
        return { fiber, late }
      })
    })),
    ({ fiber, late }) =>
      Effect.flatMap(Fiber.await(fiber), (exit) =>
        Exit.isSuccess(exit)
          ? Effect.succeed(Option.some(exit.value))
          : late.now && Exit.isInterrupted(exit)
          ? Effect.succeed(Option.none())
          : Effect.failCause(exit.cause))
  )

/**
 * An effect run with tracing off: no span per request (nothing here reads them, and making one costs
 * more than the request) and so no trace headers sent. The live client's fibers run with tracing off
 * already, and pay one check here; any other caller pays for turning it off.
 */
export const withoutSpans = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.withFiberRuntime((fiber) =>
    fiber.getFiberRef(FiberRef.currentTracerEnabled) ? Effect.withTracerEnabled(effect, false) : effect
  )

/** An answer at a route the protocol cannot read as what it needed, in a few words: `route: detail`. */
export const failure = (route: RouteName, detail: string): TurnError => new TurnError({ reason: "wire", route, detail })

/** A request at a route that got no answer, in the transport's words. */
export const unreachable = (route: RouteName, error: TransportFailure): TurnError =>
  new TurnError({ reason: "unreachable", route, detail: error.reason, code: error.code })

/** An answer at a route of a status other than 2xx. */
export const httpStatus = (route: RouteName, status: number): TurnError =>
  new TurnError({ reason: "status", route, status })

/** A body at a route that is not JSON; `within` names the answer it was (`search`). */
export const notJson = (route: RouteName, within?: string): TurnError =>
  new TurnError({ reason: "not-json", route, within })

/** An event of an event stream at a route, by index, that is not JSON. */
export const eventNotJson = (route: RouteName, event: number): TurnError =>
  new TurnError({ reason: "not-json", route, event })

/**
 * A path no request is made to: it would leave the app's origin or the base URL's path (`placeRoute`
 * says why); `what` names where the path came from (`path`, `endpoint`, `delete route`).
 */
export const refusedPath = (route: RouteName, what: string, path: string, why: string): TurnError =>
  new TurnError({ reason: "path-refused", route, what, path, detail: why })

/** Whether a content type is a web page's: what a sign-in redirect or a wrong route serves. */
export const isWebPage = (contentType: string): boolean =>
  /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(contentType)

/** A web page where the protocol was expected: the route is wrong, or the session is not signed in. */
export const webPage = (route: RouteName, status: number, url: string): TurnError =>
  new TurnError({ reason: "web-page", route, status, url })

/** A redirect not followed, and why. */
const notFollowed = (route: RouteName, why: string): TurnError =>
  new TurnError({ reason: "redirect", route, detail: why })

/** A body that broke off, in the words a case's error uses. */
const brokeOff = (error: unknown) =>
  new TransportFailure({
    reason: `${describeTransport(error)} while reading the answer`,
    reached: true,
    code: codeOf(error)
  })

/** A timeout names what was being retried when time ran out, or that nothing answered. */
export const timedOut = (route: RouteName, limit: Duration.Duration, retrying: Option.Option<string>): TurnError =>
  new TurnError({
    reason: "timed-out",
    route,
    limit: Duration.toMillis(limit),
    retrying: Option.getOrUndefined(retrying)
  })

/** A read's text. */
const textOf = (read: { readonly text: string }): string => read.text

/** Whether a response is an event stream. */
export const isEventStream = (response: Answered): boolean =>
  (response.headers["content-type"] ?? "").startsWith("text/event-stream")

/** The statuses a read (or a delete) retries. */
export const safeRetry: ReadonlyArray<number> = [429, 502, 503, 504]

/** The transport's operations. */
export type Transport = Effect.Effect.Success<ReturnType<typeof makeTransport>>

/** Builds the transport over an HttpClient. */
export const makeTransport = (config: TransportConfig) =>
  Effect.gen(function*() {
    const client = yield* HttpClient.HttpClient
    const base = routeBaseOf(config.baseUrl)
    const { origin, prefix } = base
    const retries = config.retries ?? 4
    const retryDelay = config.retryDelay ?? Duration.millis(250)
    const maxBody = config.maxBodyBytes ?? 32 * 1024 * 1024
    const maxLine = config.maxLineBytes ?? 8 * 1024 * 1024
    const maxEvent = config.maxEventBytes ?? maxLine
    const schedule = retrySchedule(retries, retryDelay)
    // Whether any request of the run has been answered: until one is, an app that cannot be reached
    // at all stops the run instead of failing case after case.
    let connected = false

    /** The URL of a path (which may carry a query), under the base URL's path. */
    const urlOf = (path: string): URL => new URL(`${prefix}${path.startsWith("/") ? path : `/${path}`}`, origin)

    /** What a read of a route's body fails with. */
    const failuresAt = (route: RouteName): ReadFailures<TurnError | TransportFailure> => ({
      tooLarge: (part, limit) => new TurnError({ reason: "too-large", route, part, limit }),
      brokeOff
    })
    const eventLimits: EventLimits = { maxBodyBytes: maxBody, maxLineBytes: maxLine, maxEventBytes: maxEvent }

    /** A route's body as text, at most `limit` bytes. */
    const readText = (
      route: RouteName,
      response: HttpClientResponse.HttpClientResponse,
      limit = maxBody
    ): Effect.Effect<string, TurnError | TransportFailure> => Body.readText(response, limit, failuresAt(route))

    /** Reads a body nobody needs to its end, so its connection can serve the next request. */
    const discard = (response: HttpClientResponse.HttpClientResponse) => Body.discard(response, maxBody)

    /** Reads the events of a route's event stream, in order, bounded (`Body.forEachEvent`). */
    const forEachEventData = <E>(
      route: RouteName,
      response: HttpClientResponse.HttpClientResponse,
      each: (data: string, event: string | undefined) => Effect.Effect<void, E> | undefined
    ): Effect.Effect<void, E | TurnError | TransportFailure> =>
      Body.forEachEvent(response, eventLimits, failuresAt(route), each)

    // The policies every request goes through, innermost first: the session to the app's origin only,
    // redirects within it only, and a rejected session stopping the run.
    const http = client.pipe(
      sessionForOrigin(origin, config.auth),
      sameOriginRedirects({ origin, max: maxRedirects, discard }),
      rejectedSessionStops(discard, config.auth.source)
    )

    /**
     * One request through the policies; no request is made to a path that would leave the app's origin or
     * the base URL's path (`placeRoute`). An answer other than 2xx has its body read away — or, when
     * `keepErrorBody`, read (up to a bound) into `text`. Written as a chain of steps, not a generator:
     * every request of a run comes through here.
     */
    const send = (
      route: RouteName,
      method: "GET" | "POST" | "DELETE",
      path: string,
      options: SendOptions = {}
    ): Effect.Effect<Sent, Failure | TransportFailure> => {
      const answer = (response: HttpClientResponse.HttpClientResponse): Effect.Effect<Sent> => {
        const { headers, status } = response
        if (status >= 200 && status < 300) return Effect.succeed({ status, headers, response })
        // A body nobody reads would hold its connection open: every other answer is read away.
        if (options.keepErrorBody !== true) {
          return Effect.as(discard(response), { status, headers, response: undefined })
        }
        return readText(route, response, maxErrorBody).pipe(
          Effect.orElseSucceed(() => ""),
          Effect.map((text) => ({ status, headers, response: undefined, text }))
        )
      }
      const sent = (url: URL): Effect.Effect<Sent, Failure | TransportFailure> => {
        let request = HttpClientRequest.make(method)(url, { headers: { accept: options.accept ?? "application/json" } })
        if (options.body !== undefined) request = HttpClientRequest.bodyUnsafeJson(request, options.body)
        return Effect.matchEffect(withoutSpans(http.execute(request)), {
          onFailure: (error): Effect.Effect<never, Failure | TransportFailure> => {
            if (error._tag === "RunStopped") {
              connected = true
              return Effect.fail(error)
            }
            if (error._tag === "RedirectRefused") {
              connected = true
              return Effect.fail(notFollowed(route, error.detail))
            }
            return Effect.fail(
              new TransportFailure({
                reason: describeTransport(error),
                reached: !isUnreached(codeOf(error.cause)),
                code: codeOf(error)
              })
            )
          },
          onSuccess: (response) => {
            connected = true
            return answer(response)
          }
        })
      }
      // The last line of defence: whatever built the path, no request leaves the origin or the base URL's path.
      return Effect.suspend(() => {
        const placed = placeRoute(base, path)
        return typeof placed === "string" ? Effect.fail(refusedPath(route, "path", path, placed)) : sent(placed)
      })
    }

    /**
     * Retries an attempt on `retrySchedule` (exponential backoff with jitter, at least as long as
     * `Retry-After` asks): an answer of one of `how.statuses`, and — when `how.unanswered` — a request
     * that got no answer. Any other failure ends the attempts at once. A sleep before a retry ends at once
     * when `how.sleeping.stopping` completes. The schedule's state is made at the first retry only: most
     * requests are answered at once.
     */
    const withRetries = <A extends Answered, E extends Failure = Failure>(
      attempt: Effect.Effect<A, E | TransportFailure>,
      how: Retrying
    ): Effect.Effect<A, E | TurnError> => {
      const { route, sleeping } = how
      const once: Effect.Effect<Either.Either<A, TransportFailure>, E> = Effect.matchEffect(attempt, {
        onFailure: (error) =>
          error._tag === "TransportFailure" ? Effect.succeed(Either.left(error)) : Effect.fail(error as E),
        onSuccess: (answered) => Effect.succeed(Either.right(answered))
      })
      const end = (outcome: Either.Either<A, TransportFailure>): Effect.Effect<A, TurnError> =>
        Either.isLeft(outcome) ? Effect.fail(unreachable(route, outcome.left)) : Effect.succeed(outcome.right)
      const wait = (driver: Schedule.ScheduleDriver<unknown, Retried>, retried: Retried) => {
        const next = driver.next(retried)
        return sleeping === undefined
          ? next
          : Effect.zipRight(
            Ref.set(sleeping.phase, "sleeping"),
            Effect.raceFirst(
              next,
              Effect.zipRight(
                Deferred.await(sleeping.stopping),
                Effect.fail(new TurnError({ reason: "stopped", route }))
              )
            )
          )
      }
      const loop = (
        driver: Schedule.ScheduleDriver<unknown, Retried> | undefined
      ): Effect.Effect<A, E | TurnError> =>
        Effect.flatMap(once, (outcome): Effect.Effect<A, E | TurnError> => {
          const retried: Retried | undefined = Either.isLeft(outcome)
            ? how.unanswered ? {} : undefined
            : how.statuses.includes(outcome.right.status)
            ? outcome.right
            : undefined
          if (retried === undefined) return end(outcome)
          const why = Either.isLeft(outcome) ? outcome.left.reason : `HTTP ${outcome.right.status}`
          return Effect.zipRight(
            Ref.set(how.retrying, Option.some(why)),
            Effect.flatMap(driver === undefined ? Schedule.driver(schedule) : Effect.succeed(driver), (d) =>
              Effect.matchEffect(wait(d, retried), {
                // The schedule is done: the last answer stands.
                onFailure: (stopped) => Option.isOption(stopped) ? end(outcome) : Effect.fail(stopped),
                onSuccess: () => loop(d)
              }))
          )
        })
      return Effect.zipRight(Ref.set(how.retrying, Option.none()), loop(undefined))
    }

    /** Parses and decodes a JSON body (trying `fast` first); a problem names the route and the JSON path. */
    const decodeBody = <A, I>(
      route: RouteName,
      text: string,
      schema: Schema.Schema<A, I>,
      fast?: FastDecoder<A>
    ): Effect.Effect<A, TurnError> => {
      let value: unknown
      try {
        value = JSON.parse(text)
      } catch {
        return Effect.fail(notJson(route))
      }
      const decoded = fast?.(value)
      if (decoded !== undefined) return Effect.succeed(decoded)
      return Either.mapLeft(decodeValue(schema, route, value, "lenient"), (error) => failure(route, error.summary))
    }

    /** Fails on an answer other than 2xx, naming its status. */
    const requireOk = <A extends Answered>(route: RouteName, answered: A) =>
      answered.status >= 200 && answered.status < 300
        ? Effect.succeed(answered)
        : Effect.fail(httpStatus(route, answered.status))

    /** Reads a route's body as text; a dropped connection, even half-way through the body, is retried. */
    const readBody = (
      route: RouteName,
      path: string,
      retrying: Ref.Ref<Option.Option<string>>,
      body?: unknown
    ): Effect.Effect<
      { readonly text: string; readonly status: number; readonly headers: Readonly<Record<string, string>> },
      Failure
    > => {
      // A body makes it a POST that only reads (a search): retried as a read is.
      const request = body === undefined ? send(route, "GET", path) : send(route, "POST", path, { body })
      const fetch = Effect.flatMap(request, ({ headers, response, status }) =>
        response === undefined
          ? Effect.succeed({ status, headers, text: "" })
          : Effect.map(readText(route, response), (text) => ({ status, headers, text })))
      return withRetries(fetch, { route, statuses: safeRetry, unanswered: true, retrying }).pipe(
        Effect.flatMap((answered) => requireOk(route, answered))
      )
    }

    /** Reads a route's JSON; a web page where JSON was expected says what that usually means. */
    const readJson = <A, I>(
      route: RouteName,
      path: string,
      schema: Schema.Schema<A, I>,
      retrying: Ref.Ref<Option.Option<string>>,
      fast?: FastDecoder<A>
    ): Effect.Effect<A, Failure> =>
      Effect.flatMap(
        readBody(route, path, retrying),
        ({ headers, status, text }) =>
          isWebPage(headers["content-type"] ?? "") && !text.trimStart().startsWith("{")
            ? Effect.fail(webPage(route, status, urlOf(path).href))
            : decodeBody(route, text, schema, fast)
      )

    /**
     * Reads a route's body as text, as a case's reads do (same-origin redirects only, retries, the
     * body limit), bounded by `timeout`: for commands that read the app without asking it anything.
     * With a `body`, the read is a POST of it as JSON (a search).
     */
    const get = (
      route: RouteName,
      path: string,
      timeout: Duration.Duration,
      body?: unknown
    ): Effect.Effect<string, Failure> =>
      Effect.flatMap(Ref.make<Option.Option<string>>(Option.none()), (retrying) =>
        readBody(route, path, retrying, body).pipe(
          Effect.map(textOf),
          Effect.timeout(timeout),
          Effect.catchTag(
            "TimeoutException",
            () =>
              Effect.flatMap(Ref.get(retrying), (why) =>
                Effect.fail(timedOut(route, timeout, why)))
          )
        ))

    /**
     * A failure named by the request it was made by (method and URL); a path refused before any
     * request names itself already, and no URL: it would point where nothing was sent.
     */
    const naming = (error: TurnError, method: string, path: string): TurnError => {
      const placed = placeRoute(base, path)
      return typeof placed === "string" ? error : error.withRequest(new FailedRequest({ method, url: placed.href }))
    }

    /**
     * Sends a DELETE to `path`; a 2xx (any body) means deleted, 404 already gone. Never fails but for a
     * rejected session: how it ended is the answer. Runs to its end even when the caller is interrupted,
     * bounded by `limit`.
     */
    const deleteAt = (path: string, limit: Duration.Duration): Effect.Effect<Deleted, RunStopped> =>
      Effect.suspend(() => {
        const retrying = Ref.unsafeMake<Option.Option<string>>(Option.none())
        const how: Retrying = { route: "delete", statuses: safeRetry, unanswered: true, retrying }
        const attempt = withRetries(send("delete", "DELETE", path), how).pipe(
          Effect.flatMap(({ response, status }): Effect.Effect<"deleted" | "already gone", TurnError> =>
            response !== undefined
              ? Effect.as(discard(response), "deleted")
              : status === 404
              ? Effect.succeed("already gone")
              : Effect.fail(httpStatus("delete", status))
          )
        )
        return detached(attempt, limit).pipe(
          Effect.flatMap(Option.match({
            onSome: (how) =>
              Effect.succeed(Either.right(how)),
            onNone: () => Effect.flatMap(Ref.get(retrying), (why) => Effect.fail(timedOut("delete", limit, why)))
          })),
          Effect.catchTag("TurnError", (error) => Effect.succeed(Either.left(naming(error, "DELETE", path).message)))
        )
      })

    return {
      urlOf,
      /** Whether any request of the run has been answered yet. */
      connected: (): boolean => connected,
      send,
      withRetries,
      readText,
      discard,
      forEachEventData,
      decodeBody,
      requireOk,
      readBody,
      readJson,
      get,
      naming,
      deleteAt
    }
  })
