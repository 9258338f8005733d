/**
 * The surface protocol a live run speaks: ask a question in a new conversation, read the conversation
 * and the turn's trace, delete the conversation; and, to grow the golden set, list the turns users
 * rated thumbs-down. Route templates default to the ones below and can be overridden in the catalog's
 * `routes`.
 */
import { Schema } from "effect"
import { NonBlankString } from "./Fields.js"
import type { Routes } from "./Surface.js"

/** The routes of the protocol, by the name a fault or an error uses. */
export type Route = "ask" | "conversation" | "trace" | "delete" | "ratings"

/** Route templates, with `{conversationId}`, `{turnId}` and `{proposalId}` placeholders. */
export const defaultRoutes: Required<Routes> = {
  conversation: "/api/ai/conversations/{conversationId}",
  trace: "/api/ai/turns/{turnId}/trace",
  delete: "/api/ai/conversations/{conversationId}",
  ratings: "/api/ai/ratings?rating=down",
  decide: "/api/ai/proposals/{proposalId}/decision"
}

/** The routes a surface uses: its own `routes` over the catalog's, over the defaults. */
export const resolveRoutes = (routes: Routes | undefined, surfaceRoutes?: Routes): Required<Routes> => ({
  ...defaultRoutes,
  ...routes,
  ...surfaceRoutes
})

/** Fills a route template; values are URL-encoded so an id cannot change the path. */
export const fillRoute = (
  template: string,
  values: { conversationId?: string; turnId?: string; proposalId?: string }
): string =>
  template.replace(
    /\{(conversationId|turnId|proposalId)\}/g,
    (_, key: "conversationId" | "turnId" | "proposalId") => encodeURIComponent(values[key] ?? "")
  )

/** The longest conversation or turn id a run puts in a route. */
export const maxIdLength = 1024

// A lone surrogate: what a string holds where its bytes were not valid UTF-8 (with U+FFFD, the decoder's
// replacement for them).
const loneSurrogate = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/
const control = /[\u0000-\u001f\u007f-\u009f]/

/** `text` percent-decoded until it no longer changes (at most a few times), as a server might decode it. */
const decodedFully = (text: string): string => {
  let current = text
  for (let i = 0; i < 4; i++) {
    let next: string
    try {
      next = decodeURIComponent(current)
    } catch {
      return current
    }
    if (next === current) return current
    current = next
  }
  return current
}

/**
 * Why an id the app answered with cannot be put in a route, or `undefined` when it can. `.` and `..`
 * (also percent-encoded, or as a segment of the id) would make the URL drop path segments, so a read
 * or a delete would reach another resource with the user's session.
 */
export const idProblem = (id: string): string | undefined => {
  if (id === "") return "is empty"
  if (id.length > maxIdLength) return `is longer than ${maxIdLength} characters`
  if (control.test(id)) return "holds a control character"
  if (loneSurrogate.test(id) || id.includes("\ufffd")) return "is not valid UTF-8"
  if (decodedFully(id).split(/[/\\]/).some((segment) => segment === "." || segment === "..")) {
    return "would change the route's path"
  }
  return undefined
}

/**
 * Where a route is put: the base URL's origin and its path prefix (no trailing slash), and the start
 * every URL of the app has (`origin` + `prefix` + `/`).
 */
export interface RouteBase {
  readonly origin: string
  readonly prefix: string
  readonly within: string
}

/** The base a URL gives routes: its origin and its path, as a prefix. */
export const routeBaseOf = (baseUrl: URL): RouteBase => {
  const prefix = baseUrl.pathname.replace(/\/+$/, "")
  return { origin: baseUrl.origin, prefix, within: `${baseUrl.origin}${prefix}/` }
}

// Two slashes (a backslash is one to the URL parser) start a host; tab, newline and CR are dropped by the
// parser, so `/` + newline + `/host` is two slashes too; any other control character cannot be sent.
const namesHost = /^\/[/\\]/
const unsendable = /[\u0000-\u001f\u007f]/
const dotSegment = /(?:^|[/\\])\.\.?(?:[/\\]|$)/

