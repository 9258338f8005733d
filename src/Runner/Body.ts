/**
 * A response body read a chunk at a time without a Stream. A live run reads four bodies a case, and a
 * Stream run per body (its channel executor, its scope and finalizers) allocated more than the rest of
 * the request did (docs/performance.md has the figures). The live runs' HTTP client (`Http.ts`) answers
 * with responses that offer their body this way; the transport reads any other's `stream`.
 */
import { Effect } from "effect"
import type { Readable } from "node:stream"

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
