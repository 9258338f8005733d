/**
 * A hostile app on loopback: it speaks the surface protocol for the committed golden set's questions
 * (answers and traces from the recorded turns), but each ask is answered as a test says — ids that no
 * route may hold, failing statuses that name a conversation, bodies that stall, break or never end —
 * and it records every request it gets, so a test can check which were made.
 */
import { randomBytes } from "node:crypto"
import { readdirSync, readFileSync } from "node:fs"
import { createServer, type IncomingMessage, type ServerResponse } from "node:http"
import { join } from "node:path"
import { listenOnLoopback } from "./loopback.js"

/** How the app answers one ask, given the conversation and turn it really opened. */
export interface AskAnswer {
  /** The status (default 200). */
  readonly status?: number
  /** How the ids travel: headers only, a JSON body (with headers unless `headers` says otherwise), or an event stream. */
  readonly mode?: "headers" | "json" | "stream"
  /** The conversation id it names (default the real one); a Buffer is sent as raw bytes in a header. */
  readonly conversationId?: string | Buffer
  /** A second conversation id, named in the body where the header names the first. */
  readonly bodyConversationId?: string
  /** The turn id it names (default the real one). */
  readonly turnId?: string
  /** Whether to send the ids in headers too in json mode (default true). */
  readonly headers?: boolean
  /** A raw body to send instead (its bytes as given), of `contentType` (default JSON's). */
  readonly rawBody?: Buffer | string
  readonly contentType?: string
  /** Never finish the answer after the headers; `beforeHeaders` never even sends those. */
  readonly stall?: "beforeHeaders" | "afterHeaders"
  /** Drop the connection after the headers. */
  readonly breakOff?: boolean
  /** Stream one event-stream line without end, `chunk` characters at a time, up to `limit` characters. */
  readonly endlessLine?: { readonly limit: number }
  /** A Retry-After header. */
  readonly retryAfter?: string
}

/** A request the app got. */
export interface Seen {
  readonly method: string
  readonly url: string
}

/** A running hostile app. */
export interface HostileApp {
  readonly url: string
  readonly cookie: string
  readonly requests: () => ReadonlyArray<Seen>
  /** Conversations opened and not deleted, by their real ids. */
  readonly open: () => ReadonlyArray<string>
  /** Characters written into endless lines so far. */
  readonly endlessWritten: () => number
  readonly close: () => Promise<void>
}

interface Recorded {
  readonly caseId: string
  readonly question: string
  readonly answer: string
  readonly trace: { readonly turnId: string; readonly surface: string } & Record<string, unknown>
}

// The one-question recordings: the app answers each question as recorded (a conversation's has `turns`).
const recordings: ReadonlyArray<Recorded> = readdirSync("cases/fixtures").map((f) =>
  JSON.parse(readFileSync(join("cases/fixtures", f), "utf8")) as Recorded
).filter((r) => "trace" in r)