/** Valid `%XX` sequences decoded, byte by byte, until nothing changes (as a server decoding twice would). */
const percentDecoded = (text: string): string => {
  let current = text
  for (let i = 0; i < 4 && current.includes("%"); i++) {
    const next = current.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    if (next === current) break
    current = next
  }
  return current
}

/**
 * The URL of a route's path (which may carry a query) under a base, or why it cannot go there: the
 * session is sent with every request, so a path must stay on the base's origin and under its path.
 * It must start with one `/` (`//host`, `/\host` and `/` + newline + `/host` name another host), hold
 * no control character and no `#`, no `\` in its path and no `.` or `..` segment there, percent-encoded or
 * not (the URL, or the server, would resolve it out of the base's path). The one check of every route
 * the catalog (or a journal) gives: `validate` runs it on every template, the transport on every request.
 */
export const placeRoute = (base: RouteBase, path: string): URL | string => {
  if (!path.startsWith("/")) return path === "" ? placeRoute(base, "/") : `does not start with "/"`
  if (namesHost.test(path)) return `starts with ${JSON.stringify(path.slice(0, 2))}, which names another host`
  const control = unsendable.exec(path)
  if (control !== null) {
    const code = control[0].charCodeAt(0).toString(16).toUpperCase().padStart(4, "0")
    return `holds a control character (U+${code}), which a URL drops or cannot carry`
  }
  if (path.includes("#")) return `holds "#": a fragment never reaches the app`
  const query = path.indexOf("?")
  const pathPart = query < 0 ? path : path.slice(0, query)
  if (pathPart.includes("\\")) return `holds "\\", which a URL reads as "/"`
  if (dotSegment.test(pathPart.includes("%") ? percentDecoded(pathPart) : pathPart)) {
    return `holds a "." or ".." segment (percent-encoded or not), which would leave the base URL's path`
  }
  let url: URL
  try {
    url = new URL(`${base.prefix}${path}`, base.origin)
  } catch {
    return "is not a URL path"
  }
  return url.href.startsWith(base.within) ? url : `would reach ${url.href}, outside ${base.within}`
}

/** The ids an ask answers with, in a JSON body or in any event of a stream. */
export const AskIds = Schema.Struct({
  conversationId: Schema.optionalWith(Schema.String, { exact: true }),
  turnId: Schema.optionalWith(Schema.String, { exact: true })
})

/** One message of a conversation. */
export const Message = Schema.Struct({
  role: Schema.String,
  content: Schema.String,
  turnId: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true }),
  /** On a user message that answered a proposal: the decision, which `propose` drafts an approve or deny step of. */
  decision: Schema.optionalWith(
    Schema.Struct({ approved: Schema.Boolean, reason: Schema.optionalWith(Schema.String, { exact: true }) }),
    { exact: true }
  )
})
/** One message of a conversation. */
export type Message = typeof Message.Type

/** A conversation as the conversation route returns it. */
export const Conversation = Schema.Struct({
  id: Schema.String,
  messages: Schema.Array(Message)
})
/** A conversation as the conversation route returns it. */
export type Conversation = typeof Conversation.Type

/** One thumbs-down rating as the ratings route lists it: the rated turn, its conversation, the user's comment. */
export const Rating = Schema.Struct({
  turnId: NonBlankString,
  conversationId: NonBlankString,
  comment: Schema.optionalWith(Schema.NullOr(Schema.String), { exact: true })
})
/** One thumbs-down rating as the ratings route lists it. */
export type Rating = typeof Rating.Type

/** The ratings route's answer: `[{"turnId", "conversationId", "comment"?}]`. */
export const Ratings = Schema.Array(Rating).annotations({
  message: () => "expected a list of ratings, [{\"turnId\", \"conversationId\", \"comment\"?}]"
})
