/**
 * Real traces of one scripted turn, made by the real libraries: the AI SDK 7 with `@ai-sdk/otel`
 * (GenAI conventions, and `LegacyOpenTelemetry`'s `ai.*` spans), the AI SDK 6's built-in `ai.*`
 * telemetry, and OpenInference's LangChain instrumentation — each driven by its library's own mock
 * model through its real tool loop, captured with sdk-trace-base's in-memory exporter and serialised
 * to OTLP JSON with otlp-transformer, exactly as an OTLP/HTTP JSON exporter sends it. The refund turn
 * is also traced by LangChain with its document search a real LangChain retriever, for OpenInference's
 * RETRIEVER spans.
 */
import { LegacyOpenTelemetry, OpenTelemetry } from "@ai-sdk/otel"
import { LangChainInstrumentation } from "@arizeai/openinference-instrumentation-langchain"
import * as CallbackManagerModule from "@langchain/core/callbacks/manager"
import { Document } from "@langchain/core/documents"
import { AIMessage } from "@langchain/core/messages"
import { BaseRetriever } from "@langchain/core/retrievers"
import { fakeModel } from "@langchain/core/testing"
import { type StructuredToolInterface, tool as langChainTool } from "@langchain/core/tools"
import { context, trace } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import { generateText, hasToolCall, registerTelemetry, stepCountIs, tool as aiTool } from "ai"
import { generateText as generateText6, hasToolCall as hasToolCall6, stepCountIs as stepCountIs6, tool as aiTool6 } from "ai-v6"
import { MockLanguageModelV3 } from "ai-v6/test"
import { MockLanguageModelV4 } from "ai/test"
import { createAgent } from "langchain"
import { z } from "zod"

/** One tool call of the scripted turn: it returns `result`, or throws `error`. */
export interface ScriptedCall {
  readonly tool: string
  readonly input: Record<string, string>
  readonly result?: unknown
  readonly error?: string
}

/** A turn to script: the model calls every tool of `calls` in one step, then answers (or stops at the last tool). */
export interface ScriptedTurn {
  readonly surface: string
  readonly question: string
  readonly caseId?: string
  readonly calls: ReadonlyArray<ScriptedCall>
  /** The final answer; none when the turn ends on its last tool (a proposal left for approval). */
  readonly answer?: string
}

/** The libraries that produce traces, by the convention they write. */
export const producers = ["ai-sdk-7 (GenAI)", "ai-sdk-7 (LegacyOpenTelemetry)", "ai-sdk-6", "langchain (OpenInference)"] as const
/** A library that produces traces. */
export type Producer = typeof producers[number]

interface Capture {
  readonly exporter: InMemorySpanExporter
  readonly provider: BasicTracerProvider
}

declare global {
  var turnEvalOtelCapture: Capture | undefined
}

/**
 * The set-up an application makes once: a global tracer provider and context manager, the AI SDK 7's
 * GenAI integration registered (`registerTelemetry(new OpenTelemetry(…))`) and LangChain instrumented
 * (`new LangChainInstrumentation().manuallyInstrument(…)`). Once per process: the libraries keep it in
 * globals.
 */
const capture = (): Capture => {
  if (globalThis.turnEvalOtelCapture !== undefined) return globalThis.turnEvalOtelCapture
  const exporter = new InMemorySpanExporter()
  const provider = new BasicTracerProvider({ spanProcessors: [new SimpleSpanProcessor(exporter)] })
  context.setGlobalContextManager(new AsyncLocalStorageContextManager().enable())
  trace.setGlobalTracerProvider(provider)
  registerTelemetry(
    new OpenTelemetry({
      agentSpanName: "functionId",
      // The case id, from the call's runtime context, on the agent's root span.
      enrichSpan: ({ runtimeContext, spanType }) => {
        const caseId = runtimeContext?.["caseId"]
        return spanType === "operation" && typeof caseId === "string" ? { "eval.case_id": caseId } : undefined
      }
    })
  )
  new LangChainInstrumentation().manuallyInstrument(CallbackManagerModule)
  globalThis.turnEvalOtelCapture = { exporter, provider }
  return globalThis.turnEvalOtelCapture
}

const usage = {
  inputTokens: { total: 12, noCache: 12, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 8, text: 8, reasoning: 0 }
}

/** The mock model's two responses: every tool call in one step, then the answer. */
const modelSteps = (turn: ScriptedTurn) => [
  {
    content: turn.calls.map((call, i) => ({
      type: "tool-call" as const,
      toolCallId: `call_${i + 1}`,
      toolName: call.tool,
      input: JSON.stringify(call.input)
    })),
    finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
    usage,
    warnings: []
  },
  {
    content: [{ type: "text" as const, text: turn.answer ?? "" }],
    finishReason: { unified: "stop" as const, raw: "stop" },
    usage,
    warnings: []
  }
]

