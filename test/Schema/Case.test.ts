import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { CasesFile, expectationKinds, expectationsOf } from "../../src/Schema/Case.js"
import { decodeJson, decodeValue } from "../../src/Schema/Decode.js"

const valid = {
  id: "docs.refunds",
  surface: "docs",
  question: "How long do refunds take?",
  guards: "answering refunds from memory",
  expect: [{ kind: "cites", path: "/docs/billing/refunds" }]
}

const problems = (value: unknown) =>
  Either.match(decodeValue(CasesFile, "cases.json", value), {
    onLeft: (error) => error.problems,
    onRight: () => []
  })

describe("the cases file", () => {
  it("decodes a valid file, defaulting ignoreCase to false", () => {
    const decoded = decodeValue(CasesFile, "cases.json", {
      version: 1,
      cases: [{ ...valid, expect: [{ kind: "answer-includes", text: "14 days" }], tags: ["smoke"] }]
    })
    expect(expectationsOf(Either.getOrThrow(decoded).cases[0]!)).toEqual([
      { kind: "answer-includes", text: "14 days", ignoreCase: false }
    ])
  })

  it("reports every problem with its JSON path", () => {
    expect(problems({
      version: 2,
      cases: [
        { ...valid, guards: "  ", expect: [] },
        {
          ...valid,
          id: "Docs Refunds",
          expect: [{ kind: "calls-tool" }, { kind: "nope" }, { kind: "cites", path: "/x", pth: 1 }]
        }
      ]
    })).toEqual([
      { path: "$.version", message: "expected 1, got 2" },
      { path: "$.cases[0].guards", message: "expected a non-empty string" },
      { path: "$.cases[0].expect", message: "expected at least one expectation" },
      {
        path: "$.cases[1].id",
        message:
          "expected a case id: lower-case letters, digits, \".\", \"_\" or \"-\", starting with a letter or digit, at " +
          "most 128 characters; got \"Docs Refunds\""
      },
      { path: "$.cases[1].expect[0].tool", message: "missing" },
      {
        path: "$.cases[1].expect[1].kind",
        // Every kind the registry has, in its order.
        message: `expected ${expectationKinds.map((kind) => JSON.stringify(kind)).join(" | ")}, got "nope"`
      },
      { path: "$.cases[1].expect[2].pth", message: "unknown key; expected one of \"kind\" | \"path\" | \"drafted\"" }
    ])
  })

  it("takes a drafted mark on any expectation, and rejects a blank or non-string one", () => {
    const marked = [
      { kind: "cites-only-surfaced", drafted: "violated by turn t_1: unsurfaced: /docs/x" },
      { kind: "calls-tool", tool: "catalog", drafted: "held by turn t_1" },
      { kind: "answer-includes", text: "x", drafted: "held by turn t_1" }
    ]
    const decoded = decodeValue(CasesFile, "cases.json", { version: 1, cases: [{ ...valid, expect: marked }] })
    expect(expectationsOf(Either.getOrThrow(decoded).cases[0]!)).toEqual([marked[0], marked[1], {
      ...marked[2],
      ignoreCase: false
    }])
    expect(
      problems({
        version: 1,
        cases: [{
          ...valid,
          expect: [{ kind: "no-citations", drafted: " " }, { kind: "outcome", is: "x", drafted: 1 }]
        }]
      })
    )
      .toEqual([
        { path: "$.cases[0].expect[0].drafted", message: "expected a non-empty string" },
        { path: "$.cases[0].expect[1].drafted", message: "expected string, got 1" }
      ])
  })

  it("rejects an empty golden set and an empty text to look for", () => {
    expect(problems({ version: 1, cases: [] })).toEqual([{ path: "$.cases", message: "expected at least one case" }])
    expect(problems({ version: 1, cases: [{ ...valid, expect: [{ kind: "answer-excludes", text: "" }] }] })).toEqual([
      { path: "$.cases[0].expect[0].text", message: "expected a non-empty text to look for" }
    ])
  })

  it.each(["../../etc/x", "a/b", "a\\b", ".hidden", "-flag", "", "UPPER", "a b", "é", "x".repeat(129)])(
    "rejects the id %j, which could not name a file safely",
    (id) => {
      const found = problems({ version: 1, cases: [{ ...valid, id }] })
      expect(found.map((p) => p.path)).toEqual(["$.cases[0].id"])
    }
  )

  it.each(["a", "0", "docs.refunds_v2-b", "x".repeat(128)])("accepts the id %j", (id) => {
    expect(problems({ version: 1, cases: [{ ...valid, id }] })).toEqual([])
  })

  it("clips a huge value in a message and shows control characters escaped", () => {
    const [problem] = problems({ version: 1, cases: [{ ...valid, surface: 7, question: "ok" }], extra: "\u001b[31m" })
    expect(problem).toEqual({
      path: "$.extra",
      message: "unknown key; expected one of \"version\" | \"cases\""
    })
    const [huge] = problems({ version: 1, cases: [{ ...valid, id: `A${"x".repeat(10_000)}` }] })
    expect(huge?.message.length).toBeLessThanOrEqual(301)
    const [escape] = problems({ version: 1, cases: [{ ...valid, id: "\u001b[2J" }] })
    expect(escape?.message).not.toContain("\u001b")
  })
})

describe("deeply nested values", () => {
  it.each([
    [
      "an expectation's kind",
      (deep: string) =>
        `{"version": 1, "cases": [{"id": "a", "surface": "s", "question": "q", "guards": "g", "expect": [{"kind": ${deep}}]}]}`,
      "$.cases[0].expect[0].kind"
    ],
    ["a case", (deep: string) => `{"version": 1, "cases": [${deep}]}`, "$.cases[0]"],
    ["the whole file", (deep: string) => deep, "$"]
  ])("are refused at their JSON path, in %s", (_, wrap, at) => {
    const deep = "[".repeat(50_000) + "]".repeat(50_000)
    const result = decodeJson(CasesFile, "cases.json", wrap(deep))
    expect(Either.isLeft(result) && result.left.problems).toEqual([
      {
        path: expect.stringMatching(new RegExp(`^${at.replace(/[.$[\]]/g, "\\$&")}`)),
        message: "nested more than 256 levels deep"
      }
    ])
  })
})

describe("JSON syntax errors", () => {
  it("name the file, line and column", () => {
    const result = decodeJson(CasesFile, "cases/golden-cases.json", "{\n  \"version\": 1,\n  \"cases\": [\n}")
    expect(Either.isLeft(result) && result.left.message).toMatch(
      /^cases\/golden-cases\.json: not valid JSON: unexpected "}" at line 4, column 1$/
    )
  })

  it("accept a byte-order mark and report an empty file", () => {
    expect(Either.isRight(decodeJson(CasesFile, "c.json", `\ufeff${JSON.stringify({ version: 1, cases: [valid] })}`)))
      .toBe(true)
    const empty = decodeJson(CasesFile, "c.json", "")
    expect(Either.isLeft(empty) && empty.left.message).toBe(
      "c.json: not valid JSON: unexpected end of input at line 1, column 1"
    )
  })
})
