import { describe, expect, it } from "@effect/vitest"
import { FastCheck as fc } from "effect"
import { canonical, contains, shownJson } from "../../src/Graders/Json.js"
import { nested, reordered } from "../support/json.js"

/** JSON text with keys sorted at every level, written the plain recursive way: what canonical must equal. */
const sortedJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(sortedJson).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>
    return `{${Object.keys(record).sort().map((key) => `${JSON.stringify(key)}:${sortedJson(record[key])}`).join(",")}}`
  }
  return JSON.stringify(value)
}

const clip = (text: string): string => text.length > 200 ? `${text.slice(0, 200)}…` : text

const json = fc.jsonValue({ maxDepth: 4 })
const unicodeJson = fc.jsonValue({ maxDepth: 3, stringUnit: "grapheme" })

describe("contains", () => {
  it("takes an object to contain another when it has each of its keys with a containing value", () => {
    expect(contains({ service: "search-api", fields: ["owner"] }, { service: "search-api" })).toBe(true)
    expect(contains({ a: { b: { c: 1, d: 2 }, e: 3 } }, { a: { b: { c: 1 } } })).toBe(true)
    expect(contains({ a: { b: { c: 1 } } }, { a: { b: { c: 1, d: 2 } } })).toBe(false)
    expect(contains({ service: "payments" }, { service: "search-api" })).toBe(false)
    expect(contains({}, { owner: null })).toBe(false)
    expect(contains({ owner: null }, { owner: null })).toBe(true)
  })

  it("looks only at a value's own keys, never its prototype's", () => {
    expect(contains({}, JSON.parse("{\"constructor\":{}}"))).toBe(false)
    expect(contains({}, JSON.parse("{\"__proto__\":{}}"))).toBe(false)
    expect(contains({}, { toString: {} })).toBe(false)
  })

  it("takes {} as contained by every object and nothing else", () => {
    expect(contains({ a: 1 }, {})).toBe(true)
    expect(contains({}, {})).toBe(true)
    for (const other of [null, [], "", 0, false, "{}"]) expect(contains(other, {})).toBe(false)
  })

  it("compares arrays of the same length element by element", () => {
    expect(contains([1, 2], [1, 2])).toBe(true)
    expect(contains([{ id: 1, name: "a" }, 2], [{ id: 1 }, 2])).toBe(true)
    expect(contains([1, 2], [2, 1])).toBe(false)
    expect(contains([1, 2, 3], [1, 2])).toBe(false)
    expect(contains([1], [1, 2])).toBe(false)
    expect(contains([], [])).toBe(true)
    expect(contains({ 0: 1 }, [1])).toBe(false)
    expect(contains([1], { 0: 1 })).toBe(false)
  })

  it("compares other values by strict equality, with no coercion", () => {
    expect(contains(1, 1)).toBe(true)
    expect(contains("x", "x")).toBe(true)
    expect(contains(null, null)).toBe(true)
    expect(contains(1, "1")).toBe(false)
    expect(contains("1", 1)).toBe(false)
    expect(contains(0, false)).toBe(false)
    expect(contains(null, false)).toBe(false)
    expect(contains("", null)).toBe(false)
    expect(contains({ a: 1 }, 1)).toBe(false)
  })

  it("holds for any JSON value and itself, in any key order", () => {
    fc.assert(fc.property(json, (value) => {
      expect(contains(value, value)).toBe(true)
      expect(contains(reordered(value), value)).toBe(true)
    }))
  })

  it("holds when keys are added to the objects of the containing value", () => {
    fc.assert(fc.property(fc.dictionary(fc.string(), json), fc.dictionary(fc.string(), json), (wanted, extra) => {
      expect(contains({ ...extra, ...wanted }, wanted)).toBe(true)
    }))
  })

  it("walks a value nested 1,000,000 levels deep without a stack overflow", () => {
    const deep = nested(1_000_000)
    expect(contains(deep, nested(1_000_000))).toBe(true)
    expect(contains(deep, nested(999_999))).toBe(false)
    expect(contains(nested(1_000_000, true), nested(1_000_000, true))).toBe(true)
  })
})

