/**
 * The live runs' HTTP policies, each a named transform of an `HttpClient` (as `@effect/platform`'s
 * `followRedirects` and `retryTransient` are), and the retry schedule: the session goes to the app's
 * origin only, a redirect is followed within that origin only (and a question is never re-posted), a
 * rejected session stops the run, and retries back off exponentially, with jitter, for at least as long
 * as `Retry-After` asks. The transport (`Transport.ts`) stacks them over whichever client its layer gives.
 */
import { HttpClient, HttpClientRequest, type HttpClientResponse } from "@effect/platform"
import { Clock, Data, Duration, Effect, Option, Redacted, Schedule } from "effect"
import { RunStopped } from "../Schema/Errors.js"

/** The session a live run sends: one header, `cookie` for a session cookie, or an auth header. */
export interface Auth {
  /** The header's name, lower case (`cookie`, `authorization`, `x-api-key`). */
  readonly header: string
  readonly value: Redacted.Redacted<string>
  /** Where the session came from (`EVAL_COOKIE`, `--cookie`, `EVAL_AUTH_HEADER`), for a refusal to name. */
  readonly source?: string | undefined
}

/** Whether a request's URL is at `origin` (`https://app.test`, no trailing slash). */
const isAt = (origin: string, url: string): boolean =>
  url.startsWith(origin) && (url.length === origin.length || url[origin.length] === "/")

/** Sends the session with every request to `origin`, and with none elsewhere. */
export const sessionForOrigin = (origin: string, auth: Auth) => <E, R>(client: HttpClient.HttpClient.With<E, R>) =>
  HttpClient.mapRequest(client, (request) =>
    isAt(origin, request.url)
      ? HttpClientRequest.setHeader(request, auth.header, Redacted.value(auth.value))
      : request)

/** A redirect not followed, and why (`redirected to another origin (…); not followed`). */
export class RedirectRefused extends Data.TaggedError("RedirectRefused")<{ readonly detail: string }> {}

/** What the redirect and session policies do with a body they do not hand on: read it away, bounded. */
export type Discard = (response: HttpClientResponse.HttpClientResponse) => Effect.Effect<void>

/** How redirects are followed. */
export interface Redirects {
  /** The only origin a redirect may lead to. */
  readonly origin: string
  /** The most redirects one request follows. */
  readonly max: number
  readonly discard: Discard
}

/**
 * Follows redirects within `origin`, at most `max` of them; a redirect elsewhere, one past the limit,
 * one to an unreadable location, or a POST's redirect that would not re-post it as it was (anything but
 * 307 and 308) fails with why. Each redirect's body is read away, so that its connection serves the next.
 */
export const sameOriginRedirects =
  ({ discard, max, origin }: Redirects) =>
  <E, R>(client: HttpClient.HttpClient.With<E, R>): HttpClient.HttpClient.With<E | RedirectRefused, R> => {
    const follow = (
      request: HttpClientRequest.HttpClientRequest,
      response: HttpClientResponse.HttpClientResponse,
      hops: number
    ): Effect.Effect<HttpClientResponse.HttpClientResponse, E | RedirectRefused, R> => {
      const { status } = response
      const location = response.headers["location"]
      if (status < 300 || status >= 400 || location === undefined) return Effect.succeed(response)
      return Effect.zipRight(
        discard(response),
        Effect.suspend(() => {
          let target: URL
          try {
            target = new URL(location, response.request.url)
          } catch {
            return Effect.fail(new RedirectRefused({ detail: `HTTP ${status} to an unreadable location` }))
          }
          if (target.origin !== origin) {
            return Effect.fail(
              new RedirectRefused({ detail: `redirected to another origin (${target.origin}); not followed` })
            )
          }
          if (request.method === "POST" && status !== 307 && status !== 308) {
            return Effect.fail(new RedirectRefused({ detail: `HTTP ${status} redirect; a question is not re-posted` }))
          }
          if (hops >= max) return Effect.fail(new RedirectRefused({ detail: `more than ${max} redirects` }))
          const next = HttpClientRequest.setUrl(request, target)
          return Effect.flatMap(client.execute(next), (answer) => follow(next, answer, hops + 1))
        })
      )
    }
    return HttpClient.transform(client, (effect, request) => Effect.flatMap(effect, (r) => follow(request, r, 0)))
  }

/** The request a refusal names: its method and path (never its query, which may carry ids). */
const requestLine = (request: HttpClientRequest.HttpClientRequest): string => {
  try {
    return `${request.method} ${new URL(request.url).pathname}`
  } catch {
    return request.method
  }
}

/**
 * A 401 stops the run, its body read away: the session is not signed in, and no case can pass. The
 * refusal names where the session came from (`source`) and the request the app refused.
 */
export const rejectedSessionStops =
  (discard: Discard, source?: string) => <E, R>(client: HttpClient.HttpClient.With<E, R>) =>
    HttpClient.transformResponse(client, (effect): Effect.Effect<
      HttpClientResponse.HttpClientResponse,
      E | RunStopped,
      R
    > =>
      Effect.flatMap(effect, (response) =>
        response.status === 401
          ? Effect.zipRight(
            discard(response),
            Effect.fail(
              new RunStopped({
                reason: "session-rejected",
                request: requestLine(response.request),
                ...(source === undefined ? {} : { source })
              })
            )
          )
          : Effect.succeed(response)))

/** What a retry is decided on: an answer's status and headers, or a request that got no answer. */
export interface Retried {
  readonly status?: number | undefined
  readonly headers?: Readonly<Record<string, string>> | undefined
}

/** The longest a `Retry-After` is honoured for. */
const maxRetryAfter = Duration.seconds(60)

/** The delay a `Retry-After` header asks for (seconds or an HTTP date), if it is readable; at most 60 s. */
export const retryAfter = (header: string | undefined, now: number): Option.Option<Duration.Duration> => {
  if (header === undefined) return Option.none()
  const trimmed = header.trim()
  const millis = /^\d+$/.test(trimmed) ? Number(trimmed) * 1000 : Date.parse(trimmed) - now
  return Number.isFinite(millis)
    ? Option.some(Duration.min(Duration.millis(Math.max(0, millis)), maxRetryAfter))
    : Option.none()
}

/**
 * When to retry: `retries` times, after `delay` doubled for each further retry and jittered (0.8–1.2×,
 * so that the cases of a run that all met the same 503 do not come back at once), and never sooner than
 * the answer's `Retry-After`.
 */
export const retrySchedule = (retries: number, delay: Duration.Duration): Schedule.Schedule<unknown, Retried> =>
  Schedule.exponential(delay, 2).pipe(
    Schedule.jittered,
    Schedule.intersect(Schedule.recurs(retries)),
    Schedule.intersect(Schedule.identity<Retried>()),
    Schedule.modifyDelayEffect(([, retried], backoff) => {
      const header = retried.headers?.["retry-after"]
      if (header === undefined) return Effect.succeed(backoff)
      return Effect.map(Clock.currentTimeMillis, (now) =>
        Option.match(retryAfter(header, now), {
          onNone: () => backoff,
          onSome: (asked) => Duration.max(asked, backoff)
        }))
    })
  )
