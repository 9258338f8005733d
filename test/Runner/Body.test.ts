/**
 * Reading a Node readable stream a chunk at a time, as the live client's responses offer their body:
 * every chunk in order then the end, what broke the body off, and an interrupted read giving it up.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Fiber } from "effect"
import { PassThrough } from "node:stream"
import { readableChunks } from "../../src/Runner/Body.js"

/** Every chunk `next` gives until the end, as text. */
const readAll = (next: Effect.Effect<Uint8Array | undefined, unknown>) =>
  Effect.gen(function*() {
    const seen: Array<string> = []
    for (;;) {
      const chunk = yield* next
      if (chunk === undefined) return seen
      seen.push(Buffer.from(chunk).toString("utf8"))
    }
  })

const later = (ms: number, f: () => void) => setTimeout(f, ms)

describe("readableChunks", () => {
  it.live("gives every chunk in order, whether written before or while it waits, then the end", () =>
    Effect.gen(function*() {
      const body = new PassThrough()
      body.write("a")
      later(10, () => body.write("b"))
      later(20, () => body.end("c"))
      const seen = yield* readAll(readableChunks(body).next)
      expect(seen.join("")).toBe("abc")
      // A read after the end gives the end again.
      expect(yield* readableChunks(body).next).toBeUndefined()
    }))

  it.live("fails with what broke the body off, after the chunks that came before it", () =>
    Effect.gen(function*() {
      const body = new PassThrough()
      body.on("error", () => {})
      const { next } = readableChunks(body)
      body.write("a")
      expect(Buffer.from((yield* next)!).toString()).toBe("a")
      const reset = Object.assign(new Error("socket hang up"), { code: "ECONNRESET" })
      later(10, () => body.destroy(reset))
      expect(yield* Effect.either(next)).toEqual(Either.left(reset))
    }))

  it.live("fails a body destroyed before its end with no error", () =>
    Effect.gen(function*() {
      const body = new PassThrough()
      later(10, () => body.destroy())
      const failed = yield* Effect.flip(readableChunks(body).next)
      expect(String(failed)).toContain("destroyed before its end")
    }))

  it.live("destroys the body when a read that waits is interrupted, and when it is given up", () =>
    Effect.gen(function*() {
      const waiting = new PassThrough()
      const fiber = yield* Effect.fork(readableChunks(waiting).next)
      yield* Effect.sleep("10 millis")
      yield* Fiber.interrupt(fiber)
      expect(waiting.destroyed).toBe(true)
      expect(waiting.listenerCount("readable")).toBe(0)

      const given = new PassThrough()
      given.write("a")
      const chunks = readableChunks(given)
      yield* chunks.next
      chunks.cancel()
      expect(given.destroyed).toBe(true)
    }))
})
