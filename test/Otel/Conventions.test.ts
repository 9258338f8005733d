/**
 * The same scripted turn, traced by four real libraries in three conventions, reads to the same turn
 * facts (the tokens it used among them) and the same verdicts; so does the turn whose document search
 * is a real LangChain retriever, read from OpenInference's RETRIEVER span.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { grade } from "../../src/Graders/index.js"
import { readTurnsOf } from "../../src/Otel/Conventions.js"
import { linkTurns } from "../../src/Otel/Link.js"
import { groupTraces, readSpans } from "../../src/Otel/Otlp.js"
import { surfacedItems } from "../../src/Otel/Turn.js"
import { CasesFile, questionCases } from "../../src/Schema/Case.js"
import type { Problem } from "../../src/Schema/Errors.js"
import { Catalog } from "../../src/Schema/Surface.js"
import type { Turn } from "../../src/Schema/Trace.js"
import {
  callUsage,
  docsCorpus,
  otelCases,
  otelCatalog,
  producers,
  proposalTurn,
  refundTurn,
  traceRetrieverTurn,
  traceTurn
} from "../support/otelTraces.js"

const catalog = Schema.decodeUnknownSync(Catalog)(otelCatalog)
const cases = questionCases(Schema.decodeUnknownSync(CasesFile)(otelCases).cases)

/** Reads OTLP JSON documents into the turns linked to the test cases. */
const turnsOf = (documents: ReadonlyArray<string>) => {
  const spans = documents.flatMap((doc, i) => Either.getOrThrow(readSpans(`doc${i}.json`, doc, i * 10_000)))
  const traces = Either.getOrThrow(groupTraces(spans))
  const problems: Array<Problem> = []
  const reads = traces.flatMap((t) => readTurnsOf(t, problems))
  expect(problems).toEqual([])
  const links = linkTurns(reads, cases, catalog)
  if (Either.isLeft(links)) throw new Error(JSON.stringify(links.left))
  return { reads, links: links.right }
}

/** The facts graders read, without what differs by nature between libraries (ids, timing, how inputs are recorded). */
const facts = (turn: Turn) => ({
  answer: turn.answer,
  surface: turn.trace.surface,
  outcome: turn.trace.outcome,
  citations: turn.trace.citations,
  proposal: turn.trace.proposal,
  usage: turn.trace.usage,
  // Calls made in one step start at the same instant (to the millisecond): their order is not a fact.
  tools: [...turn.trace.toolExecutions]
    .map((e) => ({ tool: e.tool, error: e.error ?? null, output: e.output }))
    .sort((a, b) => a.tool.localeCompare(b.tool))
})

const expectedRefund = {
  answer: refundTurn().answer,
  surface: "docs",
  outcome: "answered",
  citations: [
    { path: "docs/billing/refunds.md", match: "path" },
    { path: "docs/billing/refunds-2023.md", match: "unsurfaced" }
  ],
  proposal: null,
  // Its two model calls, each once: the run's root repeats their sum in GenAI and the AI SDK's spans.
  usage: {
    inputTokens: callUsage.tools.inputTokens + callUsage.answer.inputTokens,
    outputTokens: callUsage.tools.outputTokens + callUsage.answer.outputTokens
  },
  tools: [
    { tool: "catalog", error: "catalog unavailable", output: undefined },
    { tool: "search_docs", error: null, output: refundTurn().calls[0]!.result }
  ]
}

const expectedProposal = {
  answer: "",
  surface: "ops-agent",
  outcome: "awaiting-approval",
  citations: [],
  proposal: { id: "chg_42", summary: "Scale search-api from 2 to 4 replicas", status: "pending" },
  // It ends on its tools: one model call.
  usage: callUsage.tools,
  tools: [
    { tool: "propose_change", error: null, output: proposalTurn().calls[1]!.result },
    { tool: "read_config", error: null, output: proposalTurn().calls[0]!.result }
  ]
}

const expectedVerdicts = {
  "otel.refund-window": [
    { kind: "calls-tool", passed: true },
    { kind: "calls-tool", passed: false, fact: "catalog errored: catalog unavailable" },
    { kind: "cites", passed: true },
    { kind: "cites-only-surfaced", passed: false, fact: "unsurfaced: docs/billing/refunds-2023.md" },
    { kind: "answer-includes", passed: true },
    { kind: "outcome", passed: true }
  ],
  "otel.scale-search-api": [
    { kind: "calls-tool", passed: true },
    { kind: "stops-at-approval", passed: true },
    { kind: "never-calls", passed: true }
  ]
}

