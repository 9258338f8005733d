/**
 * A proxy in front of an app on loopback that passes every request on, records what it saw, and can
 * hold answers back: a held request reaches the app (which opens its conversation and answers), but
 * its answer does not reach the client until the test releases it, as an app still streaming a long
 * answer would. That keeps asks in flight with their conversations open on every protocol, whose asks
 * are one request, and puts what the client does meanwhile in an order a test can check.
 */
import { createServer, type IncomingMessage, STATUS_CODES } from "node:http"
import { listenOnLoopback } from "./loopback.js"

/** A request the proxy saw: its method, its path and query, and its body. */
export interface Seen {
  readonly method: string
  readonly path: string
  readonly body: string
}

/** A running proxy. */
export interface HoldingProxy {
  /** The base URL to point a run at instead of the app's. */
  readonly url: string
  /** Every request passed on so far, in order. */
  readonly seen: () => ReadonlyArray<Seen>
  /** How many answers are held back now. */
  readonly held: () => number
  /** Settles as soon as `count` answers are held back at once. */
  readonly whenHeld: (count: number) => Promise<void>
  /** Holds back the answers to the requests `hold` selects from now on (answers held already stay held). */
  readonly setHold: (hold: (method: string, path: string) => boolean) => void
  /** Passes on every answer held back so far, as the app gave it, to each client still waiting for one. */
  readonly release: () => void
  /**
   * Answers the requests `refuse` gives a status for itself, with that status and a JSON error body,
   * never passing them on: an app without that route.
   */
  readonly setRefuse: (refuse: (method: string, path: string) => number | undefined) => void
  readonly close: () => Promise<void>
}

/** Whether a request is an ask on any protocol: a POST to a surface's endpoint, or a LangGraph run. */
export const isAsk = (method: string, path: string): boolean =>
  method === "POST" && (/\/ask$/.test(path) || /\/runs\/wait$/.test(path))

const bodyOf = (request: IncomingMessage): Promise<string> =>
  new Promise((resolve) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", () => resolve(""))
  })

// Headers that belong to one hop, which the proxy makes anew.
const hopHeaders = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive"])

/** Starts a proxy to `target` (an origin) that holds back the answers to requests `hold` selects. */
export const startHoldingProxy = async (
  target: string,
  initially: (method: string, path: string) => boolean = isAsk
): Promise<HoldingProxy> => {
  let hold = initially
  let refuse: (method: string, path: string) => number | undefined = () => undefined
  const seen: Array<Seen> = []
  let held = 0
  const withheld: Array<() => void> = []
  // Who waits for a number of answers held at once, woken as each answer is held.
  const waiting: Array<{ readonly count: number; readonly wake: () => void }> = []
  const heldChanged = () => {
    for (const w of waiting.filter((w) => held >= w.count)) {
      waiting.splice(waiting.indexOf(w), 1)
      w.wake()
    }
  }
  const server = createServer(async (request, response) => {
    const method = request.method ?? "GET"
    const path = request.url ?? "/"
    const body = await bodyOf(request)
    seen.push({ method, path, body })
    const refused = refuse(method, path)
    if (refused !== undefined) {
      // As FastAPI, which LangGraph-compatible servers are often built on, answers a route it lacks.
      response.writeHead(refused, { "content-type": "application/json" })
      return void response.end(JSON.stringify({ detail: STATUS_CODES[refused] ?? "" }))
    }
    const headers = Object.fromEntries(
      Object.entries(request.headers).filter(([name, value]) => !hopHeaders.has(name) && typeof value === "string")
    ) as Record<string, string>
    const answered = await fetch(`${target}${path}`, {
      method,
      headers,
      redirect: "manual",
      ...(body === "" ? {} : { body })
    }).catch(() => undefined)
    if (answered === undefined) return void response.destroy()
    const text = Buffer.from(await answered.arrayBuffer())
    const answer = () => {
      const passed: Record<string, string> = {}
      answered.headers.forEach((value, name) => {
        if (!hopHeaders.has(name)) passed[name] = value
      })
      response.writeHead(answered.status, passed)
      response.end(text)
    }
    if (hold(method, path)) {
      held++
      response.on("close", () => held--)
      heldChanged()
      withheld.push(() => {
        if (!response.destroyed) answer()
      })
      return
    }
    answer()
  })
  const listening = await listenOnLoopback(server)
  return {
    url: listening.url,
    seen: () => [...seen],
    held: () => held,
    whenHeld: (count) =>
      held >= count ? Promise.resolve() : new Promise((wake) => waiting.push({ count, wake: () => wake() })),
    setHold: (next) => void (hold = next),
    release: () => withheld.splice(0).forEach((answer) => answer()),
    setRefuse: (next) => void (refuse = next),
    close: listening.close
  }
}
