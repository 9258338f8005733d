import { describe, expect, it } from "@effect/vitest"
import { matchCitations } from "../../src/Evidence/Derive.js"
import { defaultIdentifierFields, resolveEvidence } from "../../src/Evidence/Rules.js"

describe("resolveEvidence", () => {
  it("takes each rule from the evidence block, else from otel (a catalog written before it), else the default", () => {
    const rules = resolveEvidence({
      evidence: { citationPrefixes: ["/kb/"] },
      otel: { citationPrefixes: ["/old/"], proposalTools: ["issue_refund"] }
    })
    expect(rules.citationPrefixes).toEqual(["/kb/"])
    expect(rules.proposalTools).toEqual(["issue_refund"])
    expect(rules.identifierFields).toEqual(defaultIdentifierFields)
    expect(resolveEvidence(undefined).citationPattern.source).toBe(resolveEvidence({}).citationPattern.source)
  })
})

describe("matchCitations", () => {
  it("puts the citations a wire states first, then those found in the answer, each path once", () => {
    const rules = resolveEvidence(undefined)
    const surfaced = new Set(["https://kb.example/refunds", "/kb/refunds"])
    expect(matchCitations("See [Refunds](/kb/refunds) and [Old](/kb/old), and [again](/kb/refunds).", surfaced, rules, [
      { path: "https://kb.example/refunds", quote: "30 days" },
      { path: "/kb/old" }
    ])).toEqual([
      { path: "https://kb.example/refunds", quote: "30 days", match: "path" },
      { path: "/kb/old", match: "unsurfaced" },
      { path: "/kb/refunds", match: "path" }
    ])
  })
})
