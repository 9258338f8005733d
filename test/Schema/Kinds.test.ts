/**
 * How a cases file's expectations of the trajectory, pattern, recall and budget kinds decode: valid
 * ones to themselves, by the schema and the fast decoder alike, and each bad field refused at its JSON
 * path with what was expected — by both paths, since the fast decoder may never accept what the
 * schema refuses.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { kindNamed } from "../../src/Graders/Kinds.js"
import { CasesFile, expectationsOf, fastCasesFile } from "../../src/Schema/Case.js"
import { decodeJson, decodeValue } from "../../src/Schema/Decode.js"
import { trajectoryKinds } from "../support/turns.js"

const fileWith = (...expectations: ReadonlyArray<unknown>) => ({
  version: 1,
  cases: [{ id: "docs.refunds", surface: "docs", question: "q", guards: "g", expect: expectations }]
})

const problems = (...expectations: ReadonlyArray<unknown>) =>
  Either.match(decodeValue(CasesFile, "cases.json", fileWith(...expectations)), {
    onLeft: (e) => e.problems,
    onRight: () => []
  })

/** The problems of the file as text, through the fast decoder first, as the golden set is read. */
const problemsOfText = (...expectations: ReadonlyArray<unknown>) =>
  Either.match(
    decodeJson(CasesFile, "cases.json", JSON.stringify(fileWith(...expectations)), "strict", fastCasesFile),
    {
      onLeft: (e) => e.problems,
      onRight: () => []
    }
  )

/** Refused by the schema with exactly these problems, and by the fast decoder too. */
const refused = (expectation: unknown, expected: ReadonlyArray<{ path: string; message: unknown }>) => {
  expect(fastCasesFile(fileWith(expectation))).toBeUndefined()
  expect(problems(expectation)).toEqual(expected)
  expect(problemsOfText(expectation)).toEqual(expected)
}

const at = (field: string) => `$.cases[0].expect[0].${field}`

const newKinds = trajectoryKinds

describe("the new kinds decode", () => {
  const valid = [
    {
      kind: "calls-tool",
      tool: "catalog",
      with: { service: "search-api", fields: ["owner"], n: 1, ok: true, none: null }
    },
    { kind: "calls-tool", tool: "catalog", with: null },
    { kind: "calls-tool", tool: "catalog", with: [] },
    { kind: "calls-in-order", tools: ["read_config", "propose_change"] },
    { kind: "calls-in-order", tools: ["search_docs", "catalog", "search_docs"], exact: true },
    { kind: "calls-at-most", times: 0 },
    { kind: "calls-at-most", times: 3, tool: "search_docs" },
    { kind: "no-repeated-calls" },
    { kind: "no-repeated-calls", tool: "search_docs" },
    { kind: "answer-matches", pattern: "refund within \\d+ days" },
    { kind: "answer-matches", pattern: "rm -rf \\S+", flags: "is", negate: true },
    { kind: "answer-matches", pattern: "(?i)x", flags: "ims", negate: false },
    { kind: "cites-all", paths: ["/docs/a"] },
    { kind: "cites-all", paths: ["/docs/a", "/docs/b", "/docs/a"], drafted: "held by turn t_1" },
    { kind: "within-budget", tokens: 1 },
    { kind: "within-budget", tokens: 4000 }
  ]

  it.each(valid)("%j to itself, by the schema and the fast decoder alike", (expectation) => {
    const decoded = Either.getOrThrow(decodeValue(CasesFile, "cases.json", fileWith(expectation)))
    expect(expectationsOf(decoded.cases[0]!)).toEqual([expectation])
    expect(fastCasesFile(fileWith(expectation))).toEqual(decoded)
  })

  it.each(newKinds)("%s: its documented example decodes", (kind) => {
    expect(problems(kindNamed(kind)!.example.expect)).toEqual([])
  })
})

