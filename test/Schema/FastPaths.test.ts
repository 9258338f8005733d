/**
 * The fast decoders of the golden set on the inputs that matter most, every one of them and not by
 * chance: an unknown key at each level, an empty list, an empty or blank string in each field of each
 * kind. What the fast path accepts the schema must accept, as the same value; what the schema refuses
 * the fast path must leave to it, so that the user sees the schema's problem.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { fastExpectation, kinds } from "../../src/Graders/Kinds.js"
import { CasesFile, Expectation, expectationsOf, fastCasesFile } from "../../src/Schema/Case.js"
import { decodeJson } from "../../src/Schema/Decode.js"

const strict = Schema.decodeUnknownEither(CasesFile, { onExcessProperty: "error" })
const strictExpectation = Schema.decodeUnknownEither(Expectation, { onExcessProperty: "error" })

const validCase = {
  id: "docs.refunds",
  surface: "docs",
  question: "How long do refunds take?",
  guards: "answering refunds from memory",
  expect: [{ kind: "answer-includes", text: "14 days" }],
  tags: ["smoke"]
}
const file = (c: unknown) => ({ version: 1, cases: [c] })

/** The values a hand edit or a generator most often leaves in a field. */
const edge: ReadonlyArray<unknown> = ["", " ", "\t\n", [], [""], [" "], {}, null, 0, -1, 1.5, true, "x"]

/** The fast decoder agrees with the schema: it accepts exactly as the schema decodes, or gives up. */
const agrees =
  <A>(fast: (value: unknown) => A | undefined, schema: (value: unknown) => Either.Either<A, unknown>) =>
  (value: unknown): void => {
    const decoded = fast(value)
    if (decoded !== undefined) expect([value, schema(value)]).toEqual([value, Either.right(decoded)])
  }

describe("fastCasesFile", () => {
  it("accepts the valid file, as the schema decodes it", () => {
    expect(fastCasesFile(file(validCase))).toEqual(Either.getOrThrow(strict(file(validCase))))
    expect(expectationsOf(fastCasesFile(file(validCase))!.cases[0]!)).toEqual([
      { kind: "answer-includes", text: "14 days", ignoreCase: false }
    ])
  })

  it("leaves a case with no expectations, or a file with no cases, to the schema, which refuses them", () => {
    for (const value of [file({ ...validCase, expect: [] }), { version: 1, cases: [] }]) {
      expect(fastCasesFile(value)).toBeUndefined()
      expect(Either.isLeft(strict(value))).toBe(true)
    }
  })

  it("leaves an unknown key at every level to the schema, which refuses it", () => {
    const unknownKeys = [
      { ...file(validCase), note: "x" },
      file({ ...validCase, note: "x" }),
      file({ ...validCase, expect: [{ kind: "answer-includes", text: "14 days", note: "x" }] }),
      file({ ...validCase, expect: [{ kind: "no-citations", tool: "catalog" }] })
    ]
    for (const value of unknownKeys) {
      expect(fastCasesFile(value)).toBeUndefined()
      expect(Either.isLeft(strict(value))).toBe(true)
    }
  })

  it("refuses an unknown key in a cases file read from text, naming it, rather than dropping it", () => {
    const text = JSON.stringify(file({ ...validCase, note: "x" }))
    const decoded = decodeJson(CasesFile, "cases.json", text, "strict", fastCasesFile)
    expect(Either.isLeft(decoded) && decoded.left.message).toBe(
      "cases.json: $.cases[0].note: unknown key; " +
        "expected one of \"id\" | \"surface\" | \"question\" | \"guards\" | \"expect\" | \"tags\""
    )
  })

  it("leaves a version other than 1 and a file that is no object to the schema", () => {
    for (const value of [{ ...file(validCase), version: 2 }, { cases: [validCase] }, [file(validCase)], "x", null]) {
      expect(fastCasesFile(value)).toBeUndefined()
      expect(Either.isLeft(strict(value))).toBe(true)
    }
  })

  it("agrees with the schema on every field of a case set to each edge value, or removed", () => {
    const check = agrees(fastCasesFile, strict)
    for (const key of Object.keys(validCase)) {
      const { [key as keyof typeof validCase]: _, ...without } = validCase
      check(file(without))
      for (const value of edge) check(file({ ...validCase, [key]: value }))
    }
    // A blank field is refused: the fast path must have left each to the schema.
    for (const key of ["id", "surface", "question", "guards"]) {
      expect(fastCasesFile(file({ ...validCase, [key]: " " }))).toBeUndefined()
      expect(fastCasesFile(file({ ...validCase, [key]: "" }))).toBeUndefined()
    }
    expect(fastCasesFile(file({ ...validCase, tags: [""] }))).toBeUndefined()
    const untagged = file({ ...validCase, tags: [] })
    expect(fastCasesFile(untagged)).toEqual(Either.getOrThrow(strict(untagged)))
  })
})

describe("fastExpectation", () => {
  it("leaves an empty text to the schema, which refuses it", () => {
    for (const kind of ["answer-includes", "answer-excludes"]) {
      expect(fastExpectation({ kind, text: "" })).toBeUndefined()
      expect(Either.isLeft(strictExpectation({ kind, text: "" }))).toBe(true)
      // A blank text is a text: it is looked for as it is.
      expect(fastExpectation({ kind, text: " " })).toEqual({ kind, text: " ", ignoreCase: false })
    }
  })

  it("leaves a blank drafted mark and an unknown kind to the schema", () => {
    const blankMarks = [{ kind: "no-citations", drafted: "" }, { kind: "no-citations", drafted: " " }]
    for (const value of [...blankMarks, { kind: "nope" }, {}]) {
      expect(fastExpectation(value)).toBeUndefined()
      expect(Either.isLeft(strictExpectation(value))).toBe(true)
    }
    expect(fastExpectation({ kind: "no-citations", drafted: "held by turn t_1" })).toEqual({
      kind: "no-citations",
      drafted: "held by turn t_1"
    })
  })

  // Every kind's documented example, with an unknown key, and with each field set to each edge value or removed.
  for (const kind of kinds) {
    const example = kind.example.expect
    it(`agrees with the schema on ${kind.kind}: its example, an unknown key, each field at each edge value`, () => {
      expect(fastExpectation(example)).toEqual(Either.getOrThrow(strictExpectation(example)))
      expect(fastExpectation({ ...example, note: "x" })).toBeUndefined()
      const check = agrees(fastExpectation, strictExpectation)
      for (const field of kind.fields) {
        const { [field]: _, ...without } = example
        check(without)
        for (const value of edge) check({ ...example, [field]: value })
      }
    })
  }
})