describe("canonical", () => {
  it("is JSON.stringify with keys sorted at every level, for ordinary values", () => {
    expect(canonical({ b: 1, a: { d: [1, { z: 0, y: null }], c: "x" } })).toBe(
      "{\"a\":{\"c\":\"x\",\"d\":[1,{\"y\":null,\"z\":0}]},\"b\":1}"
    )
    fc.assert(
      fc.property(unicodeJson, (value) => {
        expect(canonical(value)).toBe(sortedJson(value))
      }),
      { numRuns: 500 }
    )
  })

  it("is JSON.stringify itself for a value whose keys are already in sorted order, or that has none", () => {
    fc.assert(fc.property(json.filter((value) => JSON.stringify(value) === sortedJson(value)), (value) => {
      expect(canonical(value)).toBe(JSON.stringify(value))
    }))
    expect(canonical([1, "two", null, true, -0.5])).toBe(JSON.stringify([1, "two", null, true, -0.5]))
  })

  it("ignores key order, so equal values give equal text", () => {
    expect(canonical({ query: "refund", limit: 5 })).toBe(canonical({ limit: 5, query: "refund" }))
    fc.assert(fc.property(json, (value) => {
      expect(canonical(reordered(value))).toBe(canonical(value))
    }))
  })

  it("tells apart values that differ: 1 and \"1\", array order, null and a missing key", () => {
    expect(canonical(1)).not.toBe(canonical("1"))
    expect(canonical([1, 2])).not.toBe(canonical([2, 1]))
    expect(canonical({ a: null })).not.toBe(canonical({}))
    expect(canonical({ a: [] })).not.toBe(canonical({ a: {} }))
  })

  it("writes a value nested 100,000 levels deep without a stack overflow", () => {
    expect(canonical(nested(100_000))).toBe(`${"{\"a\":".repeat(100_000)}"leaf"${"}".repeat(100_000)}`)
    expect(canonical(nested(100_000, true))).toBe(`${"[".repeat(100_000)}"leaf"${"]".repeat(100_000)}`)
  })
})

describe("shownJson", () => {
  it("is JSON.stringify, in the value's own key order, when that is 200 characters or fewer", () => {
    expect(shownJson({ service: "payments", fields: ["owner"] })).toBe(
      "{\"service\":\"payments\",\"fields\":[\"owner\"]}"
    )
    expect(shownJson(null)).toBe("null")
    expect(shownJson({})).toBe("{}")
    fc.assert(
      fc.property(unicodeJson.filter((value) => JSON.stringify(value).length <= 200), (value) => {
        expect(shownJson(value)).toBe(JSON.stringify(value))
      }),
      { numRuns: 500 }
    )
  })

  it("clips longer text to its first 200 characters and …", () => {
    const long = { query: "q".repeat(300), limit: 5 }
    expect(shownJson(long)).toBe(`${JSON.stringify(long).slice(0, 200)}…`)
    expect(shownJson("x".repeat(200))).toBe(`"${"x".repeat(199)}…`)
    expect(shownJson("x".repeat(198))).toBe(JSON.stringify("x".repeat(198)))
    fc.assert(
      fc.property(fc.array(unicodeJson, { minLength: 20, maxLength: 60 }), (value) => {
        expect(shownJson(value)).toBe(clip(JSON.stringify(value)))
      }),
      { numRuns: 300 }
    )
  })

  // Shown clipped without the whole value stringified (1,000 copies of 10 MB would not fit in a string).
  // No wall-clock bound: a hang fails on the time limit; how fast, `npm run bench` measures.
  it("shows a 10 MB string, or a key that long, clipped", () => {
    const huge = "x".repeat(10_000_000)
    expect(shownJson(huge)).toBe(`"${"x".repeat(199)}…`)
    expect(shownJson({ query: huge })).toBe(`{"query":"${"x".repeat(190)}…`)
    expect(shownJson({ [huge]: 1 })).toBe(`{"${"x".repeat(198)}…`)
    expect(shownJson(Array.from({ length: 1_000 }, () => huge))).toBe(`["${"x".repeat(198)}…`)
  })

  it("shows a value nested 1,000,000 levels deep without a stack overflow", () => {
    const deepObject = nested(1_000_000)
    const deepArray = nested(1_000_000, true)
    expect(shownJson(deepObject)).toBe(`${"{\"a\":".repeat(40)}…`)
    expect(shownJson(deepArray)).toBe(`${"[".repeat(200)}…`)
  })
})