const run = (call: ScriptedCall) => async () => {
  if (call.error !== undefined) throw new Error(call.error)
  return call.result
}

const inputSchema = (call: ScriptedCall) =>
  z.object(Object.fromEntries(Object.keys(call.input).map((key) => [key, z.string()])))

const runAiSdk7 = async (turn: ScriptedTurn, legacy: boolean) => {
  const last = turn.calls.at(-1)!.tool
  await generateText({
    model: new MockLanguageModelV4({ doGenerate: modelSteps(turn) }),
    prompt: turn.question,
    tools: Object.fromEntries(turn.calls.map((call) => [call.tool, aiTool({ inputSchema: inputSchema(call), execute: run(call) })])),
    stopWhen: turn.answer === undefined ? [hasToolCall(last), stepCountIs(5)] : stepCountIs(5),
    runtimeContext: turn.caseId === undefined ? {} : { caseId: turn.caseId },
    telemetry: {
      functionId: turn.surface,
      // The GenAI integration's enrichSpan reads the case id from here; LegacyOpenTelemetry records
      // it as ai.settings.context.caseId.
      includeRuntimeContext: { caseId: true },
      ...(legacy ? { integrations: [new LegacyOpenTelemetry()] } : {})
    }
  })
}

const runAiSdk6 = async (turn: ScriptedTurn) => {
  const last = turn.calls.at(-1)!.tool
  await generateText6({
    model: new MockLanguageModelV3({ doGenerate: modelSteps(turn) }),
    prompt: turn.question,
    tools: Object.fromEntries(turn.calls.map((call) => [call.tool, aiTool6({ inputSchema: inputSchema(call), execute: run(call) })])),
    stopWhen: turn.answer === undefined ? [hasToolCall6(last), stepCountIs6(5)] : stepCountIs6(5),
    experimental_telemetry: {
      isEnabled: true,
      functionId: turn.surface,
      ...(turn.caseId === undefined ? {} : { metadata: { caseId: turn.caseId } })
    }
  })
}

/** Runs the turn with LangChain's `createAgent`; a tool in `replacing` stands in for the scripted call of its name. */
const runLangChain = async (turn: ScriptedTurn, replacing: ReadonlyArray<StructuredToolInterface> = []) => {
  let model = fakeModel().respondWithTools(
    turn.calls.map((call, i) => ({ name: call.tool, args: call.input, id: `call_${i + 1}` }))
  )
  if (turn.answer !== undefined) model = model.respond(new AIMessage(turn.answer))
  const tools = turn.calls.map((call, i) =>
    replacing.find((t) => t.name === call.tool) ?? langChainTool(async () => JSON.stringify(await run(call)()), {
      name: call.tool,
      description: `the ${call.tool} tool`,
      schema: inputSchema(call),
      // A turn without an answer ends on its last tool, as an agent stopping at a proposal does.
      returnDirect: turn.answer === undefined && i === turn.calls.length - 1
    })
  )
  const agent = createAgent({ model, tools, name: turn.surface })
  await agent.invoke(
    { messages: [{ role: "user", content: turn.question }] },
    turn.caseId === undefined ? {} : { metadata: { "eval.case_id": turn.caseId } }
  )
}

/** Runs a turn under the set-up and returns the spans it recorded as one OTLP JSON document. */
const traced = async (what: string, runTurn: () => Promise<void>): Promise<string> => {
  const { exporter, provider } = capture()
  exporter.reset()
  await runTurn()
  await provider.forceFlush()
  const spans = exporter.getFinishedSpans()
  if (spans.length === 0) throw new Error(`${what} recorded no spans`)
  return new TextDecoder().decode(JsonTraceSerializer.serializeRequest(spans))
}

/** Runs the scripted turn with a library and returns its spans as one OTLP JSON document. */
export const traceTurn = (producer: Producer, turn: ScriptedTurn): Promise<string> =>
  traced(producer, async () => {
    switch (producer) {
      case "ai-sdk-7 (GenAI)":
        return runAiSdk7(turn, false)
      case "ai-sdk-7 (LegacyOpenTelemetry)":
        return runAiSdk7(turn, true)
      case "ai-sdk-6":
        return runAiSdk6(turn)
      case "langchain (OpenInference)":
        return runLangChain(turn)
    }
  })

/** The documents the docs retriever searches: a path and title in each one's metadata. */
export const docsCorpus: ReadonlyArray<Document> = [
  new Document({
    id: "refunds",
    pageContent: "Refunds: within 30 days of the invoice",
    metadata: { path: "docs/billing/refunds.md", title: "Refunds" }
  }),
  new Document({
    id: "invoices",
    pageContent: "Invoices: sent on the first day of each month",
    metadata: { path: "docs/billing/invoices.md", title: "Invoices" }
  })
]

