/**
 * A proxy in front of an app on loopback that passes every request on and writes the app's event
 * streams again as another server may frame the same events: each event's JSON pretty-printed over
 * several `data:` lines, after a comment and `id`, `retry` and `event` fields, its lines ended by LF,
 * CRLF or CR in turn, and the whole written in one piece or one byte at a time. What the app wrote is
 * read without the suite's own reader: its frames must each be one `data: ` line.
 */
import { createServer, type IncomingMessage } from "node:http"
import { listenOnLoopback } from "./loopback.js"

/** How the proxy writes a stream: in one piece, or a byte per write, each written before the next. */
export type Delivery = "whole" | "bytes"

/** A running proxy. */
export interface ReframingProxy {
  /** The base URL to point a run at instead of the app's. */
  readonly url: string
  /** How many event streams it framed again, and their events. */
  readonly framed: () => { readonly streams: number; readonly events: number }
  readonly close: () => Promise<void>
}

const bodyOf = (request: IncomingMessage): Promise<Buffer> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks)))
    request.on("error", reject)
  })

// Headers that belong to one hop, which the proxy makes anew.
const hopHeaders = new Set(["host", "connection", "content-length", "transfer-encoding", "keep-alive"])

const endings = ["\n", "\r\n", "\r"]

/** The data of each frame of a stream whose frames are each `data: …` and a blank line. */
const framesOf = (text: string): ReadonlyArray<string> => {
  if (!text.endsWith("\n\n")) throw new Error(`the app's stream does not end with a blank line: ${text.slice(-80)}`)
  return text.slice(0, -2).split("\n\n").map((frame) => {
    if (!/^data: [^\n\r]*$/.test(frame)) throw new Error(`not one data line: ${JSON.stringify(frame)}`)
    return frame.slice("data: ".length)
  })
}

/** One event framed again: its data over several lines where it is JSON, `[DONE]` as it was. */
export const reframed = (data: string, index: number): string => {
  const end = endings[index % endings.length]!
  let lines: ReadonlyArray<string>
  try {
    lines = JSON.stringify(JSON.parse(data), null, 2).split("\n")
  } catch {
    lines = [data]
  }
  return [": framed again", `id: ${index}`, "retry: 3000", "event: message", ...lines.map((l) => `data: ${l}`), ""]
    .map((line) => `${line}${end}`)
    .join("")
}

/** Starts a proxy to `target` (an origin) that frames the app's event streams again, delivered as `delivery` says. */
export const startReframingProxy = async (target: string, delivery: Delivery): Promise<ReframingProxy> => {
  let streams = 0
  let events = 0
  const server = createServer((request, response) => {
    void (async () => {
      const body = await bodyOf(request)
      const headers = Object.fromEntries(
        Object.entries(request.headers).filter(([name, value]) => !hopHeaders.has(name) && typeof value === "string")
      ) as Record<string, string>
      const method = request.method ?? "GET"
      const answer = await fetch(new URL(request.url ?? "/", target), {
        method,
        headers,
        redirect: "manual",
        ...(method === "GET" || method === "HEAD" ? {} : { body })
      })
      const answered: Record<string, string> = {}
      answer.headers.forEach((value, name) => {
        if (!hopHeaders.has(name) && name !== "content-encoding") answered[name] = value
      })
      const text = await answer.text()
      if (!(answer.headers.get("content-type") ?? "").startsWith("text/event-stream")) {
        response.writeHead(answer.status, answered)
        return void response.end(text)
      }
      const frames = framesOf(text)
      streams++
      events += frames.length
      const bytes = Buffer.from(frames.map(reframed).join(""), "utf8")
      response.writeHead(answer.status, answered)
      if (delivery === "whole") return void response.end(bytes)
      for (let at = 0; at < bytes.length; at++) {
        await new Promise<void>((written, failed) =>
          response.write(bytes.subarray(at, at + 1), (error) => error ? failed(error) : written())
        )
      }
      response.end()
    })().catch((error: unknown) => {
      response.destroy(error instanceof Error ? error : new Error(String(error)))
    })
  })
  const listening = await listenOnLoopback(server)
  return { url: listening.url, framed: () => ({ streams, events }), close: listening.close }
}
