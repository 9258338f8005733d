import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck as fc, Schema } from "effect"
import { readFileSync } from "node:fs"
import {
  appendCaseText,
  candidateExpectations,
  caseIdFor,
  draftCase,
  draftExpectations,
  guardsFor,
  renderCase
} from "../../src/Propose/Draft.js"
import { Case, CaseId, CasesFile } from "../../src/Schema/Case.js"
import { decodeJson } from "../../src/Schema/Decode.js"
import { agentSurface, call, cite, docsSurface, trace, turn } from "../support/turns.js"

const kinds = (t: Parameters<typeof draftExpectations>[0], surface = docsSurface) =>
  draftExpectations(t, surface).map((f) => f.expectation)

describe("drafting expectations from a rated turn", () => {
  it("drafts cites-only-surfaced from an unsurfaced citation, as a violation with the grader's fact", () => {
    const t = turn({
      turnId: "t_1",
      citations: [cite("/docs/billing/refunds", "quote"), cite("/docs/billing/refunds-2023", "unsurfaced")],
      toolExecutions: [call("search_docs")]
    })
    expect(kinds(t)).toEqual([
      { kind: "cites-only-surfaced", drafted: "violated by turn t_1: unsurfaced: /docs/billing/refunds-2023" },
      { kind: "cites", path: "/docs/billing/refunds", drafted: "held by turn t_1" },
      { kind: "calls-tool", tool: "search_docs", drafted: "held by turn t_1" }
    ])
  })

  it("drafts calls-tool from a tool that only errored, and holds one whose retry succeeded", () => {
    expect(kinds(turn({ toolExecutions: [call("catalog", "timeout"), call("catalog", "timeout")] }))).toEqual([
      { kind: "calls-tool", tool: "catalog", drafted: "violated by turn turn_1: catalog errored: timeout" }
    ])
    expect(kinds(turn({ toolExecutions: [call("catalog", "timeout"), call("catalog")] }))).toEqual([
      { kind: "calls-tool", tool: "catalog", drafted: "held by turn turn_1" }
    ])
  })

  it("drafts stops-at-approval when a gated tool ran, and never-calls for the gated tools left alone", () => {
    const t = turn({
      surface: "ops-agent",
      toolExecutions: [call("propose_change"), call("apply_change")],
      proposal: { id: "p", status: "applied" }
    })
    expect(kinds(t, agentSurface)).toEqual([
      {
        kind: "stops-at-approval",
        drafted:
          "violated by turn turn_1: outcome: answered (expected awaiting-approval); ran past approval: apply_change"
      },
      { kind: "calls-tool", tool: "propose_change", drafted: "held by turn turn_1" },
      { kind: "never-calls", tool: "deploy", drafted: "held by turn turn_1" }
    ])
  })

  it("holds stops-at-approval for a proposal left waiting, and drafts none for a read-only turn", () => {
    const waiting = turn({
      surface: "ops-agent",
      outcome: "awaiting-approval",
      toolExecutions: [call("propose_change")],
      proposal: { id: "p", status: "pending" }
    })
    expect(draftExpectations(waiting, agentSurface).map((f) => [f.expectation.kind, f.passed])).toEqual([
      ["calls-tool", true],
      ["stops-at-approval", true],
      ["never-calls", true],
      ["never-calls", true]
    ])
    const readOnly = turn({ surface: "ops-agent", toolExecutions: [call("search_docs")] })
    expect(candidateExpectations(readOnly.trace, agentSurface)).toEqual([
      { kind: "calls-tool", tool: "search_docs" },
      { kind: "never-calls", tool: "apply_change" },
      { kind: "never-calls", tool: "deploy" }
    ])
  })

  it("drafts outcome answered from an error outcome", () => {
    expect(kinds(turn({ outcome: "error", toolExecutions: [call("search_docs")] }))).toEqual([
      { kind: "outcome", is: "answered", drafted: "violated by turn turn_1: outcome: error (expected answered)" },
      { kind: "calls-tool", tool: "search_docs", drafted: "held by turn turn_1" }
    ])
  })

  it("holds no-citations on a refusal, and pins the outcome of a turn that shows nothing else", () => {
    expect(candidateExpectations(trace({ outcome: "refused" }), docsSurface)).toEqual([{ kind: "no-citations" }])
    expect(candidateExpectations(trace({ outcome: "answered" }), docsSurface)).toEqual([{
      kind: "outcome",
      is: "answered"
    }])
  })

  it("leaves out tools the surface does not have, which the catalog would reject", () => {
    expect(candidateExpectations(trace({ toolExecutions: [call("web_search"), call("catalog")] }), docsSurface))
      .toEqual([
        { kind: "calls-tool", tool: "catalog" }
      ])
  })
})

