/** How `eval audit` reads `--expect KIND=ARG` and `--expect-json` for the kinds of the registry. */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { parseExpectation, parseExpectationJson } from "../../src/Commands/Audit.js"
import { kinds } from "../../src/Graders/Kinds.js"
import { Expectation } from "../../src/Schema/Case.js"
import { decodeValue } from "../../src/Schema/Decode.js"

const left = <A>(outcome: Either.Either<A, string>): string =>
  Either.isLeft(outcome) ? outcome.left : `accepted: ${JSON.stringify(outcome.right)}`

describe("parseExpectation", () => {
  it.each([
    ["calls-at-most=3", { kind: "calls-at-most", times: 3 }],
    ["calls-at-most=0", { kind: "calls-at-most", times: 0 }],
    ["calls-at-most 3", { kind: "calls-at-most", times: 3 }],
    ["calls-in-order=read_config,propose_change", { kind: "calls-in-order", tools: ["read_config", "propose_change"] }],
    ["calls-in-order=read_config, search_docs ,propose_change", {
      kind: "calls-in-order",
      tools: ["read_config", "search_docs", "propose_change"]
    }],
    ["within-budget=4000", { kind: "within-budget", tokens: 4000 }],
    ["answer-matches=rm -rf", { kind: "answer-matches", pattern: "rm -rf" }],
    ["answer-matches=refund within \\d+ days", { kind: "answer-matches", pattern: "refund within \\d+ days" }],
    ["cites-all=/docs/a", { kind: "cites-all", paths: ["/docs/a"] }],
    ["no-repeated-calls", { kind: "no-repeated-calls" }],
    ["no-repeated-calls=search_docs", { kind: "no-repeated-calls", tool: "search_docs" }],
    ["calls-tool=catalog", { kind: "calls-tool", tool: "catalog" }]
  ])("reads %j", (spec, expected) => {
    expect(parseExpectation(spec)).toEqual(Either.right(expected))
  })

  it("refuses a count that is not a whole number, with the hint to write it", () => {
    expect(left(parseExpectation("calls-at-most=three")))
      .toBe("--expect \"calls-at-most=three\": times expected number, got \"three\" (write calls-at-most=TIMES)")
    expect(left(parseExpectation("calls-at-most=-1"))).toMatch(
      /^--expect "calls-at-most=-1": times .* \(write calls-at-most=TIMES\)$/
    )
    expect(left(parseExpectation("calls-at-most=1.5"))).toMatch(
      /^--expect "calls-at-most=1\.5": times .* \(write calls-at-most=TIMES\)$/
    )
    expect(left(parseExpectation("calls-at-most"))).toBe(
      "--expect \"calls-at-most\": times missing (write calls-at-most=TIMES)"
    )
  })

  it("refuses what a cases file would refuse, with the hint to write it", () => {
    expect(left(parseExpectation("within-budget=0")))
      .toBe(
        "--expect \"within-budget=0\": tokens expected a whole number of tokens, 1 or more (write within-budget=TOKENS)"
      )
    expect(left(parseExpectation("within-budget=lots"))).toMatch(
      /^--expect "within-budget=lots": tokens .* \(write within-budget=TOKENS\)$/
    )
    expect(left(parseExpectation("calls-in-order=read_config")))
      .toBe(
        "--expect \"calls-in-order=read_config\": tools expected at least two tools, in the order they must run " +
          "(write calls-in-order=TOOL,TOOL)"
      )
    expect(left(parseExpectation("calls-in-order=read_config,"))).toMatch(
      /^--expect "calls-in-order=read_config,": tools\[1\] .* \(write calls-in-order=TOOL,TOOL\)$/
    )
    expect(left(parseExpectation("answer-matches=(?=a)")))
      .toMatch(
        /^--expect "answer-matches=\(\?=a\)": pattern expected a pattern in RE2 syntax .* \(write answer-matches=PATTERN\)$/
      )
    expect(left(parseExpectation("answer-matches=\\1"))).toMatch(
      /^--expect .*: pattern expected a pattern in RE2 syntax/
    )
  })

  it("fills, for every kind that takes an argument, only fields of that kind", () => {
    for (const kind of kinds) {
      if (kind.argument === null) continue
      const spec = `${kind.kind}=${kind.argument.name}`
      const read = kind.argument.read(kind.argument.name)
      expect(Object.keys(read).every((field) => kind.fields.includes(field)), spec).toBe(true)
    }
  })
})