describe("one scripted turn, traced by each library", () => {
  const seen = new Map<string, unknown>()
  for (const producer of producers) {
    it(`${producer}: reads to the same turn facts and verdicts`, async () => {
      // The refund turn carries its case id; the proposal turn is linked by its surface and question.
      const documents = [
        await traceTurn(producer, refundTurn("otel.refund-window")),
        await traceTurn(producer, proposalTurn())
      ]
      const { links, reads } = turnsOf(documents)
      expect(links.unlinked).toEqual([])
      expect(reads.map((r) => r.caseId?.value)).toEqual(["otel.refund-window", undefined])
      const refund = Either.getOrThrow(links.byCase.get("otel.refund-window")!.turn)
      const proposal = Either.getOrThrow(links.byCase.get("otel.scale-search-api")!.turn)
      expect(facts(refund)).toEqual(expectedRefund)
      expect(facts(proposal)).toEqual(expectedProposal)
      expect(refund.trace.turnId).toMatch(/^[0-9a-f]{32}:[0-9a-f]{16}$/)
      for (const execution of refund.trace.toolExecutions) expect(execution.durationMs).toBeGreaterThanOrEqual(0)
      const verdicts = Object.fromEntries(
        cases.filter((c) => links.byCase.has(c.id)).map((c) => {
          const turn = Either.getOrThrow(links.byCase.get(c.id)!.turn)
          return [c.id, grade(c, turn, catalog.surfaces[c.surface]!).expectations]
        })
      )
      expect(verdicts).toEqual(expectedVerdicts)
      seen.set(producer, { refund: facts(refund), proposal: facts(proposal), verdicts })
    })
  }

  it("the conventions differ on the wire, and every library was read", () => {
    expect([...seen.keys()]).toEqual([...producers])
    const [first, ...rest] = [...seen.values()]
    for (const other of rest) expect(other).toEqual(first)
  })
})

describe("a LangChain retriever, traced by OpenInference", () => {
  it("its RETRIEVER span surfaces the cited document: the same turn facts and verdicts", async () => {
    const document = await traceRetrieverTurn("otel.refund-window")

    // The spans really hold a retriever run, below the search tool, with its document's attributes.
    const spans = Either.getOrThrow(readSpans("retriever.json", document, 0))
    const retrievers = spans.filter((s) => s.attributes.get("openinference.span.kind") === "RETRIEVER")
    expect(retrievers).toHaveLength(1)
    const retriever = retrievers[0]!
    const parent = spans.find((s) => s.spanId === retriever.parentSpanId)
    expect(parent?.attributes.get("tool.name")).toBe("search_docs")
    // LangChain's instrumentation records a document's content and metadata, not its `id`.
    expect(Object.fromEntries([...retriever.attributes].filter(([key]) => key.startsWith("retrieval.documents."))))
      .toEqual({
        "retrieval.documents.0.document.content": "Refunds: within 30 days of the invoice",
        "retrieval.documents.0.document.metadata": JSON.stringify({ path: "docs/billing/refunds.md", title: "Refunds" })
      })

    const { links, reads } = turnsOf([document])
    expect(links.unlinked).toEqual([])
    expect(reads).toHaveLength(1)
    const read = reads[0]!
    expect(read.caseId?.value).toBe("otel.refund-window")
    expect(read.retrieved).toEqual([{ metadata: { path: "docs/billing/refunds.md", title: "Refunds" } }])
    // The tool returned the documents' text only: the cited path was surfaced by the retriever's span alone.
    const fields = ["path", "url", "id", "source"]
    expect(surfacedItems({ ...read, retrieved: [] }, fields).has("docs/billing/refunds.md")).toBe(false)
    expect([...surfacedItems(read, fields)]).toEqual(["docs/billing/refunds.md"])

    const refund = Either.getOrThrow(links.byCase.get("otel.refund-window")!.turn)
    expect(facts(refund)).toEqual({
      ...expectedRefund,
      tools: [
        { tool: "catalog", error: "catalog unavailable", output: undefined },
        { tool: "search_docs", error: null, output: docsCorpus[0]!.pageContent }
      ]
    })
    const refundCase = cases.find((c) => c.id === "otel.refund-window")!
    expect(grade(refundCase, refund, catalog.surfaces["docs"]!).expectations).toEqual(
      expectedVerdicts["otel.refund-window"]
    )
  })
})
