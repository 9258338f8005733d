/**
 * How an AI SDK run ended, read from the spans the real AI SDK 7 (both integrations) and 6 write: a
 * stream aborted mid-answer is an error turn, and the SDK's own tool approval (`needsApproval`,
 * `toolApproval`) leaves a proposal while it waits, an execution once a person approves, and nothing
 * that ran once they deny.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { grade } from "../../src/Graders/index.js"
import { type ReadTurn, readTurnsOf } from "../../src/Otel/Conventions.js"
import { linkTurns } from "../../src/Otel/Link.js"
import { groupTraces, readSpans, type Span } from "../../src/Otel/Otlp.js"
import { CasesFile, questionCases } from "../../src/Schema/Case.js"
import type { Problem } from "../../src/Schema/Errors.js"
import { Catalog } from "../../src/Schema/Surface.js"
import type { Turn } from "../../src/Schema/Trace.js"
import {
  aiSdkProducers,
  approvalTurn,
  deniedAnswer,
  deniedThenProposedTurn,
  otelCases,
  otelCatalog,
  refundTurn,
  traceApprovalTurn,
  traceDeniedThenProposed,
  traceProviderSearchTurn,
  traceStreamedTurn
} from "../support/otelTraces.js"

const catalog = Schema.decodeUnknownSync(Catalog)(otelCatalog)
const cases = questionCases(Schema.decodeUnknownSync(CasesFile)(otelCases).cases)
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
const approval = approvalTurn()
const changeInput = approval.calls[1]!.input
const configResult = approval.calls[0]!.result

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
        expect(["gen_ai.response.finish_reasons", "gen_ai.output.messages"].filter((k) => root.attributes.has(k)))
          .toEqual([])
      } else if (producer === "ai-sdk-7 (LegacyOpenTelemetry)") {
        expect(["ai.response.finishReason", "ai.response.text"].filter((k) => root.attributes.has(k))).toEqual([])
      } else {
        expect(root.attributes.get("ai.response.finishReason")).toBe("other")
        expect(
          spans.filter((s) => s.attributes.get("ai.operationId") === "ai.streamText.doStream").map((s) =>
            s.attributes.get("ai.response.finishReason")
          )
        ).toEqual(["tool-calls"])
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
      const document = await traceStreamedTurn(producer, { ...refundTurn("otel.refund-window"), calls: [] }, {
        abortMidAnswer: true
      })
      const { read: r, turn } = onlyTurn(document, "otel.refund-window")
      expect(r.finished).toBe(false)
      expect(turn.answer).toBe("")
      expect(turn.trace).toMatchObject({ outcome: "error", toolExecutions: [], proposal: null })
    })

    it(`${producer}: streamed to its end, is the answered turn`, async () => {
      const { read: r, turn } = onlyTurn(
        await traceStreamedTurn(producer, refundTurn("otel.refund-window")),
        "otel.refund-window"
      )
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

const expectedWaiting = {
  outcome: "awaiting-approval",
  // The spans record no approval id: the proposal is known by the waiting call's id.
  proposal: { id: "call_2", summary: "apply_change", actions: [{ tool: "apply_change", input: changeInput }] }
}

/** The cases of the approval turn's producers and ways of asking: AI SDK 7's `toolApproval` is not in 6. */
const askings = aiSdkProducers.flatMap((producer) =>
  (["needsApproval", "toolApproval", "withoutExecute"] as const)
    .filter((config) => producer !== "ai-sdk-6" || config !== "toolApproval")
    .flatMap((config) => [false, true].map((stream) => ({ producer, config, stream })))
)

describe("the AI SDK's tool approval, waiting for a person", () => {
  for (const { config, producer, stream } of askings) {
    const how = `${config}, ${stream ? "streamText" : "generateText"}`
    it(`${producer}, ${how}: the waiting call is the proposal, not an execution`, async () => {
      const traces = await traceApprovalTurn(producer, "pending", { config, stream })
      // The approval request is recorded nowhere in the spans: not its id, not its part.
      if (config === "withoutExecute") expect(traces.approvalId).toBeUndefined()
      else expect(traces.approvalId).toMatch(/^aitxt-/)
      expect(traces.asked).not.toContain("approval")

      const { read: r, turn } = onlyTurn(traces.asked, "otel.scale-search-api")
      expect(r.waiting).toEqual([{ tool: "apply_change", input: changeInput, callId: "call_2" }])
      expect(turn.answer).toBe("")
      expect(turn.trace).toMatchObject(expectedWaiting)
      expect(executions(turn)).toEqual([{ tool: "read_config", error: null, output: configResult }])
      expect(grade(caseOf("otel.scale-search-api"), turn, catalog.surfaces["ops-agent"]!).expectations).toEqual([
        { kind: "calls-tool", passed: true },
        { kind: "stops-at-approval", passed: true },
        { kind: "never-calls", passed: true }
      ])
    })
  }
})