describe("parseExpectationJson", () => {
  it.each(kinds.map((k) => [k.kind, k.example.expect] as const))(
    "reads %s whole, as a cases file writes it",
    (_, expectation) => {
      const decoded = Either.getOrThrow(decodeValue(Expectation, "cases.json", expectation))
      expect(parseExpectationJson(JSON.stringify(expectation))).toEqual(Either.right(decoded))
    }
  )

  it("reads the fields audit's --expect cannot give", () => {
    expect(parseExpectationJson("{\"kind\":\"calls-tool\",\"tool\":\"catalog\",\"with\":{\"service\":\"search-api\"}}"))
      .toEqual(Either.right({ kind: "calls-tool", tool: "catalog", with: { service: "search-api" } }))
    expect(
      parseExpectationJson(
        "{\"kind\":\"answer-matches\",\"pattern\":\"rm -rf \\\\S+\",\"flags\":\"is\",\"negate\":true}"
      )
    )
      .toEqual(Either.right({ kind: "answer-matches", pattern: "rm -rf \\S+", flags: "is", negate: true }))
    expect(parseExpectationJson("{\"kind\":\"calls-in-order\",\"tools\":[\"a\",\"b\"],\"exact\":true}"))
      .toEqual(Either.right({ kind: "calls-in-order", tools: ["a", "b"], exact: true }))
  })

  it("refuses text that is not JSON, naming where", () => {
    expect(left(parseExpectationJson("{\"kind\":"))).toMatch(
      /^--expect-json "\{\\"kind\\":": not valid JSON: .*line 1, column \d+$/
    )
    expect(left(parseExpectationJson("calls-at-most=3"))).toMatch(/^--expect-json "calls-at-most=3": not valid JSON: /)
    expect(left(parseExpectationJson(""))).toMatch(/^--expect-json "": not valid JSON: /)
  })

  it("refuses an expectation a cases file would refuse, at its JSON path", () => {
    expect(left(parseExpectationJson("{\"kind\":\"calls-at-most\",\"times\":-1}")))
      .toBe(
        "--expect-json \"{\\\"kind\\\":\\\"calls-at-most\\\",\\\"times\\\":-1}\": $.times expected a whole number of calls, 0 or more"
      )
    expect(left(parseExpectationJson("{\"kind\":\"answer-matches\",\"pattern\":\"(a\"}"))).toMatch(
      /: \$\.pattern expected a pattern in RE2 syntax/
    )
    expect(left(parseExpectationJson("{\"kind\":\"answer-matches\",\"pattern\":\"a\",\"flags\":\"ii\"}"))).toMatch(
      /: \$\.flags expected flags of i, m and s/
    )
    expect(left(parseExpectationJson("{\"kind\":\"within-budget\",\"tokens\":1,\"budget\":1}"))).toMatch(
      /: \$\.budget unknown key; /
    )
    expect(left(parseExpectationJson("{\"kind\":\"cites-some\"}"))).toMatch(
      /: \$\.kind expected "cites-only-surfaced" \| /
    )
  })

  it("clips a long text in its message", () => {
    const message = left(parseExpectationJson(`{"kind":"cites-all","paths":[],"x":"${"y".repeat(10_000)}"}`))
    expect(message.length).toBeLessThan(1_000)
    expect(message).toContain("…")
  })
})
