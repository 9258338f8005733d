/**
 * The fast decoders skip the schema on hot paths. They may give up on valid input (the schema then
 * decodes it), but they must never accept what the schema rejects, and what they accept must decode
 * to exactly what the schema gives.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import { readFileSync } from "node:fs"
import { CasesFile, fastCasesFile } from "../../src/Schema/Case.js"
import { fastRecordedTurn, fastTurnTrace, RecordedTurn, TurnTrace } from "../../src/Schema/Trace.js"

type Path = ReadonlyArray<string | number>

const paths = (value: unknown, at: Path = []): Array<Path> => {
  if (value === null || typeof value !== "object") return []
  return Object.entries(value).flatMap(([key, child]) => {
    const here = [...at, Array.isArray(value) ? Number(key) : key]
    return [here, ...paths(child, here)]
  })
}

const replaced = (value: unknown, path: Path, replacement: unknown, remove: boolean): unknown => {
  if (path.length === 0) return replacement
  const [key, ...rest] = path
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>
  if (rest.length === 0 && remove) {
    if (Array.isArray(copy)) (copy as Array<unknown>).splice(key as number, 1)
    else delete copy[key!]
  } else {
    copy[key!] = replaced(copy[key!], rest, replacement, remove)
  }
  return copy
}

/** Valid values, and valid values with one part replaced by anything or removed. */
const nearValid = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof(
    valid,
    valid.chain((value) => {
      const all = paths(value)
      if (all.length === 0) return fc.constant(value)
      return fc.tuple(fc.constantFrom(...all), fc.anything({ maxDepth: 2 }), fc.boolean()).map(([path, other, remove]) =>
        replaced(value, path, other, remove)
      )
    }),
    fc.anything()
  )

describe("fastRecordedTurn", () => {
  const decode = Schema.decodeUnknownEither(RecordedTurn, { onExcessProperty: "preserve" })
  const committed = JSON.parse(readFileSync("cases/fixtures/docs.where-payments-api-catalog-retry.json", "utf8"))

  it("accepts only what the schema accepts, and as the schema decodes it", () => {
    fc.assert(
      fc.property(nearValid(fc.oneof(Arbitrary.make(RecordedTurn), fc.constant(committed))), (value) => {
        const fast = fastRecordedTurn(value)
        if (fast !== undefined) expect(decode(value)).toEqual(Either.right(fast))
      }),
      { numRuns: 3000 }
    )
  })

  it("accepts every valid recording, so the hot path is the common one", () => {
    fc.assert(fc.property(Arbitrary.make(RecordedTurn), (value) => {
      expect(fastRecordedTurn(value)).toBeDefined()
    }))
    expect(fastRecordedTurn(committed)).toBe(committed)
  })
})

describe("fastTurnTrace", () => {
  it("accepts only what the schema accepts, and as the schema decodes it", () => {
    const decode = Schema.decodeUnknownEither(TurnTrace, { onExcessProperty: "preserve" })
    fc.assert(
      fc.property(nearValid(Arbitrary.make(TurnTrace)), (value) => {
        const fast = fastTurnTrace(value)
        if (fast !== undefined) expect(decode(value)).toEqual(Either.right(fast))
      }),
      { numRuns: 2000 }
    )
  })
})

describe("fastCasesFile", () => {
  const decode = Schema.decodeUnknownEither(CasesFile, { onExcessProperty: "error" })
  const encode = Schema.encodeSync(CasesFile)
  const committed = JSON.parse(readFileSync("cases/golden-cases.json", "utf8"))
  const files = fc.oneof(Arbitrary.make(CasesFile).map((file) => encode(file) as unknown), fc.constant(committed))

  it("accepts only what the schema accepts, and decodes to the same value, defaults included", () => {
    fc.assert(
      fc.property(nearValid(files), (value) => {
        const fast = fastCasesFile(value)
        if (fast !== undefined) expect(decode(value)).toEqual(Either.right(fast))
      }),
      { numRuns: 2000 }
    )
  })

  it("accepts every valid cases file", () => {
    fc.assert(fc.property(files, (value) => {
      expect(fastCasesFile(value)).toEqual(Either.getOrThrow(decode(value)))
    }), { numRuns: 300 })
  })
})
