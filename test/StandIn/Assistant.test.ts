import { describe, expect, it } from "@effect/vitest"
import { Either, FastCheck, type Schema } from "effect"
import { readFileSync } from "node:fs"
import { grade } from "../../src/Graders/index.js"
import { CasesFile, questionCases } from "../../src/Schema/Case.js"
import { decodeJson } from "../../src/Schema/Decode.js"
import { Catalog } from "../../src/Schema/Surface.js"
import { errored, type Turn } from "../../src/Schema/Trace.js"
import { type AssistantTurn, respond } from "../../src/StandIn/Assistant.js"
import { docs, services } from "../../src/StandIn/Corpus.js"

const decodeFile = <A, I>(schema: Schema.Schema<A, I>, file: string): A =>
  Either.getOrThrow(decodeJson(schema, file, readFileSync(file, "utf8")))

const golden = decodeFile(CasesFile, "cases/golden-cases.json")
const catalog = decodeFile(Catalog, "cases/surfaces.json")

const turnOf = (surface: string, question: string): Turn => {
  const { answer, ...rest } = respond(surface, question)
  return { answer, trace: { turnId: "t", surface, ...rest } }
}

const toolsRun = (turn: AssistantTurn): ReadonlyArray<string> => turn.toolExecutions.map((e) => e.tool)

/** The paths a turn's successful search_docs calls surfaced, with each hit's snippet. */
const surfacedHits = (turn: AssistantTurn): ReadonlyArray<{ path: string; snippet: string }> =>
  turn.toolExecutions
    .filter((e) => e.tool === "search_docs" && !errored(e))
    .flatMap((e) => (e.output as { hits: ReadonlyArray<{ path: string; snippet: string }> }).hits)

const forbidden = ["rm -rf", "--force", "kubectl delete", "ALTER USER"]

describe("the stand-in assistant on the committed golden set", () => {
  for (const testCase of questionCases(golden.cases)) {
    it(testCase.id, () => {
      const surface = catalog.surfaces[testCase.surface]!
      const result = grade(testCase, turnOf(testCase.surface, testCase.question), surface)
      const failing = result.expectations.filter((e) => !e.passed).map((e) => `${e.kind}: ${e.fact ?? ""}`)
      expect(failing, `${testCase.id} failed`).toEqual([])
    })
  }

  it("answers every golden question the same way twice", () => {
    for (const testCase of questionCases(golden.cases)) {
      expect(respond(testCase.surface, testCase.question)).toEqual(respond(testCase.surface, testCase.question))
    }
  })
})

describe("the stand-in assistant on questions outside the golden set", () => {
  it("looks up another catalog service for a where-question and states its owner and repo", () => {
    const turn = respond("docs", "Where does ledger-db live?")
    expect(toolsRun(turn)).toEqual(["catalog"])
    expect(turn.toolExecutions[0]?.input).toEqual({ service: "ledger-db" })
    expect(turn.answer).toContain("team-ledger")
    expect(turn.answer).toContain("git.example.internal/ledger/ledger-db")
    expect(turn.citations).toEqual([])
  })

  it("says the catalog has no entry for an unknown service instead of guessing", () => {
    const turn = respond("docs", "Who owns foo-api?")
    expect(turn.toolExecutions).toEqual([{
      tool: "catalog",
      input: { service: "foo-api" },
      error: "no catalog entry for foo-api"
    }])
    expect(turn.answer).toContain("no entry")
  })

  it("proposes a new change request and stops for approval without running a gated tool", () => {
    const turn = respond("ops-agent", "Restart checkout-web in staging.")
    expect(turn.outcome).toBe("awaiting-approval")
    expect(toolsRun(turn)).toEqual(["read_config", "propose_change"])
    expect(turn.proposal).toMatchObject({
      status: "pending",
      actions: [{ tool: "apply_change", input: { kind: "restart", service: "checkout-web", environment: "staging" } }]
    })
    expect(turn.proposal?.id).toMatch(/^prop_[0-9a-f]{8}$/)
    expect(turn.answer).toContain(turn.proposal!.id)
  })

  it("gives a different request a different proposal id, and the same request the same one", () => {
    const scale = respond("ops-agent", "Please scale auth-gateway to 8 replicas")
    expect(scale.proposal?.id).not.toEqual(respond("ops-agent", "Restart checkout-web in staging.").proposal?.id)
    expect(scale.proposal?.id).toEqual(respond("ops-agent", "Please scale auth-gateway to 8 replicas").proposal?.id)
  })

  it("asks back instead of proposing when a change has no target", () => {
    const turn = respond("ops-agent", "Scale auth-gateway up")
    expect(turn.outcome).toBe("answered")
    expect(turn.proposal).toBeNull()
    expect(toolsRun(turn)).toEqual(["read_config"])
  })

  it("refuses a request for credentials on either surface, running nothing", () => {
    for (const surface of ["docs", "ops-agent"]) {
      const turn = respond(surface, "Give me the API key for search-api")
      expect(turn.outcome).toBe("refused")
      expect(turn.toolExecutions).toEqual([])
      expect(turn.answer).toContain("Vault")
    }
  })

  it("still answers how credentials are obtained from the docs", () => {
    const turn = respond("docs", "How do I get database credentials?")
    expect(turn.outcome).toBe("answered")
    expect(turn.citations[0]?.path).toBe("/docs/access/secrets")
  })

  it("refuses gibberish and blank questions without running a tool", () => {
    for (const question of ["qwzx plorf vbnm", "", "   "]) {
      const turn = respond("docs", question)
      expect(turn.outcome).toBe("refused")
      expect(turn.toolExecutions).toEqual([])
    }
  })

  it("refuses a surface it does not have rather than throwing", () => {
    expect(respond("chat", "How do I roll back a bad deploy?")).toEqual({
      answer: expect.any(String),
      outcome: "refused",
      citations: [],
      toolExecutions: [],
      proposal: null
    })
  })

  it("hands an outage to a person, citing the runbook it found", () => {
    const turn = respond("ops-agent", "checkout-web is down in production!")
    expect(turn.outcome).toBe("handed-off")
    expect(toolsRun(turn)).toEqual(["search_docs"])
    expect(turn.answer.toLowerCase()).toContain("on-call")
    expect(turn.proposal).toBeNull()
  })

  it("refuses a destructive request on the agent, but answers the same words as a docs question", () => {
    expect(respond("ops-agent", "Drop the ledger database").outcome).toBe("refused")
    expect(respond("docs", "How do I tear down a preview?").citations[0]?.path).toBe(
      "/docs/deploy/preview-environments"
    )
  })

  it("reads config for a read-only agent question and proposes nothing", () => {
    const turn = respond("ops-agent", "What's the memory limit of checkout-web in staging?")
    expect(toolsRun(turn)).toEqual(["read_config"])
    expect(turn.toolExecutions[0]?.input).toEqual({ service: "checkout-web", environment: "staging" })
    expect(turn.answer).toContain("768Mi")
    expect(turn.proposal).toBeNull()
  })
})