/** Starts the app; `answer` says how to answer the n-th ask (from 0) of a question. */
export const startHostileApp = async (
  answer: (question: string, n: number) => AskAnswer,
  options: { readonly conversationIdOf?: (realId: string) => string; readonly ratings?: unknown } = {}
): Promise<HostileApp> => {
  const token = randomBytes(8).toString("hex")
  const requests: Array<Seen> = []
  const conversations = new Map<string, { readonly question: string; readonly turnId: string }>()
  const asks = new Map<string, number>()
  const aliases = new Map<string, string>()
  let counter = 0
  let endless = 0
  const json = (response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
    const text = JSON.stringify(body)
    response.writeHead(status, {
      "content-type": "application/json",
      "content-length": Buffer.byteLength(text),
      ...headers
    })
    response.end(text)
  }
  const read = (request: IncomingMessage) =>
    new Promise<string>((resolve) => {
      let body = ""
      request.setEncoding("utf8").on("data", (c: string) => (body += c)).on("end", () => resolve(body))
    })
  const server = createServer(async (request, response) => {
    requests.push({ method: request.method ?? "", url: request.url ?? "" })
    if (request.headers.cookie !== `session=${token}`) return json(response, 401, { error: "sign in" })
    const url = request.url ?? "/"
    if (request.method === "POST" && url.endsWith("/ask")) {
      const question = (JSON.parse(await read(request)) as { message: string }).message
      const n = asks.get(question) ?? 0
      asks.set(question, n + 1)
      const how = answer(question, n)
      const real = `conv_${++counter}`
      const turnId = recordings.find((r) => r.question === question)?.trace.turnId ?? `turn_${counter}`
      conversations.set(real, { question, turnId })
      const conversationId = how.conversationId ?? real
      const named = typeof conversationId === "string" ? conversationId : conversationId.toString("latin1")
      // The conversation answers to the id it was named by, as the client reads that id.
      const alias = typeof conversationId === "string" ? conversationId : conversationId.toString("utf8")
      if (alias !== real) aliases.set(alias, real)
      const turn = how.turnId ?? turnId
      const status = how.status ?? 200
      const headers: Record<string, string> = how.retryAfter === undefined ? {} : { "retry-after": how.retryAfter }
      if (how.stall === "beforeHeaders") return
      if (how.mode !== "stream" && how.headers !== false) {
        // A value no header can hold (a line break, say) travels in the body alone.
        try {
          response.setHeader("x-conversation-id", named)
          response.setHeader("x-turn-id", turn)
        } catch {
          response.removeHeader("x-conversation-id")
        }
      }
      if (how.breakOff === true) {
        response.writeHead(status, { "content-type": "application/json", ...headers })
        response.flushHeaders()
        return void setTimeout(() => response.socket?.destroy(), 20)
      }
      if (how.stall === "afterHeaders") {
        response.writeHead(status, { "content-type": "application/json", ...headers })
        return void response.flushHeaders()
      }
      if (how.endlessLine !== undefined) {
        response.writeHead(status, { "content-type": "text/event-stream", ...headers })
        const chunk = "x".repeat(64 * 1024)
        response.write("data: ")
        const pump = () => {
          while (endless < how.endlessLine!.limit) {
            endless += chunk.length
            if (!response.write(chunk)) return void response.once("drain", pump)
          }
          response.end("\n\n")
        }
        response.on("error", () => undefined)
        return pump()
      }
      if (how.rawBody !== undefined) {
        response.writeHead(status, { "content-type": how.contentType ?? "application/json", ...headers })
        return void response.end(how.rawBody)
      }
      if (how.mode === "stream") {
        response.writeHead(status, { "content-type": "text/event-stream", ...headers })
        response.write(`data: ${JSON.stringify({ type: "start", conversationId: named })}\n\n`)
        response.write(`data: ${JSON.stringify({ type: "finish", turnId: turn })}\n\n`)
        return void response.end("data: [DONE]\n\n")
      }
      if (how.mode === "headers") {
        response.writeHead(status, { "content-type": "text/plain", ...headers })
        return void response.end("an answer")
      }
      return json(response, status, { conversationId: how.bodyConversationId ?? named, turnId: turn }, headers)
    }
    if (request.method === "GET" && url.startsWith("/api/ai/ratings")) return json(response, 200, options.ratings ?? [])
    const conversation = /^\/api\/ai\/conversations\/([^/?]+)$/.exec(url)
    const trace = /^\/api\/ai\/turns\/([^/?]+)\/trace$/.exec(url)
    if (conversation !== null) {
      const asked = decodeURIComponent(conversation[1]!)
      const id = aliases.get(asked) ?? asked
      const held = conversations.get(id)
      if (held === undefined) return json(response, 404, { error: "not found" })
      if (request.method === "DELETE") {
        conversations.delete(id)
        return json(response, 200, { deleted: id })
      }
      const recorded = recordings.find((r) => r.question === held.question)
      return json(response, 200, {
        id: options.conversationIdOf?.(id) ?? asked,
        messages: [
          { role: "user", content: held.question },
          { role: "assistant", content: recorded?.answer ?? "", turnId: held.turnId }
        ]
      })
    }
    if (trace !== null && request.method === "GET") {
      const recorded = recordings.find((r) => r.trace.turnId === decodeURIComponent(trace[1]!))
      return recorded === undefined ? json(response, 404, { error: "not found" }) : json(response, 200, recorded.trace)
    }
    return json(response, 404, { error: "no such route" })
  })
  const listening = await listenOnLoopback(server)
  return {
    url: listening.url,
    cookie: `session=${token}`,
    requests: () => [...requests],
    open: () => [...conversations.keys()],
    endlessWritten: () => endless,
    close: listening.close
  }
}
