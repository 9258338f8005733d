/**
 * How an AI SDK run ended, read from the spans the real AI SDK 7 (both integrations) and 6 write: a
 * stream aborted mid-answer is an error turn.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { grade } from "../../src/Graders/index.js"
import { readTurnsOf, type ReadTurn } from "../../src/Otel/Conventions.js"
import { linkTurns } from "../../src/Otel/Link.js"
import { groupTraces, readSpans, type Span } from "../../src/Otel/Otlp.js"
import { CasesFile } from "../../src/Schema/Case.js"
import type { Problem } from "../../src/Schema/Errors.js"
import { Catalog } from "../../src/Schema/Surface.js"
import type { Turn } from "../../src/Schema/Trace.js"
import { aiSdkProducers, otelCases, otelCatalog, refundTurn, traceStreamedTurn } from "../support/otelTraces.js"

const catalog = Schema.decodeUnknownSync(Catalog)(otelCatalog)
const { cases } = Schema.decodeUnknownSync(CasesFile)(otelCases)
const caseOf = (id: string) => cases.find((c) => c.id === id)!

const spansOf = (document: string): ReadonlyArray<Span> => Either.getOrThrow(readSpans("trace.json", document, 0))

/** Reads documents into their turns and links them to the test cases. */
const read = (...documents: ReadonlyArray<string>) => {
  const spans = documents.flatMap((doc, i) => Either.getOrThrow(readSpans(`doc${i}.json`, doc, i * 10_000)))
  const problems: Array<Problem> = []
  const reads = Either.getOrThrow(groupTraces(spans)).flatMap((t) => readTurnsOf(t, problems))
  expect(problems).toEqual([])
  const links = linkTurns(reads, cases, catalog)
  if (Either.isLeft(links)) throw new Error(JSON.stringify(links.left))
  return { reads, links: links.right }
}

/** The one turn of one document, with the case it is linked to. */
const onlyTurn = (document: string, caseId: string): { read: ReadTurn; turn: Turn } => {
  const { links, reads } = read(document)
  expect(reads).toHaveLength(1)
  return { read: reads[0]!, turn: Either.getOrThrow(links.byCase.get(caseId)!.turn) }
}

/** The root span: the one with no parent. */
const rootOf = (spans: ReadonlyArray<Span>): Span => spans.find((s) => s.parentSpanId === undefined)!

/** Tool executions without what differs by nature between libraries: timing, and the order of calls made in one step. */
const executions = (turn: Turn) =>
  [...turn.trace.toolExecutions]
    .map((e) => ({ tool: e.tool, error: e.error ?? null, ...(e.output === undefined ? {} : { output: e.output }) }))
    .sort((a, b) => a.tool.localeCompare(b.tool))

const refund = refundTurn()
const searchResult = refund.calls[0]!.result

describe("a stream aborted mid-answer", () => {
  for (const producer of aiSdkProducers) {
    it(`${producer}: is an error turn with the tools that ran, though no span records an error of its own`, async () => {
      const document = await traceStreamedTurn(producer, refundTurn("otel.refund-window"), { abortMidAnswer: true })
      const spans = spansOf(document)
      const root = rootOf(spans)
      // The abort leaves no status and no exception: the only error is the catalog tool's own.
      expect(spans.filter((s) => s.status === "error").map((s) => s.statusMessage)).toEqual(["catalog unavailable"])
      expect(spans.flatMap((s) => s.events.filter((e) => e.name === "exception"))).toHaveLength(1)
      expect(root.status).toBe("unset")
      // What does record it: the root's missing finish (the AI SDK 7), or `other`, which its model call never said (6).
      if (producer === "ai-sdk-7 (GenAI)") {
        expect(["gen_ai.response.finish_reasons", "gen_ai.output.messages"].filter((k) => root.attributes.has(k))).toEqual([])
      } else if (producer === "ai-sdk-7 (LegacyOpenTelemetry)") {
        expect(["ai.response.finishReason", "ai.response.text"].filter((k) => root.attributes.has(k))).toEqual([])
      } else {
        expect(root.attributes.get("ai.response.finishReason")).toBe("other")
        expect(spans.filter((s) => s.attributes.get("ai.operationId") === "ai.streamText.doStream").map((s) =>
          s.attributes.get("ai.response.finishReason")
        )).toEqual(["tool-calls"])
      }

      const { read: r, turn } = onlyTurn(document, "otel.refund-window")
      expect([r.failed, r.finished]).toEqual([false, false])
      expect(turn.answer).toBe("")
      expect(turn.trace).toMatchObject({ outcome: "error", citations: [], proposal: null })
      expect(executions(turn)).toEqual([
        { tool: "catalog", error: "catalog unavailable" },
        { tool: "search_docs", error: null, output: searchResult }
      ])
      expect(grade(caseOf("otel.refund-window"), turn, catalog.surfaces["docs"]!).expectations).toEqual([
        { kind: "calls-tool", passed: true },
        { kind: "calls-tool", passed: false, fact: "catalog errored: catalog unavailable" },
        { kind: "cites", passed: false, fact: "not cited: docs/billing/refunds.md" },
        { kind: "cites-only-surfaced", passed: true },
        { kind: "answer-includes", passed: false, fact: "answer lacks: \"30 days\"" },
        { kind: "outcome", passed: false, fact: "outcome: error (expected answered)" }
      ])
    })

    it(`${producer}: aborted in its first step, before any step finished, is an error turn`, async () => {
      const document = await traceStreamedTurn(producer, { ...refundTurn("otel.refund-window"), calls: [] }, { abortMidAnswer: true })
      const { read: r, turn } = onlyTurn(document, "otel.refund-window")
      expect(r.finished).toBe(false)
      expect(turn.answer).toBe("")
      expect(turn.trace).toMatchObject({ outcome: "error", toolExecutions: [], proposal: null })
    })

    it(`${producer}: streamed to its end, is the answered turn`, async () => {
      const { read: r, turn } = onlyTurn(await traceStreamedTurn(producer, refundTurn("otel.refund-window")), "otel.refund-window")
      expect(r.finished).toBe(true)
      expect(turn.answer).toBe(refund.answer)
      expect(turn.trace).toMatchObject({ outcome: "answered", proposal: null })
      expect(executions(turn)).toEqual([
        { tool: "catalog", error: "catalog unavailable" },
        { tool: "search_docs", error: null, output: searchResult }
      ])
    })
  }
})
