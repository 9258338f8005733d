/**
 * What every wire of the stand-in answers with: the request and the answer as a wire sees them,
 * whatever carries them (a socket of the stand-in's server, or a client in the same process), request
 * bodies read under a cap, JSON and text answers, event streams, route templates matched against a
 * request (a path and, for templates such as `/api/chat?id={conversationId}`, its query), and the
 * answer a fault gives in place of a proper one.
 */
import type { IncomingMessage, ServerResponse } from "node:http"
import type { Route } from "../Schema/Protocol.js"
import type { FaultKind } from "./Server.js"

/** A request as a wire reads it. */
export interface WireRequest {
  readonly method: string
  /** The target as written: its raw path (never normalised) and its query. */
  readonly url: string
  /** Its headers by lower-case name; a repeated one joined as Node joins it. */
  readonly headers: Readonly<Record<string, string | undefined>>
  /** Its body as text, or `undefined` when it is over the cap or broke off; read once. */
  readonly text: () => Promise<string | undefined>
}

/** The answer a wire writes, as a Node `ServerResponse` writes one. */
export interface WireResponse {
  /** Starts the answer with its status and headers (those set before included). */
  readonly writeHead: (status: number, headers?: Readonly<Record<string, string | number>>) => void
  /** Sets a header of the answer before it starts. */
  readonly setHeader: (name: string, value: string) => void
  /** Writes part of the body; `written` is called once it is handed on. */
  readonly write: (chunk: string, written?: () => void) => void
  /** Ends the answer, with a last part. */
  readonly end: (chunk?: string) => void
  /** Drops the connection, as an app that crashed would: an answer not ended is cut off where it is. */
  readonly drop: () => void
  /** Whether the answer has started. */
  readonly headersSent: () => boolean
  /** Called once the answer is over: ended, dropped, or given up by the client. */
  readonly onClose: (listener: () => void) => void
}

/** The largest request body a wire reads; a bigger one reads as none. */
export const maxRequestBody = 1024 * 1024

/** The size of a `huge` fault's padding when the fault names none. */
const hugeBytes = 5 * 1024 * 1024

/** A `huge` fault's padding. */
export const padding = (fault: { readonly bytes?: number }): string => "x".repeat(fault.bytes ?? hugeBytes)

/** A Node request's body as text, or `undefined` when it is over the cap or broke off. */
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

/** A request of the stand-in's server, as its wires read it. */
export const nodeRequest = (request: IncomingMessage): WireRequest => ({
  method: request.method ?? "GET",
  url: request.url ?? "/",
  // Only `set-cookie` is ever a list in Node's request headers, and no request carries it.
  headers: request.headers as Record<string, string | undefined>,
  text: () => readBody(request)
})

/** An answer of the stand-in's server, as its wires write it. */
export const nodeResponse = (response: ServerResponse): WireResponse => ({
  writeHead: (status, headers) => void response.writeHead(status, headers),
  setHeader: (name, value) => void response.setHeader(name, value),
  write: (chunk, written) => void response.write(chunk, written),
  end: (chunk) => void response.end(chunk),
  drop: () => void response.socket?.destroy(),
  headersSent: () => response.headersSent,
  onClose: (listener) => void response.on("close", listener)
})

/** A request's body parsed as JSON, or `undefined` when it is not JSON (or is over the cap). */
export const readJson = async (request: WireRequest): Promise<unknown> => {
  const raw = await request.text()
  if (raw === undefined) return undefined
  try {
    return JSON.parse(raw) as unknown
  } catch {
    return undefined
  }
}

/** Answers JSON. */
export const sendJson = (
  response: WireResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {}
): void => {
  const text = JSON.stringify(body)
  response.writeHead(status, {
    "content-type": "application/json",
    "content-length": Buffer.byteLength(text),
    ...headers
  })
  response.end(text)
}

/** Answers plain text, as some servers (LangGraph's) answer their errors. */
export const sendText = (
  response: WireResponse,
  status: number,
  text: string,
  headers: Record<string, string> = {}
): void => {
  response.writeHead(status, {
    "content-type": "text/plain;charset=UTF-8",
    "content-length": Buffer.byteLength(text),
    ...headers
  })
  response.end(text)
}

/** One `data:` frame of an event stream. */
export const sseFrame = (data: unknown): string => `data: ${typeof data === "string" ? data : JSON.stringify(data)}\n\n`

/**
 * Writes an event stream's frames: all of them, or, for a `reset` fault, the first `cut` and then
 * drops the connection, as an app that crashed mid-answer would. A `huge` fault's frame goes before
 * the last `tail` frames.
 */
