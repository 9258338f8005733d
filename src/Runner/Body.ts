/**
 * Reading a response body, bounded: in chunks, as text, read away, or as the events of an event stream
 * (`EventStream.ts`), a body, a line and an event's data each held to a limit, for any
 * `HttpClientResponse`. A response may offer its body a chunk at a time without a Stream (the live
 * runs' client does, `Http.ts`): a live run reads four bodies a case, and a Stream run per body (its
 * channel executor, its scope and finalizers) costs more than the rest of the request
 * (docs/performance.md has the figures). Any other response is read through its `stream`. This module
 * is the one place that tells the two apart.
 */
import type { HttpClientResponse } from "@effect/platform"
import { Chunk, Effect, Exit, Stream } from "effect"
import type { Readable } from "node:stream"
import { eventReader } from "./EventStream.js"

/** The key under which a response offers its body a chunk at a time. */
export const ChunksTypeId: unique symbol = Symbol.for("turn-eval/Runner/Body/Chunks")

/** A body read a chunk at a time. */
export interface Chunks {
  /** The next chunk, or `undefined` at the body's end; fails with what broke the body off. */
  readonly next: Effect.Effect<Uint8Array | undefined, unknown>
  /** Gives the body up part-way: its connection is closed rather than read to its end. */
  readonly cancel: () => void
}

/** A response that offers its body a chunk at a time. */
export interface HasChunks {
  readonly [ChunksTypeId]: () => Chunks
}

/** Whether a response offers its body a chunk at a time. */
export const hasChunks = (response: unknown): response is HasChunks =>
  typeof response === "object" && response !== null && ChunksTypeId in response

/**
 * Gives up a response's body unread: its connection is closed, where otherwise it would be held until
 * the run ends. Nothing for a response that does not offer its body a chunk at a time.
 */
export const giveUp = (response: unknown): void => {
  if (hasChunks(response)) response[ChunksTypeId]().cancel()
}

const end = Effect.succeed(undefined)

/** The chunks of a Node readable stream; an interrupted read destroys it. */
export const readableChunks = (body: Readable): Chunks => {
  const cancel = () => {
    body.destroy()
  }
  const next: Effect.Effect<Uint8Array | undefined, unknown> = Effect.suspend(() => {
    const chunk = body.read() as Uint8Array | null
    if (chunk !== null) return Effect.succeed(chunk)
    if (body.readableEnded) return end
    if (body.errored !== null) return Effect.fail(body.errored)
    if (body.destroyed) return Effect.fail(new Error("the body was destroyed before its end"))
    return Effect.async<Uint8Array | undefined, unknown>((resume) => {
      const wake = () => {
        off()
        resume(next)
      }
      const off = () => {
        body.off("readable", wake)
        body.off("end", wake)
        body.off("error", wake)
        body.off("close", wake)
      }
      body.on("readable", wake)
      body.on("end", wake)
      body.on("error", wake)
      body.on("close", wake)
      return Effect.sync(() => {
        off()
        cancel()
      })
    })
  })
  return { next, cancel }
}

/** What went over its limit: the body, a line of an event stream, or one event's data. */
export type Part = "body" | "line" | "event"

/** What a bounded read fails with, in the caller's words. */
export interface ReadFailures<F> {
  /** The body, a line or an event went over `limit` bytes. */
  readonly tooLarge: (part: Part, limit: number) => F
  /** The body broke off before its end (the connection reset, the stream errored). */
  readonly brokeOff: (cause: unknown) => F
}

/** The limits of an event stream's reading. */
export interface EventLimits {
  readonly maxBodyBytes: number
  readonly maxLineBytes: number
  readonly maxEventBytes: number
}

/**
 * Gives `f` each item in order, with its index, running the effect it may give before the next item is
 * seen; what is left to run, if anything. Items that cost no effect cost none here either.
 */
const eachInOrder = <A, E>(
  items: ReadonlyArray<A>,
  f: (item: A, index: number) => Effect.Effect<void, E> | undefined,
  from = 0
): Effect.Effect<void, E> | undefined => {
  for (let i = from; i < items.length; i++) {
    const after = f(items[i]!, i)
    if (after !== undefined) {
      return Effect.zipRight(
        after,
        Effect.suspend(() => eachInOrder(items, f, i + 1) ?? Effect.void)
      )
    }
  }
  return undefined
}