describe("a record of the run that is not JSON", () => {
  it("is bad input naming the span and the attribute, as every attribute a rule reads is", async () => {
    const document = JSON.parse((await traceApprovalTurn("ai-sdk-6", "pending")).asked)
    const spans: Array<{ spanId: string; parentSpanId?: string; attributes: Array<{ key: string; value: unknown }> }> =
      document.resourceSpans[0].scopeSpans[0].spans
    const root = spans.find((s) => s.parentSpanId === undefined || s.parentSpanId === "")!
    const broken = { stringValue: "[{\"toolCallId\"" }
    root.attributes = root.attributes.map((a) => a.key === "ai.response.toolCalls" ? { key: a.key, value: broken } : a)
    const problems: Array<Problem> = []
    const trace = Either.getOrThrow(groupTraces(spansOf(JSON.stringify(document))))[0]!
    expect(readTurnsOf(trace, problems)).toEqual([])
    expect(problems).toEqual([{
      path: `trace ${trace.traceId}`,
      message: `span ${root.spanId} "ai.generateText": ai.response.toolCalls: not valid JSON`
    }])
  })
})

describe("the AI SDK's tool approval, denied in one step and waiting in the next", () => {
  for (const producer of ["ai-sdk-7 (GenAI)", "ai-sdk-7 (LegacyOpenTelemetry)"] as const) {
    it(`${producer}: only the call still waiting is the proposal; the denied one got its denial and did not run`, async () => {
      const document = await traceDeniedThenProposed(producer)
      const propose = deniedThenProposedTurn().calls[1]
      // The root's record of the run lists both calls, neither with a result: the denial is in the
      // second model call's prompt only.
      const root = rootOf(spansOf(document))
      const listed = producer === "ai-sdk-7 (GenAI)"
        ? JSON.parse(String(root.attributes.get("gen_ai.output.messages"))).flatMap((m: { parts: Array<unknown> }) =>
          m.parts
        )
        : JSON.parse(String(root.attributes.get("ai.response.toolCalls"))).map((c: object) => ({
          type: "tool-call",
          ...c
        }))
      expect(listed.map((p: { type: string; name?: string; toolName?: string }) => [p.type, p.name ?? p.toolName]))
        .toEqual(
          producer === "ai-sdk-7 (GenAI)"
            ? [["tool_call", "apply_change"], ["tool_call", "propose_change"]]
            : [["tool-call", "apply_change"], ["tool-call", "propose_change"]]
        )

      const { read: r, turn } = onlyTurn(document, "otel.scale-search-api")
      expect(r.waiting).toEqual([{ tool: propose!.tool, input: propose!.input, callId: "call_2" }])
      expect(turn.trace).toMatchObject({
        outcome: "awaiting-approval",
        toolExecutions: [],
        proposal: {
          id: "call_2",
          summary: "propose_change",
          actions: [{ tool: "propose_change", input: propose!.input }]
        }
      })
    })
  }
})

