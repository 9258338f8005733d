/**
 * Obtaining turns from a live app over HTTP, as a signed-in user: ask the question in a new
 * conversation, read the answer and the trace, and delete the conversation when the case's scope
 * closes — after grading, after a failure, or when the run is interrupted.
 *
 * The session cookie is sent only to the app's own origin: a redirect elsewhere is not followed. An id
 * the app answers with is put in a route only when it is safe there (`idProblem`): `.` or `..` would
 * send the read or the delete to another resource. Every conversation the app names is deleted, even
 * from an answer that failed; one whose id is refused, or an ask cut short before it named one, is
 * reported, so nothing is left without a word.
 */
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import type { HttpClientError } from "@effect/platform/HttpClientError"
import {
  Clock,
  Data,
  Deferred,
  Duration,
  Effect,
  Either,
  Exit,
  Fiber,
  Option,
  Redacted,
  Ref,
  type Schema,
  type Scope,
  Stream
} from "effect"
import { boundedLines } from "../Files.js"
import type { Case } from "../Schema/Case.js"
import { decodeValue, type FastDecoder } from "../Schema/Decode.js"
import { RunStopped, TurnError } from "../Schema/Errors.js"
import { AskIds, Conversation, fillRoute, idProblem, type Route } from "../Schema/Protocol.js"
import { shown } from "../Schema/Shown.js"
import type { Routes } from "../Schema/Surface.js"
import { fastTurnTrace, type Turn, TurnTrace } from "../Schema/Trace.js"
import type { Journal } from "./Journal.js"

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
  /**
   * How long an ask cut short may still take to say which conversation it opened (default 5 s), within
   * what is left of the case's timeout; an ask sleeping before a retry has opened nothing and stops at once.
   */
  readonly askGrace?: Duration.Duration
  /** The longest line of an event stream (default 8 MiB). */
  readonly maxLineBytes?: number
  /** Where conversations are recorded until deleted, so that a run that cannot delete them leaves a trace. */
  readonly journal?: Journal
}

/** A conversation left in the account: kept on request, or one whose delete failed (with why). */
export interface LeftConversation {
  readonly caseId: string
  readonly conversationId: string
  readonly reason?: string
}

/** A case whose ask may have opened a conversation the run never learned of (with why). */
export interface MaybeLeft {
  readonly caseId: string
  readonly reason: string
}

/** The conversations a live run left behind, and the cases that may have left one it cannot name. */
export interface LeftBehind {
  readonly kept: ReadonlyArray<LeftConversation>
  readonly undeleted: ReadonlyArray<LeftConversation>
  readonly unknown: ReadonlyArray<MaybeLeft>
}

/** How a delete ended: the conversation is gone (deleted now, or already), or why not. */
export type Deleted = Either.Either<"deleted" | "already gone", string>

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

/** Whether an error code is one of TLS: the connection was made but never secured. */
const isTls = (code: string): boolean =>
  /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|EPROTO$|HOSTNAME_MISMATCH)/.test(code)

