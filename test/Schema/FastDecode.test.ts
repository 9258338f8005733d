/**
 * The fast decoders skip the schema on hot paths. They may give up on valid input (the schema then
 * decodes it), but they must never accept what the schema rejects, and what they accept must decode
 * to exactly what the schema gives.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, Either, FastCheck as fc, Schema } from "effect"
import { readFileSync } from "node:fs"
import { kinds } from "../../src/Graders/Kinds.js"
import { CasesFile, fastCasesFile } from "../../src/Schema/Case.js"
import { fastRecordedTurn, fastTurnTrace, RecordedTurn, TurnTrace } from "../../src/Schema/Trace.js"
import { type Path, paths, removed, replaced } from "../support/json.js"

/** The value at a path. */
const at = (value: unknown, path: Path): unknown =>
  path.reduce<unknown>((here, key) => (here as Record<string | number, unknown>)[key], value)

/** The paths of a value at which `keep` holds, the value itself included. */
const pathsWhere = (value: unknown, keep: (here: unknown) => boolean): Array<Path> =>
  [[], ...paths(value)].filter((path) => keep(at(value, path)))

/** One part of a value, among those `keep` picks, replaced by one of `by`. */
const oneReplaced = (
  value: unknown,
  keep: (here: unknown) => boolean,
  by: fc.Arbitrary<unknown>
): fc.Arbitrary<unknown> => {
  const chosen = pathsWhere(value, keep)
  return chosen.length === 0
    ? fc.constant(value)
    : fc.tuple(fc.constantFrom(...chosen), by).map(([path, other]) => replaced(value, path, other))
}

const isObject = (here: unknown): boolean => here !== null && typeof here === "object" && !Array.isArray(here)

/** One object of a value given a key that no schema of the contract knows. */
const withUnknownKey = (value: unknown): fc.Arbitrary<unknown> => {
  const objects = pathsWhere(value, isObject)
  if (objects.length === 0) return fc.constant(value)
  return fc.tuple(fc.constantFrom(...objects), fc.constantFrom("note", "Kind", "extra"), fc.jsonValue({ maxDepth: 1 }))
    .map(([path, key, extra]) => replaced(value, path, { ...(at(value, path) as object), [key]: extra }))
}

/**
 * Valid values, and valid values with one part replaced by anything or removed; and, in most runs, one
 * part emptied (an empty list, an empty or blank string) or one object given a key no schema knows.
 */
const nearValid = (valid: fc.Arbitrary<unknown>): fc.Arbitrary<unknown> =>
  fc.oneof(
    { arbitrary: valid, weight: 1 },
    {
      arbitrary: valid.chain((value) => {
        const all = paths(value)
        if (all.length === 0) return fc.constant(value)
        return fc.tuple(fc.constantFrom(...all), fc.anything({ maxDepth: 2 }), fc.boolean())
          .map(([path, other, remove]) => replaced(value, path, remove ? removed : other))
      }),
      weight: 2
    },
    // A list emptied, a string emptied or blanked, an object given a key no schema knows.
    { arbitrary: valid.chain((value) => oneReplaced(value, Array.isArray, fc.constant([]))), weight: 2 },
    {
      arbitrary: valid.chain((value) =>
        oneReplaced(value, (here) => typeof here === "string", fc.constantFrom("", " "))
      ),
      weight: 2
    },
    { arbitrary: valid.chain(withUnknownKey), weight: 2 },
    { arbitrary: fc.anything(), weight: 1 }
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
    type Expecting = { readonly expect: ReadonlyArray<object> }
    const cases = (file as { cases: ReadonlyArray<Expecting | { readonly turns: ReadonlyArray<Expecting> }> }).cases
    return fc.array(fc.option(marks, { nil: undefined }), { minLength: cases.length * 8, maxLength: cases.length * 8 })
      .map((picked) => {
        const marked = <A extends Expecting>(c: A, i: number, j = 0): A => ({
          ...c,
          expect: c.expect.map((e, k) => {
            const mark = picked[(i * 8 + j + k) % picked.length]
            return mark === undefined ? e : { ...e, drafted: mark }
          })
        })
        return {
          ...(file as object),
          // A conversation's marks go on its steps' expectations.
          cases: cases.map((c, i) =>
            "turns" in c ? { ...c, turns: c.turns.map((step, j) => marked(step, i, j)) } : marked(c, i)
          )
        }
      })
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

  it("reaches, in most runs, an empty list, an empty or blank string, or a key no schema knows", () => {
    const known = new Set(["version", "cases", "id", "surface", "question", "guards", "expect", "tags"])
    known.add("kind").add("drafted")
    for (const kind of kinds) for (const field of kind.fields) known.add(field)
    const edge = (value: unknown): boolean =>
      Array.isArray(value)
        ? value.length === 0 || value.some(edge)
        : typeof value === "string"
        ? value.trim() === ""
        : isObject(value) && Object.entries(value as object).some(([key, child]) => !known.has(key) || edge(child))
    const sample = fc.sample(nearValid(anyMarked), { numRuns: 1000, seed: 16 })
    expect(sample.filter(edge).length).toBeGreaterThan(sample.length / 2)
  })

  it("accepts every valid cases file", () => {
    fc.assert(
      fc.property(files, (value) => {
        expect(fastCasesFile(value)).toEqual(Either.getOrThrow(decode(value)))
      }),
      { numRuns: 300 }
    )
  })
})
