/** Drafting a case from a rated turn at its edges: blank names, acting turns, long ids, slugs, guards. */
import { describe, expect, it } from "@effect/vitest"
import { candidateExpectations, caseIdFor, draftExpectations, guardsFor } from "../../src/Propose/Draft.js"
import { agentSurface, call, cite, docsSurface, trace, turn } from "../support/turns.js"

describe("candidateExpectations", () => {
  it("cites each surfaced path once, never a blank or an unsurfaced one", () => {
    const citations = [
      cite("/docs/a"),
      cite("/docs/a", "quote"),
      cite(" "),
      cite("/docs/old", "unsurfaced"),
      cite("/docs/b")
    ]
    expect(candidateExpectations(trace({ citations }), docsSurface)).toEqual([
      { kind: "cites-only-surfaced" },
      { kind: "cites", path: "/docs/a" },
      { kind: "cites", path: "/docs/b" }
    ])
  })

  it("expects the surface's ungated tools that ran, not a blank one or one the surface lacks", () => {
    const toolExecutions = [call("catalog"), call(" "), call("shell"), call("catalog"), call("search_docs")]
    const surface = { ...docsSurface, tools: [...docsSurface.tools, " "] }
    expect(candidateExpectations(trace({ toolExecutions }), surface)).toEqual([
      { kind: "calls-tool", tool: "catalog" },
      { kind: "calls-tool", tool: "search_docs" }
    ])
  })

  it("expects a stop for approval from a turn that ran a gated tool, proposed, or waited, and only then", () => {
    const stop = { kind: "stops-at-approval" }
    const ranGated = candidateExpectations(trace({ toolExecutions: [call("deploy")] }), agentSurface)
    expect(ranGated).toEqual([stop, { kind: "never-calls", tool: "apply_change" }])
    expect(candidateExpectations(trace({ proposal: { id: "p" } }), agentSurface)).toContainEqual(stop)
    expect(candidateExpectations(trace({ outcome: "awaiting-approval" }), agentSurface)).toContainEqual(stop)
    const onlySearched = candidateExpectations(trace({ toolExecutions: [call("search_docs")] }), agentSurface)
    expect(onlySearched).not.toContainEqual(stop)
    expect(candidateExpectations(trace({ proposal: { id: "p" } }), docsSurface)).not.toContainEqual(stop)
  })
})

describe("draftExpectations", () => {
  it("marks each expectation with the turn, clipped to 80 characters, and the fact that broke it", () => {
    const long = "t".repeat(81)
    const [broken] = draftExpectations(
      turn({ turnId: long, citations: [cite("/docs/old", "unsurfaced")] }),
      docsSurface
    )
    expect(broken).toEqual({
      expectation: {
        kind: "cites-only-surfaced",
        drafted: `violated by turn ${"t".repeat(80)}…: unsurfaced: /docs/old`
      },
      passed: false,
      fact: "unsurfaced: /docs/old"
    })
    const exact = "u".repeat(80)
    const [held] = draftExpectations(turn({ turnId: exact, outcome: "declined" }), docsSurface)
    expect(held).toEqual({
      expectation: { kind: "outcome", is: "declined", drafted: `held by turn ${exact}` },
      passed: true
    })
  })
})

describe("caseIdFor", () => {
  it("joins the question's words up to the length, or clips a first word longer than it", () => {
    expect(caseIdFor("docs", "Où est l’API ‘payments’?", new Set())).toBe("docs.ou-est-lapi-payments")
    const words = Array.from({ length: 20 }, () => "word").join(" ")
    expect(caseIdFor("docs", words, new Set())).toBe(`docs.${Array.from({ length: 11 }, () => "word").join("-")}`)
    expect(caseIdFor("docs", "x".repeat(70), new Set())).toBe(`docs.${"x".repeat(56)}`)
    expect(caseIdFor("docs", "?!", new Set())).toBe("docs.rated-turn")
    expect(caseIdFor("docs", "a b", new Set(["docs.a-b", "docs.a-b-2"]))).toBe("docs.a-b-3")
  })
})

describe("guardsFor", () => {
  it("is the comment with its blanks folded, clipped at 300 characters", () => {
    expect(guardsFor("  cited\n\tthe  old page ", "t", [])).toBe("cited the old page")
    expect(guardsFor("c".repeat(300), "t", [])).toBe("c".repeat(300))
    expect(guardsFor("c".repeat(301), "t", [])).toBe(`${"c".repeat(300)}…`)
  })

  it("without a comment, names the turn and the facts it broke", () => {
    const violated = [
      { expectation: { kind: "cites-only-surfaced" as const }, passed: false, fact: "unsurfaced: /docs/old" },
      { expectation: { kind: "no-citations" as const }, passed: false },
      { expectation: { kind: "outcome" as const, is: "answered" }, passed: false, fact: "outcome: error" }
    ]
    expect(guardsFor(" ", "t_9", violated)).toBe(
      "The answer rated down on turn t_9: unsurfaced: /docs/old; outcome: error"
    )
    expect(guardsFor(null, "t_9", [violated[1]!])).toBe("The answer rated down on turn t_9")
  })
})