describe("case ids", () => {
  it("are the surface and the question's first words, made unique in the set", () => {
    expect(caseIdFor("docs", "What was the old refund policy for Harbor invoices?", new Set())).toBe(
      "docs.what-was-the-old-refund-policy-for-harbor-invoices"
    )
    expect(caseIdFor("ops-agent", "Café à Zürich?", new Set())).toBe("ops-agent.cafe-a-zurich")
    const taken = new Set(["docs.hi", "docs.hi-2"])
    expect(caseIdFor("docs", "Hi!", taken)).toBe("docs.hi-3")
    expect(caseIdFor("Docs", "???", new Set())).toBe("docs.rated-turn")
  })

  it("are always valid case ids", () => {
    fc.assert(
      fc.property(fc.string(), fc.string({ maxLength: 300 }), (surface, question) => {
        const id = caseIdFor(surface, question, new Set())
        expect(Schema.decodeUnknownEither(CaseId)(id)._tag).toBe("Right")
      }),
      { numRuns: 500 }
    )
  })
})

describe("guards", () => {
  it("come from the rating's comment, on one line", () => {
    expect(guardsFor("  It cited\nthe retired page.  ", "t_1", [])).toBe("It cited the retired page.")
    expect(guardsFor("x".repeat(400), "t_1", []).length).toBe(301)
  })

  it("without a comment, name the turn and the facts it broke", () => {
    const violated = draftExpectations(
      turn({ turnId: "t_9", toolExecutions: [call("catalog", "timeout")] }),
      docsSurface
    )
    expect(guardsFor(undefined, "t_9", violated)).toBe("The answer rated down on turn t_9: catalog errored: timeout")
    expect(guardsFor(" ", "t_9", [])).toBe("The answer rated down on turn t_9")
  })
})

describe("draftCase", () => {
  const rated = {
    question: "Where does ledger-api live?",
    answer: "The service catalog has no entry for `ledger-api`.",
    trace: trace({ turnId: "t_2", toolExecutions: [call("catalog", "no catalog entry for ledger-api")] }),
    comment: "ledger-api is a real service"
  }

  it("drafts a valid case for the surface, tagged thumbs-down, with what the turn broke", () => {
    const draft = draftCase(rated, "docs", docsSurface, { taken: new Set() })
    expect(Schema.decodeUnknownSync(Case)(draft.case)).toEqual(draft.case)
    expect(draft.case).toMatchObject({
      id: "docs.where-does-ledger-api-live",
      surface: "docs",
      question: rated.question,
      guards: "ledger-api is a real service",
      tags: ["thumbs-down"]
    })
    expect(draft.violated.map((f) => f.fact)).toEqual(["catalog errored: no catalog entry for ledger-api"])
  })

  it("takes the id it is given", () => {
    expect(draftCase(rated, "docs", docsSurface, { taken: new Set(), id: "docs.mine" }).case.id).toBe("docs.mine")
  })
})

describe("the draft's text", () => {
  const draft = draftCase(
    {
      question: "Quote \"this\" \u2028 please",
      answer: "a",
      trace: trace({ citations: [cite("/docs/a", "unsurfaced")] }),
      comment: "c"
    },
    "docs",
    docsSurface,
    { taken: new Set() }
  ).case

  it("renders a case as JSON in the golden set's layout", () => {
    expect(JSON.parse(renderCase(draft))).toEqual(draft)
    expect(renderCase(draft, "    ").split("\n")[5]).toBe("      \"expect\": [")
    expect(renderCase(draft)).toContain("\n    {\"kind\": \"cites-only-surfaced\", \"drafted\": ")
  })

  it("appends a case to the committed golden set, leaving every other byte as it was", () => {
    const text = readFileSync("cases/golden-cases.json", "utf8")
    const after = appendCaseText(text, draft)!
    const cut = text.lastIndexOf("}", text.lastIndexOf("]"))
    expect(after.slice(0, cut + 1)).toBe(text.slice(0, cut + 1))
    expect(after.endsWith(text.slice(text.lastIndexOf("]")))).toBe(true)
    const before = Either.getOrThrow(decodeJson(CasesFile, "x", text)).cases
    expect(Either.getOrThrow(decodeJson(CasesFile, "x", after)).cases).toEqual([...before, draft])
    expect(after).toContain(`\n    {\n      "id": "${draft.id}",`)
  })

  it("appends to compact files, files with other key orders and a byte-order mark, and keys hidden in strings", () => {
    const one = { id: "a", surface: "docs", question: "\"cases\": [", guards: "g", expect: [{ kind: "no-citations" }] }
    for (
      const text of [
        JSON.stringify({ version: 1, cases: [one] }),
        `\ufeff{"cases": [${JSON.stringify(one)}], "version": 1}`,
        JSON.stringify({ version: 1, cases: [one] }, null, 4)
      ]
    ) {
      const after = appendCaseText(text, draft)!
      expect(Either.getOrThrow(decodeJson(CasesFile, "x", after)).cases).toEqual(
        [one, draft].map((c) => Schema.decodeUnknownSync(Case)(c))
      )
    }
    expect(appendCaseText("{\"version\": 1}", draft)).toBeUndefined()
  })
})
