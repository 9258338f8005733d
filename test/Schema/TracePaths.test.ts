/**
 * The fast decoders of recordings and traces on the inputs that matter, every one of them and not by
 * chance: each field of a recording that holds every optional part, set to each edge value or removed.
 * The fast path accepts exactly what the schema accepts, as the same value, and leaves the rest to it.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { fastRecordedTurn, fastTurnTrace, RecordedTurn, TurnTrace } from "../../src/Schema/Trace.js"
import { paths, removed, replaced } from "../support/json.js"

/** A recording with every optional field of every part present. */
const full = {
  caseId: "docs.refunds",
  question: "How long do refunds take?",
  answer: "14 days.",
  trace: {
    turnId: "turn_1",
    surface: "docs",
    outcome: "answered",
    citations: [{ path: "/docs/refunds", quote: "14 days", match: "quote" }, { path: "/docs/a", match: "unsurfaced" }],
    toolExecutions: [
      { tool: "search_docs", input: { q: "refunds" }, output: { hits: 1 }, error: null, durationMs: 12.5 },
      { tool: "catalog", error: "timeout" }
    ],
    proposal: { id: "p1", summary: "Roll back", status: "pending", actions: [{ kind: "deploy" }] },
    usage: { inputTokens: 120, outputTokens: 0 }
  }
}

/** The values a hand edit, a proxy or a buggy recorder most often leaves in a field. */
const edge: ReadonlyArray<unknown> = ["", "x", "path", [], {}, null, 0, -1, 1.5, 2 ** 53, true]

/** Every variant of `value`: each part set to each edge value, or removed. */
const variants = (value: unknown): Array<unknown> =>
  paths(value).flatMap((path) => [removed, ...edge].map((replacement) => replaced(value, path, replacement)))

/** The fast decoder accepts exactly what the schema accepts, as the value itself. */
const agrees = <A, I>(fast: (value: unknown) => A | undefined, schema: Schema.Schema<A, I>) => {
  const decode = Schema.decodeUnknownEither(schema, { onExcessProperty: "preserve" })
  return (value: unknown): void => {
    const decoded = fast(value)
    expect([value, decoded === undefined ? Either.isLeft(decode(value)) : decode(value)])
      .toEqual([value, decoded === undefined ? true : Either.right(value)])
  }
}

describe("fastRecordedTurn", () => {
  it("accepts the full recording as it is", () => {
    expect(fastRecordedTurn(full)).toBe(full)
  })

  it("agrees with the schema on every field set to each edge value, or removed", () => {
    const check = agrees(fastRecordedTurn, RecordedTurn)
    for (const variant of variants(full)) check(variant)
    for (const value of edge) check(value)
  })
})

describe("fastTurnTrace", () => {
  it("agrees with the schema on every field set to each edge value, or removed", () => {
    const check = agrees(fastTurnTrace, TurnTrace)
    expect(fastTurnTrace(full.trace)).toBe(full.trace)
    for (const variant of variants(full.trace)) check(variant)
    for (const value of edge) check(value)
  })
})