describe("the new kinds' fields are refused at their JSON path", () => {
  it("calls-in-order: tools with fewer than two names, blank names, exact not a boolean", () => {
    refused({ kind: "calls-in-order", tools: ["catalog"] }, [
      { path: at("tools"), message: "expected at least two tools, in the order they must run" }
    ])
    refused({ kind: "calls-in-order", tools: [] }, [
      { path: at("tools"), message: "expected at least two tools, in the order they must run" }
    ])
    refused({ kind: "calls-in-order", tools: ["catalog", " "] }, [{
      path: at("tools[1]"),
      message: "expected a non-empty string"
    }])
    refused({ kind: "calls-in-order", tools: "catalog,search_docs" }, [
      { path: at("tools"), message: expect.stringMatching(/^expected a list of tools, got "catalog,search_docs"$/) }
    ])
    refused({ kind: "calls-in-order", tools: ["a", "b"], exact: "yes" }, [{
      path: at("exact"),
      message: "expected boolean, got \"yes\""
    }])
  })

  it.each([-1, 1.5, Number.MAX_SAFE_INTEGER + 1])("calls-at-most: times %j", (times) => {
    refused({ kind: "calls-at-most", times }, [{
      path: at("times"),
      message: "expected a whole number of calls, 0 or more"
    }])
  })

  it("calls-at-most: times as a string, missing, and a blank tool", () => {
    refused({ kind: "calls-at-most", times: "3" }, [{ path: at("times"), message: "expected number, got \"3\"" }])
    refused({ kind: "calls-at-most" }, [{ path: at("times"), message: "missing" }])
    refused({ kind: "calls-at-most", times: 3, tool: "" }, [{
      path: at("tool"),
      message: "expected a non-empty string"
    }])
  })

  it("no-repeated-calls: a blank tool", () => {
    refused({ kind: "no-repeated-calls", tool: "  " }, [{ path: at("tool"), message: "expected a non-empty string" }])
  })

  it.each([0, -5, 2.5])("within-budget: tokens %j", (tokens) => {
    refused({ kind: "within-budget", tokens }, [{
      path: at("tokens"),
      message: "expected a whole number of tokens, 1 or more"
    }])
  })

  it("within-budget: tokens missing or a string", () => {
    refused({ kind: "within-budget" }, [{ path: at("tokens"), message: "missing" }])
    refused({ kind: "within-budget", tokens: "4000" }, [{
      path: at("tokens"),
      message: "expected number, got \"4000\""
    }])
  })

  it("cites-all: no paths, or a blank one", () => {
    refused({ kind: "cites-all", paths: [] }, [{ path: at("paths"), message: "expected at least one path to cite" }])
    refused({ kind: "cites-all", paths: ["/docs/a", ""] }, [{
      path: at("paths[1]"),
      message: "expected a non-empty string"
    }])
    refused({ kind: "cites-all", paths: "/docs/a" }, [{
      path: at("paths"),
      message: expect.stringMatching(/^expected a list of paths, got "\/docs\/a"$/)
    }])
  })

  it.each(["x", "ii", "g", "I", "ism ", "imsi"])("answer-matches: flags %j", (flags) => {
    refused({ kind: "answer-matches", pattern: "refund", flags }, [
      { path: at("flags"), message: "expected flags of i, m and s, each at most once, such as \"is\"" }
    ])
  })

  it("answer-matches: an empty pattern, and negate not a boolean", () => {
    refused({ kind: "answer-matches", pattern: "" }, [{ path: at("pattern"), message: "expected a non-empty pattern" }])
    refused({ kind: "answer-matches", pattern: "x", negate: "true" }, [{
      path: at("negate"),
      message: "expected boolean, got \"true\""
    }])
  })

  it.each(["(?=a)", "(?!a)", "(?<=a)b", "(a", "\\1", "(a)\\1", "[a", "a{2,1}"])(
    "answer-matches: the pattern %j, which RE2 does not compile",
    (pattern) => {
      expect(fastCasesFile(fileWith({ kind: "answer-matches", pattern }))).toBeUndefined()
      for (
        const found of [
          problems({ kind: "answer-matches", pattern }),
          problemsOfText({ kind: "answer-matches", pattern })
        ]
      ) {
        expect(found).toEqual([{
          path: "$.cases[0].expect[0].pattern",
          message: expect.stringMatching(/^expected a pattern in RE2 syntax \(no lookaround or backreferences\): \S/)
        }])
      }
    }
  )

  it("answer-matches: a pattern refused names why", () => {
    expect(problems({ kind: "answer-matches", pattern: "(a" })[0]?.message).toContain("missing closing )")
    expect(problems({ kind: "answer-matches", pattern: "\\1" })[0]?.message).toContain("\\1")
    expect(problems({ kind: "answer-matches", pattern: "(?=a)" })[0]?.message).toContain("(?=")
  })

  it.each([
    [{ kind: "calls-tool", tool: "catalog", input: {} }, "input", "\"kind\" | \"tool\" | \"with\" | \"drafted\""],
    [
      { kind: "calls-in-order", tools: ["a", "b"], strict: true },
      "strict",
      "\"kind\" | \"tools\" | \"exact\" | \"drafted\""
    ],
    [{ kind: "calls-at-most", times: 1, tools: ["a"] }, "tools", "\"kind\" | \"times\" | \"tool\" | \"drafted\""],
    [{ kind: "no-repeated-calls", tools: ["a"] }, "tools", "\"kind\" | \"tool\" | \"drafted\""],
    [
      { kind: "answer-matches", pattern: "x", ignoreCase: true },
      "ignoreCase",
      "\"kind\" | \"pattern\" | \"flags\" | \"negate\" | \"drafted\""
    ],
    [{ kind: "cites-all", paths: ["/a"], path: "/a" }, "path", "\"kind\" | \"paths\" | \"drafted\""],
    [{ kind: "within-budget", tokens: 10, budget: 10 }, "budget", "\"kind\" | \"tokens\" | \"drafted\""]
  ])("%j: an unknown key", (expectation, key, keys) => {
    refused(expectation, [{ path: at(key), message: `unknown key; expected one of ${keys}` }])
  })

  it("reports the problems of several expectations at once, each at its own path", () => {
    expect(
      problems(
        { kind: "calls-in-order", tools: ["catalog"] },
        { kind: "calls-at-most", times: -1 },
        { kind: "within-budget", tokens: 0 },
        { kind: "cites-all", paths: [] },
        { kind: "answer-matches", pattern: "(?=a)", flags: "x" }
      ).map((p) => p.path)
    ).toEqual([
      "$.cases[0].expect[0].tools",
      "$.cases[0].expect[1].times",
      "$.cases[0].expect[2].tokens",
      "$.cases[0].expect[3].paths",
      "$.cases[0].expect[4].pattern",
      "$.cases[0].expect[4].flags"
    ])
  })
})