export const writeStream = (
  response: WireResponse,
  headers: Record<string, string>,
  frames: ReadonlyArray<string>,
  options: { readonly cut?: number; readonly huge?: string; readonly tail?: number } = {}
): void => {
  response.writeHead(200, headers)
  if (options.cut !== undefined) {
    response.write(frames.slice(0, options.cut).join(""), () => response.drop())
    return
  }
  const tail = Math.min(options.tail ?? 0, frames.length)
  const body = options.huge === undefined
    ? frames
    : [...frames.slice(0, frames.length - tail), options.huge, ...frames.slice(frames.length - tail)]
  for (const frame of body) response.write(frame)
  response.end()
}

/**
 * Values a route template's placeholders took in a request, percent-encoded as in a path: the handler
 * decodes them (`decodeURIComponent`), so a malformed one fails there.
 */
export type Placeholders = Partial<Record<"conversationId" | "turnId" | "proposalId", string>>

/** A request's target as written: its raw path (never normalised, so `..` stays) and its query. */
export interface Target {
  readonly path: string
  readonly query: URLSearchParams
}

/** A request's target. */
export const targetOf = (url: string | undefined): Target => {
  const [path = "/", query = ""] = (url ?? "/").split("?", 2)
  return { path, query: new URLSearchParams(query) }
}

/** Matches a request's target against a template, or gives `undefined` when it does not match. */
export type TemplateMatcher = (target: Target) => Placeholders | undefined

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/**
 * A matcher for a route template under a path prefix. Placeholders in the path take one segment; a
 * query parameter whose template value is a placeholder takes that parameter's
 * value, and one with a literal value must have it. Query parameters the template does not name are
 * ignored, so a plain path template matches with any query.
 */
export const templateMatcher = (prefix: string, template: string): TemplateMatcher => {
  const [pathTemplate = "", queryTemplate] = template.split("?", 2)
  const path = new RegExp(
    `^${escapeRegExp(prefix + pathTemplate).replace(/\\\{(conversationId|turnId|proposalId)\\\}/g, "(?<$1>[^/]+)")}$`
  )
  const query = [...new URLSearchParams(queryTemplate ?? "")]
  return (target) => {
    const match = path.exec(target.path)
    if (match === null) return undefined
    const found: Placeholders = { ...match.groups }
    for (const [name, expected] of query) {
      const actual = target.query.get(name)
      const placeholder = /^\{(conversationId|turnId|proposalId)\}$/.exec(expected)
      if (placeholder === null) {
        if (actual !== expected) return undefined
      } else {
        if (actual === null || actual === "") return undefined
        found[placeholder[1] as keyof Placeholders] = encodeURIComponent(actual)
      }
    }
    return found
  }
}

/**
 * Answers a JSON route with a fault instead of `body`, its proper answer. The ask's own faults
 * (`opened`, `id`) are answered where the ask opens its conversation; here they are a plain failure.
 */
export const injure = (response: WireResponse, route: Route, fault: FaultKind, path: string, body: unknown): void => {
  switch (fault.kind) {
    case "status":
      return sendJson(
        response,
        fault.status,
        { error: `injected HTTP ${fault.status}` },
        fault.retryAfter === undefined ? {} : { "retry-after": fault.retryAfter }
      )
    case "hang":
      return
    case "reset": {
      // A delete's reset drops the connection before any answer: a 200 would say it was done.
      if (route === "delete") return void response.drop()
      const text = JSON.stringify(body)
      response.writeHead(200, { "content-type": "application/json", "content-length": Buffer.byteLength(text) })
      response.write(text.slice(0, Math.floor(text.length / 2)), () => response.drop())
      return
    }
    case "not-json":
      return notJson(response)
    case "wrong-shape":
      return sendJson(response, 200, wrongShape)
    case "huge":
      return sendJson(response, 200, { ...(body as object), padding: padding(fault) })
    case "redirect":
      response.writeHead(307, { location: `${fault.to}${path}` })
      return void response.end()
    case "opened":
    case "id":
    case "reused-id":
    case "no-result":
      return sendJson(response, 500, { error: "stand-in failure" })
  }
}

/** What a `wrong-shape` fault answers: JSON of no shape any route expects. */
export const wrongShape = { unexpected: true, items: [1, 2, 3] }

/** What a `not-json` fault answers: a proxy's error page where JSON or an event stream was expected. */
export const notJson = (response: WireResponse): void => {
  response.writeHead(200, { "content-type": "text/html" })
  response.end("<html><body>502 Bad Gateway</body></html>")
}

/** Whether a delete answered with this fault still deletes: a 200 (whatever its body) or a 404 says it is gone. */
export const deletesAnyway = (fault: FaultKind): boolean =>
  fault.kind === "not-json" || fault.kind === "wrong-shape" || fault.kind === "huge" ||
  (fault.kind === "status" && fault.status === 404)