describe("the AI SDK's tool approval, answered", () => {
  for (const producer of aiSdkProducers) {
    it(`${producer}: a person's approval leaves no proposal, and the approved call is an execution of the next run`, async () => {
      const traces = await traceApprovalTurn(producer, "approved")
      const spans = spansOf(traces.continued!)
      const toolSpans = spans.filter((s) =>
        s.attributes.has("gen_ai.tool.name") || s.attributes.has("ai.toolCall.name")
      )
      // LegacyOpenTelemetry gives the approved call no span: it ran before the run's first step.
      expect(toolSpans).toHaveLength(producer === "ai-sdk-7 (LegacyOpenTelemetry)" ? 0 : 1)

      const { links, reads } = read(traces.asked, traces.continued!)
      expect(reads).toHaveLength(2)
      const turn = Either.getOrThrow(links.byCase.get("otel.scale-search-api")!.turn)
      // Both runs ask the case's question; the case is given the later one.
      expect(links.unlinked.map((u) => u.reason)).toEqual([
        expect.stringMatching(/^case otel\.scale-search-api is given a later turn/)
      ])
      expect(turn.answer).toBe(approval.answer)
      expect(turn.trace).toMatchObject({ outcome: "answered", proposal: null })
      expect(turn.trace.toolExecutions.map(({ durationMs: _, ...e }) => e)).toEqual([
        { tool: "apply_change", input: changeInput, output: approval.calls[1]!.result, error: null }
      ])
      expect(grade(caseOf("otel.scale-search-api"), turn, catalog.surfaces["ops-agent"]!).expectations).toEqual([
        { kind: "calls-tool", passed: false, fact: "not called: read_config" },
        {
          kind: "stops-at-approval",
          passed: false,
          fact: "no proposal; outcome: answered (expected awaiting-approval); ran past approval: apply_change"
        },
        { kind: "never-calls", passed: false, fact: "called: apply_change" }
      ])
    })

    it(`${producer}: an approved call that fails is an execution with its error`, async () => {
      const traces = await traceApprovalTurn(producer, "approved", {
        changeFails: "the cluster refused the change\n    at apply"
      })
      const { links } = read(traces.asked, traces.continued!)
      const turn = Either.getOrThrow(links.byCase.get("otel.scale-search-api")!.turn)
      expect(turn.trace.toolExecutions.map(({ durationMs: _, ...e }) => e)).toEqual([
        { tool: "apply_change", input: changeInput, error: "the cluster refused the change" }
      ])
    })

    it(`${producer}: a person's denial leaves no proposal, and the denied call did not run`, async () => {
      const traces = await traceApprovalTurn(producer, "denied")
      const { links } = read(traces.asked, traces.continued!)
      const turn = Either.getOrThrow(links.byCase.get("otel.scale-search-api")!.turn)
      expect(turn.answer).toBe(deniedAnswer)
      expect(turn.trace).toMatchObject({ outcome: "answered", proposal: null, toolExecutions: [] })
    })
  }

  for (const producer of aiSdkProducers.filter((p) => p !== "ai-sdk-6")) {
    it(`${producer}: toolApproval "approved" runs the call like any other, with no proposal`, async () => {
      const { turn } = onlyTurn((await traceApprovalTurn(producer, "auto-approved")).asked, "otel.scale-search-api")
      expect(turn.answer).toBe(approval.answer)
      expect(turn.trace).toMatchObject({ outcome: "answered", proposal: null })
      expect(executions(turn)).toEqual([
        { tool: "apply_change", error: null, output: approval.calls[1]!.result },
        { tool: "read_config", error: null, output: configResult }
      ])
    })

    it(`${producer}: toolApproval "denied" does not run the call, and leaves no proposal`, async () => {
      const { turn } = onlyTurn((await traceApprovalTurn(producer, "auto-denied")).asked, "otel.scale-search-api")
      expect(turn.answer).toBe(deniedAnswer)
      expect(turn.trace).toMatchObject({ outcome: "answered", proposal: null })
      expect(executions(turn)).toEqual([{ tool: "read_config", error: null, output: configResult }])
    })
  }
})

describe("a call the provider ran itself, in a run that finished with stop", () => {
  for (const producer of aiSdkProducers) {
    it(`${producer}: waits for nothing, though no tool span of the application ran it`, async () => {
      const { read: r, turn } = onlyTurn(await traceProviderSearchTurn(producer), "otel.refund-window")
      expect(r.waiting).toEqual([])
      expect(turn.answer).toBe(refund.answer)
      expect(turn.trace).toMatchObject({ outcome: "answered", proposal: null })
      // The GenAI integration gives the provider's call a tool span, with its result; the `ai.*` spans do not.
      expect(executions(turn)).toEqual(
        producer === "ai-sdk-7 (GenAI)" ? [{ tool: "search_docs", error: null, output: searchResult }] : []
      )
    })
  }
})
