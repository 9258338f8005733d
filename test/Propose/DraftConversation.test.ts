import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { draftConversation } from "../../src/Propose/Draft.js"
import { CasesFile } from "../../src/Schema/Case.js"
import { caseProblems } from "../../src/Schema/Validate.js"
import { agentSurface, call, callWith, trace } from "../support/turns.js"

const proposal = { id: "chg_1", summary: "Deploy", status: "pending", actions: [{ tool: "deploy", input: { r: 1 } }] }
const proposed = {
  said: { ask: "Roll back payments-api." } as const,
  answer: "I've proposed a rollback.",
  trace: trace({
    turnId: "t1",
    surface: "ops-agent",
    outcome: "awaiting-approval",
    proposal,
    toolExecutions: [call("propose_change")]
  })
}

describe("a conversation drafted from a rated later turn", () => {
  it("drafts a deny step of a denial, and holds it to what ran after", () => {
    const rated = {
      said: { deny: "Not now." } as const,
      answer: "Rolled back anyway.",
      trace: trace({ turnId: "t2", surface: "ops-agent", toolExecutions: [callWith("deploy", { r: 1 })] }),
      comment: "It deployed after I said no."
    }
    const draft = draftConversation([proposed], rated, "ops-agent", agentSurface, { taken: new Set() })
    expect(draft.case.id).toBe("ops-agent.roll-back-payments-api")
    expect(draft.case.turns.map((t) => Object.keys(t)[0])).toEqual(["ask", "deny"])
    expect(draft.case.turns[1]).toMatchObject({ deny: "Not now." })
    // The denial's turn ran a gated tool: never-calls deploy is not drafted (it ran), stops-at-approval is violated.
    expect(draft.violated.map((f) => f.expectation.kind)).toEqual(["stops-at-approval"])
    expect(draft.turns).toEqual([proposed, rated])
    // The draft is a case the catalog takes.
    const file = Schema.decodeUnknownSync(CasesFile)({ version: 1, cases: [draft.case] })
    expect(caseProblems(file, { surfaces: { "ops-agent": agentSurface } })).toEqual([])
  })

  it("holds an earlier step that held none of the drafted facts to its outcome", () => {
    const bare = {
      said: { ask: "Hi." } as const,
      answer: "Hello.",
      trace: trace({ turnId: "t0", surface: "ops-agent" })
    }
    const surface = { endpoint: "/ask", tools: ["search_docs"] }
    const draft = draftConversation([bare], { ...proposed, comment: null }, "ops-agent", surface, { taken: new Set() })
    expect(draft.case.turns[0]!.expect).toEqual([{ kind: "outcome", is: "answered", drafted: "held by turn t0" }])
  })
})