/**
 * Reads a body a chunk at a time, failing past `limit` bytes: `each` sees every chunk in order, and
 * the effect it may give runs before the next chunk is read. A body given up part-way has its
 * connection closed.
 */
export const forEachChunk = <E, F>(
  response: HttpClientResponse.HttpClientResponse,
  limit: number,
  failures: ReadFailures<F>,
  each: (chunk: Uint8Array) => Effect.Effect<void, E> | undefined
): Effect.Effect<void, E | F> => {
  let bytes = 0
  const take = (chunk: Uint8Array): Effect.Effect<void, E | F> | undefined => {
    bytes += chunk.byteLength
    return bytes > limit ? Effect.fail(failures.tooLarge("body", limit)) : each(chunk)
  }
  if (!hasChunks(response)) {
    return Stream.runForEachChunk(
      Stream.mapError(response.stream, failures.brokeOff),
      (chunks) => eachInOrder(Chunk.toReadonlyArray(chunks), take) ?? Effect.void
    )
  }
  const chunks = response[ChunksTypeId]()
  const next = Effect.mapError(chunks.next, failures.brokeOff)
  const loop: Effect.Effect<void, E | F> = Effect.flatMap(next, (chunk) => {
    if (chunk === undefined) return Effect.void
    const after = take(chunk)
    return after === undefined ? loop : Effect.zipRight(after, loop)
  })
  return Effect.onExit(loop, (exit) => Exit.isSuccess(exit) ? Effect.void : Effect.sync(chunks.cancel))
}

/**
 * The body as text, at most `limit` bytes. A declared length is checked up front and the body read in
 * one piece; only a body of unknown length is read a chunk at a time, counting its bytes.
 */
export const readText = <F>(
  response: HttpClientResponse.HttpClientResponse,
  limit: number,
  failures: ReadFailures<F>
): Effect.Effect<string, F> => {
  const declared = Number(response.headers["content-length"])
  if (Number.isInteger(declared)) {
    return declared > limit
      ? Effect.zipRight(Effect.sync(() => giveUp(response)), Effect.fail(failures.tooLarge("body", limit)))
      : Effect.mapError(response.text, failures.brokeOff)
  }
  const pieces: Array<Uint8Array> = []
  const read = forEachChunk<never, F>(response, limit, failures, (chunk) => {
    pieces.push(chunk)
    return undefined
  })
  return Effect.map(read, () => Buffer.concat(pieces).toString("utf8"))
}

/** What a read nobody waits on fails with: nothing anyone reads. */
const unread: ReadFailures<void> = { tooLarge: () => undefined, brokeOff: () => undefined }

/**
 * Reads a body nobody needs to its end (at most `limit` bytes), so its connection serves the next
 * request; one over the limit, or broken off, is given up.
 */
export const discard = (response: HttpClientResponse.HttpClientResponse, limit: number): Effect.Effect<void> =>
  Effect.ignore(readText(response, limit, unread))

/**
 * Reads the events of an event stream, in order (`EventStream.ts` says how a stream is read), the body,
 * every line and every event's data bounded: `each` sees every event's data and its `event` field, and
 * the effect it may give runs before the next event is seen.
 */
export const forEachEvent = <E, F>(
  response: HttpClientResponse.HttpClientResponse,
  limits: EventLimits,
  failures: ReadFailures<F>,
  each: (data: string, event: string | undefined) => Effect.Effect<void, E> | undefined
): Effect.Effect<void, E | F> => {
  const reader = eventReader<Effect.Effect<void, E | F> | undefined>(
    { maxLineBytes: limits.maxLineBytes, maxEventBytes: limits.maxEventBytes },
    ({ data, names }) => eachInOrder(data, (item, i) => each(item, names?.[i])),
    (what) => Effect.fail(failures.tooLarge(what, what === "line" ? limits.maxLineBytes : limits.maxEventBytes))
  )
  return forEachChunk<E | F, F>(response, limits.maxBodyBytes, failures, reader.push)
}