/** A transport failure in a few words, never with request details. */
const describeTransport = (error: HttpClientError): string => {
  const code = codeOf(error.cause)
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

type Failure = TurnError | RunStopped

/** What retrying looks at in an answer. */
interface Answered {
  readonly status: number
  readonly headers: Readonly<Record<string, string>>
}

/** An answer: a 2xx with its body still to read, or any other status with its body read away. */
interface Sent extends Answered {
  readonly response: HttpClientResponse.HttpClientResponse | undefined
}

/**
 * A request that got no answer (refused, reset, dropped); retried where that is safe. `reached` says
 * whether the app may have received it (false for a refused connection or a host not found).
 */
class TransportFailure extends Data.TaggedError("TransportFailure")<{ readonly reason: string; readonly reached: boolean }> {}

/** Codes of a request that never reached the app: nothing was asked of it. */
const isUnreached = (code: string | undefined): boolean =>
  code !== undefined && (code === "ECONNREFUSED" || code === "ENOTFOUND" || code === "EAI_AGAIN" || isTls(code))

/** An id quoted for a message, clipped (the message is made inert where it is printed). */
const quoteId = (id: string): string => JSON.stringify(shown(id))

/**
 * A header value as text: headers arrive as one character per byte, so one holding UTF-8 is decoded,
 * and bytes that are not UTF-8 become U+FFFD (which `idProblem` refuses).
 */
const headerText = (value: string | undefined): string | undefined => {
  // eslint-disable-next-line no-control-regex
  if (value === undefined || /^[\u0000-\u007f]*$/.test(value)) return value
  if (/[^\u0000-\u00ff]/.test(value)) return value
  return new TextDecoder("utf-8").decode(Buffer.from(value, "latin1"))
}

/**
 * Runs cleanup to its end in a fiber of its own, bounded by `limit`: the interruption that closes a
 * case's scope (a timeout, Ctrl-C, a stopped run) must not cut a delete short, and only the limit can.
 */
const detached = <A, E>(effect: Effect.Effect<A, E>, limit: Duration.Duration): Effect.Effect<Option.Option<A>, E> =>
  Effect.flatMap(Effect.forkDaemon(Effect.timeoutOption(Effect.interruptible(effect), limit)), Fiber.join)

const failure = (route: Route, reason: string): TurnError => new TurnError({ reason: `${route}: ${reason}` })

/** Whether a content type is a web page's: what a sign-in redirect or a wrong route serves. */
const isWebPage = (contentType: string): boolean => /^\s*(text\/html|application\/xhtml\+xml)\b/i.test(contentType)

/** A web page where the protocol was expected: the route is wrong, or the session is not signed in. */
const webPage = (route: Route, status: number, url: string): TurnError =>
  failure(route, `the app answered a web page (HTTP ${status} text/html from ${url}), not the protocol — is the route right and the session signed in?`)

/** A body that broke off, in the words a case's error uses. */
const brokeOff = (error: HttpClientError) =>
  new TransportFailure({ reason: `${describeTransport(error)} while reading the answer`, reached: true })

/** A timeout names what was being retried when time ran out, or that nothing answered. */
const timedOut = (route: Route, limit: Duration.Duration, retrying: Option.Option<string>): TurnError =>
  Option.match(retrying, {
    onNone: () => failure(route, `timed out after ${showDuration(limit)}`),
    onSome: (why) => failure(route, `${why} (retried until the ${showDuration(limit)} timeout)`)
  })

/** Where an ask is, for deciding what cutting it short may leave behind. */
type AskPhase = "waiting" | "sending" | "sleeping" | "reading" | "done"

/** What one case's ask has learned and done so far. */
interface AskState {
  /** Conversations the app named, safe to put in a route, in the order named (each journalled). */
  readonly opened: Ref.Ref<ReadonlyArray<string>>
  /** Conversation ids the app named that cannot be put in a route, with why. */
  readonly refused: Ref.Ref<ReadonlyArray<{ readonly id: string; readonly why: string }>>
  readonly phase: Ref.Ref<AskPhase>
  /** Set when the ask ended in a way that may have opened a conversation it did not name. */
  readonly unsure: Ref.Ref<Option.Option<string>>
  /** What is being retried, for a timeout's message. */
  readonly retrying: Ref.Ref<Option.Option<string>>
  /** Completed when the case is cut short: a retry still sleeping then stops at once. */
  readonly stopping: Deferred.Deferred<void>
}

/** The largest error body an ask reads, looking for the conversation it may name. */
const maxErrorBody = 1024 * 1024

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
    const maxLine = config.maxLineBytes ?? 8 * 1024 * 1024
    const askGrace = config.askGrace ?? Duration.seconds(5)
    const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`
    const tooLarge = (route: Route, limit: number) => failure(route, `body over ${mib(limit)}`)
    const left = yield* Ref.make<LeftBehind>({ kept: [], undeleted: [], unknown: [] })
    // Whether any request of the run has been answered: until one is, an app that cannot be reached
    // at all stops the run instead of failing case after case.
    let connected = false
    const journal = config.journal

    const urlOf = (path: string): URL => new URL(`${prefix}${path.startsWith("/") ? path : `/${path}`}`, origin)

    /**
     * One request, following same-origin redirects; the cookie goes to the app's origin only. An answer
     * other than 2xx has its body read away — or, when `keepErrorBody`, read (up to a bound) into `text`.
     */
    const send = (
      route: Route,
      method: "GET" | "POST" | "DELETE",
      path: string,
      body?: unknown,
      keepErrorBody = false
    ): Effect.Effect<Sent & { readonly text?: string }, Failure | TransportFailure> =>
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
            Effect.tap(() => Effect.sync(() => (connected = true))),
            Effect.mapError((error) => {
              const code = codeOf(error.cause)
              return new TransportFailure({
                reason: describeTransport(error),
                reached: !isUnreached(code)
              })
            })
          )
          const { headers, status } = response
          if (status >= 200 && status < 300) return { status, headers, response }
          const location = headers["location"]
          const redirect = status >= 300 && status < 400 && location !== undefined
          // A body nobody reads would hold its connection open: every other answer is read away.
          const text = keepErrorBody && !redirect && status !== 401
            ? yield* readText(route, response, maxErrorBody).pipe(Effect.orElseSucceed(() => ""))
            : yield* Effect.as(discard(route, response), undefined)
          if (status === 401) return yield* new RunStopped({ reason: "session-rejected" })
          if (!redirect) return text === undefined ? { status, headers, response: undefined } : { status, headers, response: undefined, text }
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
     * `retryTransport` — a connection that failed. Any other failure ends the attempts at once. A
     * sleep before a retry ends at once, failing with `stoppedReason`, when `stopping` completes.
     */
    const withRetries = <A extends Answered, E extends Failure = Failure>(
      route: Route,
      retryable: ReadonlyArray<number>,
      attempt: Effect.Effect<A, E | TransportFailure>,
      retryTransport: boolean,
      retrying: Ref.Ref<Option.Option<string>>,
      sleeping?: { readonly stopping: Deferred.Deferred<void>; readonly phase: Ref.Ref<AskPhase> }
    ): Effect.Effect<A, E | TurnError> => {
      const once = attempt.pipe(
        Effect.map(Either.right),
        Effect.catchTag("TransportFailure", (error) => Effect.succeed(Either.left(error)))
      )
      const sleep = (duration: Duration.Duration): Effect.Effect<void, TurnError> =>
        sleeping === undefined
          ? Effect.sleep(duration)
          : Effect.zipRight(
            Ref.set(sleeping.phase, "sleeping"),
            Effect.raceFirst(
              Effect.sleep(duration),
              Effect.zipRight(Deferred.await(sleeping.stopping), Effect.fail(failure(route, "stopped while waiting to retry")))
            )
          )
      const loop = (n: number): Effect.Effect<A, E | TurnError> =>
        Effect.flatMap(once, (outcome) =>
          Effect.gen(function*() {
            const backoff = Duration.times(retryDelay, 2 ** n)
            if (n < retries && Either.isLeft(outcome) && retryTransport) {
              yield* Ref.set(retrying, Option.some(outcome.left.reason))
              yield* sleep(backoff)
              return yield* loop(n + 1)
            }
            if (n < retries && Either.isRight(outcome) && retryable.includes(outcome.right.status)) {
              yield* Ref.set(retrying, Option.some(`HTTP ${outcome.right.status}`))
              const now = yield* Effect.clockWith((clock) => clock.currentTimeMillis)
              const asked = retryAfter(outcome.right.headers["retry-after"], now)
              yield* sleep(Option.match(asked, { onNone: () => backoff, onSome: (d) => Duration.max(d, backoff) }))
              return yield* loop(n + 1)
            }
            return yield* Either.match(outcome, {
              onLeft: (error) => Effect.fail(failure(route, error.reason)),
              onRight: Effect.succeed
            })
          }))
      return Effect.zipRight(Ref.set(retrying, Option.none()), loop(0))
    }

    /** The body's bytes, failing past `limit` bytes. */
    const bodyBytes = (
      route: Route,
      response: HttpClientResponse.HttpClientResponse,
      limit = maxBody
    ): Stream.Stream<Uint8Array, TurnError | TransportFailure> => {
      let bytes = 0
      return response.stream.pipe(
        Stream.mapError(brokeOff),
        Stream.tap((chunk) => {
          bytes += chunk.byteLength
          return bytes > limit ? Effect.fail(tooLarge(route, limit)) : Effect.void
        })
      )
    }

    /** The body as text, at most `limit` bytes. */
    const readText = (
      route: Route,
      response: HttpClientResponse.HttpClientResponse,
      limit = maxBody
    ): Effect.Effect<string, TurnError | TransportFailure> => {
      // A declared length is checked up front and the body read in one piece; only a body of unknown
      // length is read as a stream, counting its bytes.
      const declared = Number(response.headers["content-length"])
      if (!Number.isInteger(declared)) return Stream.mkString(Stream.decodeText(bodyBytes(route, response, limit)))
      if (declared > limit) return Effect.fail(tooLarge(route, limit))
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

    /** The ids in a JSON text, if it is JSON of that shape. */
    const idsIn = (text: string): typeof AskIds.Type | undefined => {
      try {
        const value: unknown = JSON.parse(text)
        return Either.getOrUndefined(decodeValue(AskIds, "ask", value, "lenient"))
      } catch {
        return undefined
      }
    }

    /**
     * Takes note of a conversation the app named (`where` says how): a safe id is journalled and will be
     * deleted with the case; another is refused, reported as not deleted, and fails the ask.
     */
    const named = (testCase: Case, state: AskState, id: string, where: string): Effect.Effect<void, TurnError> =>
      Effect.gen(function*() {
        const problem = idProblem(id)
        if (problem !== undefined) {
          const refused = yield* Ref.get(state.refused)
          if (!refused.some((r) => r.id === id)) yield* Ref.set(state.refused, [...refused, { id, why: problem }])
          return yield* failure(
            "ask",
            `refused the conversation id ${quoteId(id)} (${where}): it ${problem}; no request is made with it`
          )
        }
        const opened = yield* Ref.get(state.opened)
        if (opened.includes(id)) return
        // Journalled and noted as one step: an interruption between the two would leave the id
        // journalled but never deleted.
        yield* Effect.uninterruptible(
          Effect.zipRight(
            journal !== undefined && !config.keep ? journal.opened(testCase.id, id) : Effect.void,
            Ref.update(state.opened, (all) => all.includes(id) ? all : [...all, id])
          )
        )
      })

    /** Asks the question; every conversation the app names is noted in `state` the moment it is known. */
    const ask = (testCase: Case, endpoint: string, state: AskState) =>
      Effect.gen(function*() {
        const attempt = Effect.zipRight(
          Ref.set(state.phase, "sending"),
          send("ask", "POST", endpoint, { message: testCase.question }, true)
        ).pipe(
          // An answer that failed may still name the conversation it opened: it is deleted all the same.
          Effect.tap((sent) =>
            sent.response !== undefined ? Effect.void : Effect.gen(function*() {
              if (sent.status >= 500) yield* Ref.set(state.unsure, Option.some(`was answered HTTP ${sent.status}`))
              const ids = [headerText(sent.headers["x-conversation-id"]), idsIn(sent.text ?? "")?.conversationId]
              for (const id of ids) {
                if (id !== undefined) yield* Effect.ignore(named(testCase, state, id, `in an HTTP ${sent.status} answer`))
              }
            })
          ),
          Effect.tapError((error) =>
            error._tag === "TransportFailure" && error.reached
              ? Ref.set(state.unsure, Option.some(`broke off (${error.reason})`))
              : Effect.void
          ),
          Effect.catchTag("TransportFailure", (error): Effect.Effect<never, RunStopped | TransportFailure> =>
            !error.reached && !connected
              ? Effect.fail(new RunStopped({ reason: "unreachable", url: urlOf(endpoint).href, why: error.reason }))
              : Effect.fail(error))
        )
        const response = yield* withRetries("ask", [429, 503], attempt, false, state.retrying, {
          stopping: state.stopping,
          phase: state.phase
        }).pipe(
          Effect.flatMap((sent) =>
            sent.response === undefined ? Effect.fail(failure("ask", `HTTP ${sent.status}`)) : Effect.succeed(sent.response)
          )
        )
        yield* Ref.set(state.phase, "reading")
        yield* Ref.set(state.unsure, Option.some("ended"))
        let turnId = headerText(response.headers["x-turn-id"])
        // The conversations this answer names: one, in its headers, body or events (earlier answers that
        // failed may have named others, which are deleted all the same).
        const answerIds: Array<string> = []
        const learnConversation = (id: string, where: string) =>
          Effect.zipRight(named(testCase, state, id, where), Effect.sync(() => answerIds.includes(id) || answerIds.push(id)))
        const headerId = headerText(response.headers["x-conversation-id"])
        if (headerId !== undefined) yield* learnConversation(headerId, "x-conversation-id")
        const learn = (ids: typeof AskIds.Type, where: string) =>
          Effect.gen(function*() {
            if (ids.conversationId !== undefined) yield* learnConversation(ids.conversationId, where)
            if (turnId === undefined && ids.turnId !== undefined && ids.turnId !== "") turnId = ids.turnId
          })
        // The question is not re-asked when its answer breaks off: that would open a second conversation.
        const body = (response.headers["content-type"] ?? "").startsWith("text/event-stream")
          ? bodyBytes("ask", response).pipe(
            boundedLines(maxLine, () => failure("ask", `an event-stream line over ${mib(maxLine)}`)),
            Stream.runForEach((line) => {
              if (!line.startsWith("data:")) return Effect.void
              const ids = idsIn(line.slice(5).trim())
              return ids === undefined ? Effect.void : learn(ids, "the event stream")
            })
          )
          : Effect.flatMap(readText("ask", response), (text) => {
            const ids = idsIn(text)
            if (ids !== undefined) return learn(ids, "the body")
            // Ids in headers make any body acceptable (plain text, say); without them it had to be JSON.
            if (headerId !== undefined) return Effect.void
            return Effect.fail(
              isWebPage(response.headers["content-type"] ?? "")
                ? webPage("ask", response.status, urlOf(endpoint).href)
                : failure("ask", "not JSON")
            )
          })
        yield* body.pipe(Effect.catchTag("TransportFailure", (error) => failure("ask", error.reason)))
        const conversationId = answerIds[0]
        if (conversationId === undefined) return yield* failure("ask", "the answer carries no conversationId")
        yield* Ref.set(state.unsure, Option.none())
        if (answerIds.length > 1) {
          return yield* failure(
            "ask",
            `named ${answerIds.length} conversations (${answerIds.map(quoteId).join(", ")}); each is deleted`
          )
        }
        if (turnId === undefined) return yield* failure("ask", "the answer carries no turnId")
        const turnProblem = idProblem(turnId)
        if (turnProblem !== undefined) {
          return yield* failure("ask", `refused the turn id ${quoteId(turnId)}: it ${turnProblem}; no request is made with it`)
        }
        return { conversationId, turnId }
      }).pipe(Effect.ensuring(Ref.set(state.phase, "done")))

    /** Reads a route's body as text; a dropped connection, even half-way through the body, is retried. */
    const readBody = (
      route: "conversation" | "trace" | "ratings",
      path: string,
      retrying: Ref.Ref<Option.Option<string>>
    ): Effect.Effect<{ readonly text: string; readonly status: number; readonly contentType: string }, Failure> => {
      const fetch = Effect.flatMap(send(route, "GET", path), ({ headers, response, status }) =>
        response === undefined
          ? Effect.succeed({ status, headers, text: "" })
          : Effect.map(readText(route, response), (text) => ({ status, headers, text })))
      return withRetries(route, [429, 502, 503, 504], fetch, true, retrying).pipe(
        Effect.flatMap((answered) => requireOk(route, answered)),
        Effect.map((answered) => ({ text: answered.text, status: answered.status, contentType: answered.headers["content-type"] ?? "" }))
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
      Effect.flatMap(readBody(route, fillRoute(template, ids), retrying), ({ contentType, status, text }) =>
        isWebPage(contentType) && !text.trimStart().startsWith("{")
          ? Effect.fail(webPage(route, status, urlOf(fillRoute(template, ids)).href))
          : decodeBody(route, text, schema, fast))

    /**
     * Reads a route's body as text, as a case's reads do (same-origin redirects only, retries, the
     * body limit), bounded by the timeout: for commands that read the app without asking it anything.
     */
    const get = (route: "conversation" | "trace" | "ratings", path: string): Effect.Effect<string, Failure> =>
      Effect.flatMap(Ref.make<Option.Option<string>>(Option.none()), (retrying) =>
        readBody(route, path, retrying).pipe(
          Effect.map(({ text }) => text),
          Effect.timeout(config.timeout),
          Effect.catchTag("TimeoutException", () =>
            Effect.flatMap(Ref.get(retrying), (why) => Effect.fail(timedOut(route, config.timeout, why))))
        ))

    /**
     * Deletes a conversation through a delete route template; 200 (any body) means deleted, 404 already
     * gone. Never fails: how it ended is the answer. The journal is told when it is gone.
     */
    const deleteConversation = (template: string, conversationId: string): Effect.Effect<Deleted, RunStopped> =>
      Effect.gen(function*() {
        const problem = idProblem(conversationId)
        if (problem !== undefined) return Either.left(`the id ${problem}; no request is made with it`)
        const retrying = yield* Ref.make<Option.Option<string>>(Option.none())
        const attempt = withRetries(
          "delete",
          [429, 502, 503, 504],
          send("delete", "DELETE", fillRoute(template, { conversationId })),
          true,
          retrying
        ).pipe(
          Effect.flatMap(({ response, status }): Effect.Effect<"deleted" | "already gone", TurnError> =>
            response !== undefined
              ? Effect.as(discard("delete", response), "deleted")
              : status === 404
              ? Effect.succeed("already gone")
              : Effect.fail(failure("delete", `HTTP ${status}`))
          )
        )
        const outcome = yield* detached(attempt, config.deleteTimeout).pipe(
          Effect.flatMap(Option.match({
            onSome: (how) => Effect.succeed(Either.right(how)),
            onNone: () => Effect.flatMap(Ref.get(retrying), (why) => Effect.fail(timedOut("delete", config.deleteTimeout, why)))
          })),
          Effect.catchTag("TurnError", (error) =>
            Effect.succeed(Either.left(`${error.reason} — DELETE ${urlOf(fillRoute(template, { conversationId })).href}`)))
        )
        if (Either.isRight(outcome) && journal !== undefined) yield* journal.gone(conversationId)
        return outcome
      })

    /** Deletes a case's conversation; one that cannot be deleted is recorded with why. */
    const remove = (testCase: Case, conversationId: string): Effect.Effect<void> =>
      deleteConversation(config.routes.delete ?? "", conversationId).pipe(
        Effect.catchTag("RunStopped", (): Effect.Effect<Deleted> => Effect.succeed(Either.left("delete: HTTP 401 (session rejected)"))),
        Effect.flatMap(Either.match({
          onRight: () => Effect.void,
          onLeft: (reason) =>
            Ref.update(left, (l) => ({ ...l, undeleted: [...l.undeleted, { caseId: testCase.id, conversationId, reason }] }))
        }))
      )

    const obtain = (testCase: Case, endpoint: string): Effect.Effect<Turn, Failure, Scope.Scope> =>
      Effect.gen(function*() {
        const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(config.timeout)
        const state: AskState = {
          opened: yield* Ref.make<ReadonlyArray<string>>([]),
          refused: yield* Ref.make<ReadonlyArray<{ readonly id: string; readonly why: string }>>([]),
          phase: yield* Ref.make<AskPhase>("waiting"),
          unsure: yield* Ref.make<Option.Option<string>>(Option.none()),
          retrying: yield* Ref.make<Option.Option<string>>(Option.none()),
          stopping: yield* Deferred.make<void>()
        }
        const askUrl = urlOf(endpoint).href
        // The ask runs in a fiber of its own. When the case is cut short mid-ask (a timeout, Ctrl-C, a
        // rejected session), the app may already have opened the conversation: an ask still sending or
        // reading gets a short grace, within the case's timeout, to say which, so that it can be deleted
        // too; one sleeping before a retry has opened nothing and stops at once.
        const asking = yield* Effect.uninterruptible(
          Effect.gen(function*() {
            const fiber = yield* Effect.forkDaemon(Effect.interruptible(ask(testCase, endpoint, state)))
            yield* Effect.addFinalizer((exit) =>
              Effect.gen(function*() {
                if (Option.isNone(yield* Fiber.poll(fiber))) {
                  yield* Deferred.succeed(state.stopping, undefined)
                  // Only an ask sending or reading may have opened something; a sleeping or waiting one has not.
                  const phase = yield* Ref.get(state.phase)
                  const inFlight = phase === "sending" || phase === "reading"
                  const remaining = deadline - (yield* Clock.currentTimeMillis)
                  const grace = Duration.min(askGrace, Duration.millis(Math.max(0, remaining)))
                  if ((yield* Ref.get(state.opened)).length === 0 && inFlight) yield* detached(Fiber.await(fiber), grace)
                  const cut = yield* Fiber.poll(fiber)
                  yield* Fiber.interrupt(fiber)
                  if (inFlight && Option.isNone(cut)) {
                    yield* Ref.set(
                      state.unsure,
                      Option.some(
                        Exit.isInterrupted(exit)
                          ? "was interrupted"
                          : `timed out after ${showDuration(config.timeout)}`
                      )
                    )
                  }
                }
                const opened = yield* Ref.get(state.opened)
                for (const r of yield* Ref.get(state.refused)) {
                  yield* Ref.update(left, (l) => ({
                    ...l,
                    undeleted: [...l.undeleted, {
                      caseId: testCase.id,
                      conversationId: r.id,
                      reason: `the app named it, but the id ${r.why}: no request is made with it`
                    }]
                  }))
                }
                const unsure = yield* Ref.get(state.unsure)
                if (opened.length === 0 && (yield* Ref.get(state.refused)).length === 0 && Option.isSome(unsure)) {
                  yield* Ref.update(left, (l) => ({
                    ...l,
                    unknown: [...l.unknown, {
                      caseId: testCase.id,
                      reason: `the ask (POST ${askUrl}) ${unsure.value} before naming its conversation: the app may hold one`
                    }]
                  }))
                }
                for (const id of opened) {
                  yield* config.keep
                    ? Ref.update(left, (l) => ({ ...l, kept: [...l.kept, { caseId: testCase.id, conversationId: id }] }))
                    : remove(testCase, id)
                }
              })
            )
            return fiber
          })
        )
        // Where the case is: the route, and the request it is making, which every failure names.
        const stage = yield* Ref.make<{ readonly route: Route; readonly request: string }>({ route: "ask", request: `POST ${askUrl}` })
        const at = (route: Route, method: string, template: string, ids: { conversationId: string; turnId: string }) =>
          Ref.set(stage, { route, request: `${method} ${urlOf(fillRoute(template, ids)).href}` })
        const turn = Effect.gen(function*() {
          const ids = yield* Fiber.join(asking)
          yield* at("conversation", "GET", config.routes.conversation, ids)
          const conversation = yield* read("conversation", config.routes.conversation, ids, Conversation, state.retrying)
          if (conversation.id !== ids.conversationId) {
            // The app answered with another conversation: it is deleted too, if its id can be.
            yield* Effect.ignore(named(testCase, state, conversation.id, "the conversation route"))
            return yield* failure(
              "conversation",
              `is conversation ${quoteId(conversation.id)}, not ${quoteId(ids.conversationId)}; each is deleted`
            )
          }
          yield* at("trace", "GET", config.routes.trace, ids)
          const trace = yield* read("trace", config.routes.trace, ids, TurnTrace, state.retrying, fastTurnTrace)
          if (trace.turnId !== ids.turnId) {
            return yield* failure("trace", `is for turn ${quoteId(trace.turnId)}, not ${quoteId(ids.turnId)}`)
          }
          const assistant = conversation.messages.filter((m) => m.role === "assistant")
          const message = assistant.some((m) => m.turnId !== undefined && m.turnId !== null)
            ? assistant.find((m) => m.turnId === ids.turnId)
            : assistant[assistant.length - 1]
          if (message === undefined) {
            return yield* failure("conversation", `no assistant message for turn ${quoteId(ids.turnId)}`)
          }
          return { answer: message.content, trace }
        })
        return yield* turn.pipe(
          Effect.timeout(config.timeout),
          Effect.catchTag("TimeoutException", () =>
            Effect.flatMap(Effect.zip(Ref.get(stage), Ref.get(state.retrying)), ([{ route }, why]) =>
              Effect.fail(timedOut(route, config.timeout, why)))),
          // Every route error names its request (method and URL, never the cookie).
          Effect.catchTag("TurnError", (error) =>
            Effect.flatMap(Ref.get(stage), ({ request }) =>
              Effect.fail(
                error.reason.includes(request.replace(/^\S+ /, "")) ? error : new TurnError({ reason: `${error.reason} — ${request}` })
              )))
        )
      })

    return {
      obtain,
      get,
      deleteConversation,
      leftBehind: Ref.get(left)
    }
  })
