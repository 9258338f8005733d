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
  // `drafted` marks of every shape, valid or not: a non-blank reason, blanks, other types.
  const validMarks = fc.oneof(
    fc.string({ minLength: 1 }).filter((s) => s.trim().length > 0),
    fc.constantFrom("held by turn t_1", "violated by turn t_1: unsurfaced: /docs/x")
  )
  const anyMarks = fc.oneof(validMarks, fc.constantFrom("", " ", "\t\n"), fc.anything({ maxDepth: 1 }))
  const withMarks = (marks: fc.Arbitrary<unknown>) => (file: unknown): fc.Arbitrary<unknown> => {
    const cases = (file as { cases: ReadonlyArray<{ expect: ReadonlyArray<object> }> }).cases
    return fc.array(fc.option(marks, { nil: undefined }), { minLength: cases.length * 8, maxLength: cases.length * 8 })
      .map((picked) => ({
        ...(file as object),
        cases: cases.map((c, i) => ({
          ...c,
          expect: c.expect.map((e, k) => {
            const mark = picked[(i * 8 + k) % picked.length]
            return mark === undefined ? e : { ...e, drafted: mark }
          })
        }))
      }))
  }
  const plain = fc.oneof(Arbitrary.make(CasesFile).map((file) => encode(file) as unknown), fc.constant(committed))
  const files = fc.oneof(plain, plain.chain(withMarks(validMarks)))
  const anyMarked = fc.oneof(files, plain.chain(withMarks(anyMarks)))

  it("accepts only what the schema accepts, and decodes to the same value, defaults included", () => {
    fc.assert(
      fc.property(nearValid(anyMarked), (value) => {
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
