/**
 * The limits of what a problem shows, and of how strictly a file is read: a key quoted in a path, a
 * path to nesting too deep or to a duplicate key, the number of duplicates named; unknown keys refused
 * unless the file is read leniently.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { decodeJson, decodeValue, duplicateKeys, jsonPath, tooDeep } from "../../src/Schema/Decode.js"
import { nested } from "../support/json.js"

const Numbered = Schema.Struct({ a: Schema.Number })

const problems = (outcome: Either.Either<unknown, { readonly problems: ReadonlyArray<unknown> }>) =>
  Either.match(outcome, { onLeft: (e) => e.problems, onRight: () => [] })

describe("jsonPath", () => {
  it("quotes a key of up to 300 characters whole, and clips a longer one", () => {
    expect(jsonPath(["a b".repeat(100)])).toBe(`$["${"a b".repeat(100)}"]`)
    expect(jsonPath(["a b".repeat(101)])).toBe(`$["${"a b".repeat(100)}…"]`)
  })
})

describe("tooDeep", () => {
  it("finds an object at the limit's depth, and nothing in one whose deepest object is above it", () => {
    expect(tooDeep(nested(3, false, {}), 3)).toBe("$.a.a.a")
    expect(tooDeep(nested(3, false, 1), 3)).toBeUndefined()
    expect(tooDeep(nested(3, false, [null, "x"]), 3)).toBe("$.a.a.a")
  })

  it("finds nothing in null or a scalar", () => {
    expect(tooDeep(null)).toBeUndefined()
    expect(tooDeep("text", 0)).toBeUndefined()
  })
})

describe("decodeValue", () => {
  it("names the path to nesting too deep, clipped to 80 characters", () => {
    expect(problems(decodeValue(Numbered, "f.json", nested(300, false, 1)))).toEqual([
      { path: `$${".a".repeat(39)}.…`, message: "nested more than 256 levels deep" }
    ])
  })

  it("refuses an unknown key unless told to read leniently", () => {
    expect(problems(decodeValue(Numbered, "f.json", { a: 1, b: 2 }))).toEqual([
      { path: "$.b", message: "unknown key; expected one of \"a\"" }
    ])
    expect(decodeValue(Numbered, "f.json", { a: 1, b: 2 }, "lenient")).toEqual(Either.right({ a: 1 }))
  })
})

describe("decodeJson", () => {
  it("reads strictly unless told otherwise: unknown and duplicate keys are refused", () => {
    expect(problems(decodeJson(Numbered, "f.json", "{\"a\":1,\"b\":2}"))).toEqual([
      { path: "$.b", message: "unknown key; expected one of \"a\"" }
    ])
    expect(problems(decodeJson(Numbered, "f.json", "{\"a\":1,\"a\":2}"))).toEqual([
      { path: "$.a", message: "duplicate key \"a\"" }
    ])
    expect(decodeJson(Numbered, "f.json", "{\"a\":1,\"a\":2,\"b\":3}", "lenient")).toEqual(Either.right({ a: 2 }))
  })
})

describe("duplicateKeys", () => {
  it("names at most 100 duplicates", () => {
    const twice = (count: number) => `{${Array.from({ length: count + 1 }, (_, i) => `"k":${i}`).join(",")}}`
    expect(duplicateKeys(twice(100))).toHaveLength(100)
    expect(duplicateKeys(twice(150))).toHaveLength(100)
    expect(duplicateKeys(twice(99))).toHaveLength(99)
  })

  it("clips a path longer than 200 characters", () => {
    // `$.` and `.x` around a key of 196 characters: 200 in all.
    const key = "k".repeat(196)
    const message = "duplicate key \"x\""
    expect(duplicateKeys(`{"${key}":{"x":1,"x":2}}`)).toEqual([{ path: `$.${key}.x`, message }])
    expect(duplicateKeys(`{"${key}k":{"x":1,"x":2}}`)).toEqual([{ path: `$.${key}k.…`, message }])
  })
})
