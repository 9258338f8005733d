/**
 * Signing in to a live app: its base URL, checked, and the session — a cookie (`--cookie` or
 * `EVAL_COOKIE`) or a header (`EVAL_AUTH_HEADER`), one of them — checked for shape without ever being
 * shown. A live run, `candidates`, `propose` and `cleanup` all sign in so.
 */
import { Config, Effect, Option, Redacted } from "effect"
import { type Auth, cookieAuth } from "../Runner/Transport.js"
import { UsageError } from "../Schema/Errors.js"

/** A base URL the live client can use: http(s), and no credentials in it. */
export const parseBaseUrl = (text: string): Effect.Effect<URL, UsageError> =>
  Effect.try({
    try: () => new URL(text),
    catch: () =>
      new UsageError({ message: `--base-url ${text}: expected an http(s) URL such as http://127.0.0.1:5173` })
  }).pipe(
    Effect.filterOrFail(
      (url) => url.protocol === "http:" || url.protocol === "https:",
      () => new UsageError({ message: `--base-url ${text}: expected an http(s) URL such as http://127.0.0.1:5173` })
    ),
    Effect.filterOrFail(
      (url) => url.username === "" && url.password === "",
      (url) =>
        new UsageError({
          message:
            `--base-url ${url.protocol}//${url.host}${url.pathname}: expected an http(s) URL without credentials; the ` +
            `session goes in EVAL_COOKIE`
        })
    )
  )

/**
 * The session cookie from `--cookie` or `EVAL_COOKIE`, checked for shape without ever being shown. A
 * cookie holding a control character, DEL or a character beyond U+00FF cannot go in a header: it is
 * refused here, naming where it came from, rather than failing every case on the way out.
 */
const sessionCookie = (flag: Option.Option<Redacted.Redacted<string>>) =>
  Effect.gen(function*() {
    const fromEnv = yield* Config.option(Config.redacted("EVAL_COOKIE")).pipe(Effect.orElseSucceed(() => Option.none()))
    const present = (c: Redacted.Redacted<string>) => Redacted.value(c) !== ""
    const fromFlag = Option.filter(flag, present)
    const cookie = Option.orElse(fromFlag, () => Option.filter(fromEnv, present))
    if (Option.isNone(cookie)) {
      return yield* new UsageError({
        message:
          "a live run needs the session: set EVAL_COOKIE='name=value' (or pass --cookie), or EVAL_AUTH_HEADER='Authorization: Bearer …'"
      })
    }
    if (!/^[^=\s;]+=[^\r\n]*$/.test(Redacted.value(cookie.value))) {
      return yield* new UsageError({ message: "the session cookie must look like name=value, on one line" })
    }
    if (/[\u0000-\u001f\u007f]|[^\u0000-\u00ff]/.test(Redacted.value(cookie.value))) {
      return yield* new UsageError({
        message: `${
          Option.isSome(fromFlag) ? "--cookie" : "EVAL_COOKIE"
        }: the session cookie may hold no control character and no character beyond U+00FF`
      })
    }
    return { cookie: cookie.value, source: Option.isSome(fromFlag) ? "--cookie" : "EVAL_COOKIE" }
  })

/** Header names a session header may not take: the transport sets them, or they would reframe the request. */
const reservedHeaders = new Set([
  "accept",
  "connection",
  "content-length",
  "content-type",
  "expect",
  "host",
  "keep-alive",
  "proxy-connection",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade"
])

/**
 * The session header from `EVAL_AUTH_HEADER` (`Authorization: Bearer …`, `x-api-key: …`), checked for
 * shape without ever being shown, or `undefined` when it is not set.
 */
const sessionHeader = Effect.gen(function*() {
  const fromEnv = yield* Config.option(Config.redacted("EVAL_AUTH_HEADER")).pipe(
    Effect.orElseSucceed(() => Option.none())
  )
  if (Option.isNone(fromEnv) || Redacted.value(fromEnv.value).trim() === "") return undefined
  const text = Redacted.value(fromEnv.value)
  const match = /^([!#$%&'*+.^_`|~0-9A-Za-z-]+):[ \t]*(.*?)[ \t]*$/s.exec(text)
  if (match === null || match[2] === "") {
    return yield* new UsageError({
      message:
        "EVAL_AUTH_HEADER: expected one header as 'Name: value', such as 'Authorization: Bearer …' or 'x-api-key: …'"
    })
  }
  const header = match[1]!.toLowerCase()
  if (reservedHeaders.has(header)) {
    return yield* new UsageError({
      message: `EVAL_AUTH_HEADER: the ${header} header is the transport's; name the header that carries the session`
    })
  }
  if (/[\u0000-\u001f\u007f]|[^\u0000-\u00ff]/.test(match[2]!)) {
    return yield* new UsageError({
      message: "EVAL_AUTH_HEADER: the header's value may hold no control character and no character beyond U+00FF"
    })
  }
  return { header, value: Redacted.make(match[2]!), source: "EVAL_AUTH_HEADER" } satisfies Auth
})

/**
 * The run's session: the cookie from `--cookie` or `EVAL_COOKIE`, or the header from `EVAL_AUTH_HEADER`
 * — one of them, never both, so that which one signs in is never a guess.
 */
export const sessionAuth = (flag: Option.Option<Redacted.Redacted<string>>) =>
  Effect.gen(function*() {
    const header = yield* sessionHeader
    const envCookie = yield* Config.option(Config.redacted("EVAL_COOKIE")).pipe(
      Effect.orElseSucceed(() => Option.none())
    )
    const hasCookie = Option.exists(flag, (c) => Redacted.value(c) !== "") ||
      Option.exists(envCookie, (c) => Redacted.value(c) !== "")
    if (header === undefined) {
      const { cookie, source } = yield* sessionCookie(flag)
      return cookieAuth(cookie, source)
    }
    if (hasCookie) {
      return yield* new UsageError({
        message: `both a session cookie (${
          Option.isSome(flag) ? "--cookie" : "EVAL_COOKIE"
        }) and EVAL_AUTH_HEADER are set: keep the one that signs in to this app`
      })
    }
    return header
  })
