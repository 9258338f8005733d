/**
 * An `HttpClient` that answers from a table instead of a socket: for unit-sized tests of what is built
 * on the client (the transport, the protocol readers), beside the loopback tests that run a real server.
 */
import { HttpClient, HttpClientResponse } from "@effect/platform"
import { Effect, Layer } from "effect"

/** One answer of the table: a status (default 200), headers and a body (default empty). */
export interface Answer {
  readonly status?: number
  readonly headers?: Readonly<Record<string, string>>
  readonly body?: string
}

/** A request the client was sent: `GET /path?query`, with its headers and its body as text. */
export interface Seen {
  readonly route: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
}

/** Statuses whose answer has no body, which a web `Response` refuses one for. */
const bodiless = new Set([204, 205, 304])

/**
 * A client answering each request from `table`, keyed by method and URL (`"GET https://app.test/x"`).
 * A key holding a list answers its entries in turn, the last one from then on; a request the table
 * does not name is answered 404. `seen` lists every request in the order it came.
 */
export const tableClient = (table: Readonly<Record<string, Answer | ReadonlyArray<Answer>>>) => {
  const seen: Array<Seen> = []
  const served = new Map<string, number>()
  const client = HttpClient.make((request, url) =>
    Effect.sync(() => {
      const route = `${request.method} ${url.href}`
      const body = request.body._tag === "Uint8Array" ? new TextDecoder().decode(request.body.body) : undefined
      seen.push({ route, url: url.href, headers: request.headers, body })
      const entry = table[route]
      const answers: ReadonlyArray<Answer> = entry === undefined
        ? [{ status: 404 }]
        : Array.isArray(entry)
        ? entry
        : [entry as Answer]
      const turn = served.get(route) ?? 0
      served.set(route, turn + 1)
      const answer = answers[Math.min(turn, answers.length - 1)]!
      const status = answer.status ?? 200
      const response = new Response(bodiless.has(status) ? null : answer.body ?? "", {
        status,
        ...(answer.headers === undefined ? {} : { headers: answer.headers })
      })
      return HttpClientResponse.fromWeb(request, response)
    })
  )
  return {
    client,
    seen,
    /** The routes requested, in order. */
    routes: (): ReadonlyArray<string> => seen.map((s) => s.route),
    /** The client as the layer the code under test asks for. */
    layer: Layer.succeed(HttpClient.HttpClient, client)
  }
}
