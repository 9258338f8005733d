import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import { decodeJson, duplicateKeys } from "../../src/Schema/Decode.js"

describe("duplicateKeys", () => {
  it("finds none in any JSON that JSON.stringify writes, whatever its keys hold", () =>
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(duplicateKeys(JSON.stringify(value))).toEqual([])
        expect(duplicateKeys(JSON.stringify(value, null, 2))).toEqual([])
      }),
      { numRuns: 500 }
    ))

  it("names each key given twice at its JSON path, escapes decoded", () => {
    expect(duplicateKeys(`{"floor": 0.95, "floor": 0.9}`)).toEqual([{
      path: "$.floor",
      message: "duplicate key \"floor\""
    }])
    expect(duplicateKeys(`{"a\\"b": 1, "a\\u0022b": 2}`)).toEqual([{
      path: "$[\"a\\\"b\"]",
      message: "duplicate key \"a\\\"b\""
    }])
    expect(duplicateKeys(`{"cases": [{"x": "}", "expect": [{}, {"kind": "a", "q": "\\\\", "kind": "b"}]}]}`)).toEqual([
      { path: "$.cases[0].expect[1].kind", message: "duplicate key \"kind\"" }
    ])
    // The same key in sibling objects is no duplicate.
    expect(duplicateKeys(`[{"a": 1}, {"a": 2}, {"b": {"a": 3}}]`)).toEqual([])
  })

  it("walks 100,000 levels of nesting without recursion", () => {
    const deep = `${"{\"a\":[".repeat(100_000)}${"]}".repeat(100_000)}`
    expect(duplicateKeys(deep)).toEqual([])
    const twice = `${"{\"a\":[".repeat(100_000)}{"k":1,"k":2}${"]}".repeat(100_000)}`
    const [found] = duplicateKeys(twice)
    expect(found?.message).toBe("duplicate key \"k\"")
    expect(found?.path.startsWith("$.a[0].a[0]")).toBe(true)
  })

  it("is applied to strict files only", () => {
    const schema = Schema.Struct({ floor: Schema.Number })
    expect(Either.isLeft(decodeJson(schema, "b.json", `{"floor": 1, "floor": 0.5}`, "strict"))).toBe(true)
    expect(decodeJson(schema, "r.json", `{"floor": 1, "floor": 0.5}`, "lenient")).toEqual(Either.right({ floor: 0.5 }))
  })
})