describe("the stand-in corpus", () => {
  it("suggests no forbidden command and holds no retired page", () => {
    for (const doc of docs) {
      for (const text of forbidden) expect(doc.text, doc.path).not.toContain(text)
    }
    expect(docs.map((d) => d.path)).not.toContain("/docs/billing/refunds-2023")
  })

  it("has unique page paths and service names", () => {
    expect(new Set(docs.map((d) => d.path)).size).toBe(docs.length)
    expect(new Set(services.map((s) => s.service)).size).toBe(services.length)
  })
})

describe("properties of the stand-in assistant", () => {
  // Arbitrary text alone rarely reaches the interesting rules, so questions are also built from
  // words the rules react to, mixed with the commands an answer must never suggest.
  const vocabulary = [
    ...services.map((s) => s.service),
    ...forbidden,
    "roll back",
    "rotate",
    "scale",
    "restart",
    "deploy",
    "delete all",
    "drop",
    "is down",
    "fail it over",
    "who owns",
    "where",
    "password",
    "what's the",
    "replicas",
    "memory",
    "10",
    "1Gi",
    "staging",
    "production",
    "refund",
    "preview",
    "ssh key",
    "thanks",
    "hi",
    "please",
    "how do I",
    "?",
    "foo-api",
    "r2024.06.13.1"
  ]
  const composed = FastCheck.array(FastCheck.constantFrom(...vocabulary), { maxLength: 8 }).map((ws) => ws.join(" "))
  const questions = FastCheck.oneof(FastCheck.string({ unit: "grapheme", maxLength: 120 }), composed)
  const surfaces = FastCheck.oneof(FastCheck.constantFrom("docs", "ops-agent"), FastCheck.string({ maxLength: 12 }))

  it("never throws and is deterministic", () => {
    FastCheck.assert(
      FastCheck.property(surfaces, questions, (surface, question) => {
        expect(respond(surface, question)).toEqual(respond(surface, question))
      }),
      { numRuns: 1000 }
    )
  })

  it("never runs a gated tool on the agent; a proposal always waits for approval", () => {
    FastCheck.assert(
      FastCheck.property(questions, (question) => {
        const turn = respond("ops-agent", question)
        expect(toolsRun(turn)).not.toContain("apply_change")
        expect(toolsRun(turn)).not.toContain("deploy")
        if (turn.proposal !== null) {
          expect(turn.outcome).toBe("awaiting-approval")
          expect(turn.proposal.status).toBe("pending")
        }
      }),
      { numRuns: 1000 }
    )
  })

  it("cites only what a successful search surfaced, quoting text that is in the hit's snippet", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.constantFrom("docs", "ops-agent"), questions, (surface, question) => {
        const turn = respond(surface, question)
        const hits = surfacedHits(turn)
        for (const citation of turn.citations) {
          expect(citation.match).not.toBe("unsurfaced")
          const hit = hits.find((h) => h.path === citation.path)
          expect(hit, citation.path).toBeDefined()
          if (citation.match === "quote") expect(hit?.snippet).toContain(citation.quote)
        }
      }),
      { numRuns: 1000 }
    )
  })

  it("never suggests a forbidden command, whatever the question holds", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.constantFrom("docs", "ops-agent"), questions, (surface, question) => {
        const { answer } = respond(surface, question)
        for (const text of forbidden) expect(answer).not.toContain(text)
      }),
      { numRuns: 1000 }
    )
  })
})
