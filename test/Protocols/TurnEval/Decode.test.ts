/**
 * The turn-eval protocol's fast decoders skip the schema for the ask's ids (every event of a stream)
 * and for the conversation route's answer. Like the others (test/Schema/FastDecode.test.ts), they may
 * leave valid input to the schema, but never accept what it rejects, and give what it gives.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import { fastAskIds, fastConversation } from "../../../src/Protocols/TurnEval/Client.js"
import { decodeValue } from "../../../src/Schema/Decode.js"
import { AskIds, Conversation } from "../../../src/Schema/Protocol.js"

/** Valid values, valid values with a key replaced by anything, and anything. */
const nearValid = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof(
    valid,
    fc.tuple(valid, fc.string(), fc.anything({ maxDepth: 2 })).map(([value, key, other]) =>
      typeof value === "object" && value !== null ? { ...value, [key]: other } : value
    ),
    fc.record({ conversationId: fc.anything({ maxDepth: 1 }), turnId: fc.anything({ maxDepth: 1 }) }, {
      requiredKeys: []
    }),
    fc.anything()
  )

describe("fastAskIds", () => {
  it("gives exactly what decoding the ids leniently gives, or leaves the value to the schema", () => {
    fc.assert(
      fc.property(nearValid(Arbitrary.make(AskIds)), (value) => {
        const fast = fastAskIds(value)
        if (fast !== undefined) expect(decodeValue(AskIds, "ask", value, "lenient")).toEqual(Either.right(fast))
      }),
      { numRuns: 3000 }
    )
  })

  it("reads every event of a stream, with its ids or without", () => {
    expect(fastAskIds({ type: "text-delta", delta: "Roll back with" })).toEqual({})
    expect(fastAskIds({ type: "start", conversationId: "conv_1" })).toEqual({ conversationId: "conv_1" })
    expect(fastAskIds({ type: "finish", turnId: "turn_1", usage: { tokens: 3 } })).toEqual({ turnId: "turn_1" })
    expect(fastAskIds({ conversationId: 7 })).toBeUndefined()
    expect(fastAskIds(["conversationId"])).toBeUndefined()
  })
})

describe("fastConversation", () => {
  const decode = Schema.decodeUnknownEither(Conversation, { onExcessProperty: "preserve" })

  it("accepts only what the schema accepts, and as the schema decodes it", () => {
    fc.assert(
      fc.property(nearValid(Arbitrary.make(Conversation)), (value) => {
        const fast = fastConversation(value)
        if (fast !== undefined) expect(decode(value)).toEqual(Either.right(fast))
      }),
      { numRuns: 3000 }
    )
  })

  it("leaves an object naming __proto__ to the schema, which gives it another prototype in place of the key", () => {
    for (
      const text of [
        "{\"id\":\"\",\"messages\":[],\"__proto__\":[]}",
        "{\"id\":\"c\",\"messages\":[{\"role\":\"user\",\"content\":\"\",\"__proto__\":{}}]}"
      ]
    ) {
      const value: unknown = JSON.parse(text)
      expect(fastConversation(value)).toBeUndefined()
      expect(Either.isRight(decode(value))).toBe(true)
    }
  })

  it("accepts every valid conversation, so the hot path is the common one", () => {
    fc.assert(fc.property(Arbitrary.make(Conversation), (value) => {
      expect(fastConversation(value)).toBeDefined()
    }))
  })
})