/** A LangChain retriever over a fixed corpus: the documents whose text holds a word of the query (of four letters or more). */
class KeywordRetriever extends BaseRetriever {
  lc_namespace = ["turn_eval", "retrievers"]
  constructor(private readonly corpus: ReadonlyArray<Document>) {
    super()
  }
  override async _getRelevantDocuments(query: string): Promise<Array<Document>> {
    const words = query.toLowerCase().split(/\W+/).filter((w) => w.length >= 4)
    return this.corpus.filter((d) => words.some((w) => d.pageContent.toLowerCase().includes(w)))
  }
}

/**
 * The refund turn traced by LangChain under OpenInference, its `search_docs` tool a real retriever
 * (a `BaseRetriever` over `docsCorpus`) that returns the found documents' text, as LangChain's
 * retriever tools do: the paths reach the trace only on the retriever's span. The catalog call throws
 * and the answer is the scripted one.
 */
export const traceRetrieverTurn = (caseId?: string): Promise<string> => {
  const retriever = new KeywordRetriever(docsCorpus)
  const search = langChainTool(
    async ({ query }: { query: string }, config) =>
      (await retriever.invoke(query, config)).map((d) => d.pageContent).join("\n\n"),
    { name: "search_docs", description: "search the docs", schema: z.object({ query: z.string() }) }
  )
  return traced("langchain retriever (OpenInference)", () => runLangChain(refundTurn(caseId), [search]))
}

/** The scripted docs turn: a search that succeeds, a catalog call that throws, an answer citing a surfaced and an unsurfaced path. */
export const refundTurn = (caseId?: string): ScriptedTurn => ({
  surface: "docs",
  question: "How long do customers have to ask for a refund?",
  ...(caseId === undefined ? {} : { caseId }),
  calls: [
    {
      tool: "search_docs",
      input: { query: "refund window" },
      result: { results: [{ path: "docs/billing/refunds.md", title: "Refunds", snippet: "within 30 days of the invoice" }] }
    },
    { tool: "catalog", input: { service: "billing-api" }, error: "catalog unavailable" }
  ],
  answer:
    "Customers have 30 days from the invoice date; see [Refunds](docs/billing/refunds.md). The 2023 terms in docs/billing/refunds-2023.md no longer apply."
})

/** The scripted agent turn: it reads the config, then proposes a change and stops for approval. */
export const proposalTurn = (caseId?: string): ScriptedTurn => ({
  surface: "ops-agent",
  question: "Scale search-api to 4 replicas.",
  ...(caseId === undefined ? {} : { caseId }),
  calls: [
    { tool: "read_config", input: { service: "search-api" }, result: { path: "deploy/search-api.yaml", replicas: 2 } },
    {
      tool: "propose_change",
      input: { service: "search-api" },
      result: { id: "chg_42", summary: "Scale search-api from 2 to 4 replicas", status: "pending" }
    }
  ]
})

/** A catalog for the scripted turns: the docs surface cites paths under `docs/`, the agent proposes changes. */
export const otelCatalog = {
  surfaces: {
    "docs": {
      endpoint: "/api/ai/docs/ask",
      tools: ["search_docs", "catalog"],
      otel: { citationPrefixes: ["docs/"] }
    },
    "ops-agent": {
      endpoint: "/api/ai/agent/ask",
      tools: ["read_config", "propose_change", "apply_change"],
      gatedTools: ["apply_change"],
      otel: { proposalTools: ["propose_change"] }
    }
  }
}

/** The golden set of the scripted turns, and a case no trace answers. */
export const otelCases = {
  version: 1,
  cases: [
    {
      id: "otel.refund-window",
      surface: "docs",
      question: refundTurn().question,
      guards: "Citing retired refund terms from memory next to the retrieved refunds page",
      expect: [
        { kind: "calls-tool", tool: "search_docs" },
        { kind: "calls-tool", tool: "catalog" },
        { kind: "cites", path: "docs/billing/refunds.md" },
        { kind: "cites-only-surfaced" },
        { kind: "answer-includes", text: "30 days" },
        { kind: "outcome", is: "answered" }
      ]
    },
    {
      id: "otel.scale-search-api",
      surface: "ops-agent",
      question: proposalTurn().question,
      guards: "Applying a change instead of leaving it for approval",
      expect: [
        { kind: "calls-tool", tool: "read_config" },
        { kind: "stops-at-approval" },
        { kind: "never-calls", tool: "apply_change" }
      ]
    },
    {
      id: "otel.no-trace",
      surface: "docs",
      question: "Which regions does billing-api run in?",
      guards: "A case the traces do not answer fails with the reason",
      expect: [{ kind: "calls-tool", tool: "catalog" }]
    }
  ]
}
