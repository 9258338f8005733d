/**
 * Real traces of one scripted turn, made by the real libraries: the AI SDK 7 with `@ai-sdk/otel`
 * (GenAI conventions, and `LegacyOpenTelemetry`'s `ai.*` spans), the AI SDK 6's built-in `ai.*`
 * telemetry, and OpenInference's LangChain instrumentation — each driven by its library's own mock
 * model through its real tool loop, captured with sdk-trace-base's in-memory exporter and serialised
 * to OTLP JSON with otlp-transformer, exactly as an OTLP/HTTP JSON exporter sends it. The refund turn
 * is also traced by LangChain with its document search a real LangChain retriever, for OpenInference's
 * RETRIEVER spans. The AI SDK's turns are also streamed with `streamText`, to their end or aborted
 * mid-answer, and run through the SDK's own tool approval (`needsApproval`, `toolApproval`): waiting,
 * answered by a person in a second call, or decided by `toolApproval`. Each model call reports the
 * tokens it used (`callUsage`), unless the turn says its model reports none; `traceSpans` writes span
 * trees with the OpenTelemetry SDK's own tracer, for the conventions no installed library writes.
 */
import { LegacyOpenTelemetry, OpenTelemetry } from "@ai-sdk/otel"
import { LangChainInstrumentation } from "@arizeai/openinference-instrumentation-langchain"
import * as CallbackManagerModule from "@langchain/core/callbacks/manager"
import { Document } from "@langchain/core/documents"
import { AIMessage, type AIMessageFields, type UsageMetadata } from "@langchain/core/messages"
import { BaseRetriever } from "@langchain/core/retrievers"
import { fakeModel } from "@langchain/core/testing"
import { type StructuredToolInterface, tool as langChainTool } from "@langchain/core/tools"
import { type Attributes, context, trace } from "@opentelemetry/api"
import { AsyncLocalStorageContextManager } from "@opentelemetry/context-async-hooks"
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer"
import { BasicTracerProvider, InMemorySpanExporter, SimpleSpanProcessor } from "@opentelemetry/sdk-trace-base"
import {
  generateText,
  hasToolCall,
  type ModelMessage,
  registerTelemetry,
  stepCountIs,
  streamText,
  tool as aiTool
} from "ai"
import {
  generateText as generateText6,
  hasToolCall as hasToolCall6,
  type ModelMessage as ModelMessage6,
  stepCountIs as stepCountIs6,
  streamText as streamText6,
  tool as aiTool6
} from "ai-v6"
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
  /** The conversation the turn is in, as the app tells its telemetry (see `runAiSdk`). */
  readonly conversationId?: string
  readonly calls: ReadonlyArray<ScriptedCall>
  /** The final answer; none when the turn ends on its last tool (a proposal left for approval). */
  readonly answer?: string
  /** The model reports no token counts, as some providers and fake models do. */
  readonly noUsage?: true
}

/** The libraries that are the AI SDK: they also stream with `streamText` and ask for approval. */
export const aiSdkProducers = ["ai-sdk-7 (GenAI)", "ai-sdk-7 (LegacyOpenTelemetry)", "ai-sdk-6"] as const
/** A producer that is the AI SDK. */
export type AiSdkProducer = typeof aiSdkProducers[number]

/** The libraries that produce traces, by the convention they write. */
export const producers = [...aiSdkProducers, "langchain (OpenInference)"] as const
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
      // The case id and the conversation, from the call's runtime context, on the agent's root span.
      enrichSpan: ({ runtimeContext, spanType }) => {
        const caseId = runtimeContext?.["caseId"]
        const conversationId = runtimeContext?.["conversationId"]
        if (spanType !== "operation") return undefined
        return {
          ...(typeof caseId === "string" ? { "eval.case_id": caseId } : {}),
          ...(typeof conversationId === "string" ? { "gen_ai.conversation.id": conversationId } : {})
        }
      }
    })
  )
  new LangChainInstrumentation().manuallyInstrument(CallbackManagerModule)
  globalThis.turnEvalOtelCapture = { exporter, provider }
  return globalThis.turnEvalOtelCapture
}

/** The tokens one model call used. */
export interface CallUsage {
  readonly inputTokens: number
  readonly outputTokens: number
}

/** The tokens each model call of a scripted turn reports: the call that calls the tools, and the one that answers. */
export const callUsage = {
  tools: { inputTokens: 12, outputTokens: 8 },
  answer: { inputTokens: 30, outputTokens: 5 }
} as const satisfies Record<string, CallUsage>

/** A model call's usage as the AI SDK's mock models report it; a provider that reports none (null) leaves every count undefined. */
const reported = (counts: CallUsage | null) => ({
  inputTokens: {
    total: counts?.inputTokens,
    noCache: counts?.inputTokens,
    cacheRead: counts === null ? undefined : 0,
    cacheWrite: counts === null ? undefined : 0
  },
  outputTokens: { total: counts?.outputTokens, text: counts?.outputTokens, reasoning: counts === null ? undefined : 0 }
})

/** A response that calls tools: `calls` in one step, their ids numbered on from `firstId`. */
const callStep = (calls: ReadonlyArray<ScriptedCall>, firstId = 1, counts: CallUsage | null = callUsage.tools) => ({
  content: calls.map((call, i) => ({
    type: "tool-call" as const,
    toolCallId: `call_${firstId + i}`,
    toolName: call.tool,
    input: JSON.stringify(call.input)
  })),
  finishReason: { unified: "tool-calls" as const, raw: "tool_calls" },
  usage: reported(counts),
  warnings: []
})

/** The mock model's two responses: every tool call in one step, then the answer. */
const modelSteps = (turn: ScriptedTurn) => [
  callStep(turn.calls, 1, turn.noUsage === true ? null : callUsage.tools),
  {
    content: [{ type: "text" as const, text: turn.answer ?? "" }],
    finishReason: { unified: "stop" as const, raw: "stop" },
    usage: reported(turn.noUsage === true ? null : callUsage.answer),
    warnings: []
  }
]

/**
 * The AI message a LangChain chat model answers with, reporting the call's usage as LangChain's chat
 * models do (`usage_metadata`) unless the turn's model reports none. LangChain's field types make
 * `usage_metadata` `undefined` for messages of its default structure: the fields are given as its own type.
 */
const aiMessage = (
  turn: ScriptedTurn,
  counts: CallUsage,
  fields: { readonly content: string; readonly tool_calls?: AIMessageFields["tool_calls"] }
): AIMessage => {
  const usage: UsageMetadata = {
    input_tokens: counts.inputTokens,
    output_tokens: counts.outputTokens,
    total_tokens: counts.inputTokens + counts.outputTokens
  }
  return new AIMessage({ ...fields, ...(turn.noUsage === true ? {} : { usage_metadata: usage }) } as AIMessageFields)
}

const run = (call: ScriptedCall) => async () => {
  if (call.error !== undefined) throw new Error(call.error)
  return call.result
}

const inputSchema = (call: ScriptedCall) =>
  z.object(Object.fromEntries(Object.keys(call.input).map((key) => [key, z.string()])))

/** Runs the turn with LangChain's `createAgent`; a tool in `replacing` stands in for the scripted call of its name. */
const runLangChain = async (turn: ScriptedTurn, replacing: ReadonlyArray<StructuredToolInterface> = []) => {
  let model = fakeModel().respond(aiMessage(turn, callUsage.tools, {
    content: "",
    tool_calls: turn.calls.map((call, i) => ({
      name: call.tool,
      args: call.input,
      id: `call_${i + 1}`,
      type: "tool_call"
    }))
  }))
  if (turn.answer !== undefined) model = model.respond(aiMessage(turn, callUsage.answer, { content: turn.answer }))
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
    {
      metadata: {
        ...(turn.caseId === undefined ? {} : { "eval.case_id": turn.caseId }),
        // OpenInference's LangChain instrumentation writes a run's session_id metadata as session.id.
        ...(turn.conversationId === undefined ? {} : { session_id: turn.conversationId })
      }
    }
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

/** A span for the OpenTelemetry SDK to write: its name, its attributes, and the spans below it in order. */
export interface SpanTree {
  readonly name: string
  readonly attributes: Attributes
  readonly children?: ReadonlyArray<SpanTree>
}

/**
 * Writes a span tree with the OpenTelemetry SDK's own tracer, as an application instruments its own
 * code, and returns it as one OTLP JSON document serialised as every trace here is: for conventions no
 * installed library writes (the GenAI conventions' older names, the AI SDK 4's), and for shapes the
 * libraries here never make (a run's total that disagrees with its model calls, a count that is no
 * whole number).
 */
export const traceSpans = (root: SpanTree): Promise<string> =>
  traced("the OpenTelemetry SDK", async () => {
    const tracer = trace.getTracer("turn-eval-tests")
    const write = (tree: SpanTree): Promise<void> =>
      tracer.startActiveSpan(tree.name, { attributes: tree.attributes }, async (span) => {
        for (const child of tree.children ?? []) await write(child)
        span.end()
      })
    await write(root)
  })

/** Runs the scripted turn with a library and returns its spans as one OTLP JSON document. */
export const traceTurn = (producer: Producer, turn: ScriptedTurn): Promise<string> =>
  traced(producer, async () => {
    if (producer === "langchain (OpenInference)") return runLangChain(turn)
    await runAiSdk({ producer, turn, steps: modelSteps(turn), stream: false })
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
      result: {
        results: [{ path: "docs/billing/refunds.md", title: "Refunds", snippet: "within 30 days of the invoice" }]
      }
    },
    { tool: "catalog", input: { service: "billing-api" }, error: "catalog unavailable" }
  ],
  answer: "Customers have 30 days from the invoice date; see [Refunds](docs/billing/refunds.md). The 2023 terms in " +
    "docs/billing/refunds-2023.md no longer apply."
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
      evidence: { citationPrefixes: ["docs/"] }
    },
    "ops-agent": {
      endpoint: "/api/ai/agent/ask",
      tools: ["read_config", "propose_change", "apply_change"],
      gatedTools: ["apply_change"],
      evidence: { proposalTools: ["propose_change"] }
    }
  }
}

/** The same catalog written before the `evidence` block: its rules under each surface's `otel` block. */
export const otelCatalogRulesUnderOtel = {
  surfaces: Object.fromEntries(
    Object.entries(otelCatalog.surfaces).map((
      [name, { evidence, ...surface }]
    ) => [name, { ...surface, otel: evidence }])
  )
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

// ---------------------------------------------------------------------------------------------------
// The AI SDK's streams, aborted mid-answer, and its own tool approval

/** A response that is only text. */
const textStep = (text: string) => ({
  content: [{ type: "text" as const, text }],
  finishReason: { unified: "stop" as const, raw: "stop" },
  usage: reported(callUsage.answer),
  warnings: []
})

/** A response in which the provider ran `call` itself (as a provider's own web search runs) and then answered. */
const providerRanStep = (call: ScriptedCall, answer: string) => ({
  content: [
    {
      type: "tool-call" as const,
      toolCallId: "srvtool_1",
      toolName: call.tool,
      input: JSON.stringify(call.input),
      providerExecuted: true
    },
    {
      type: "tool-result" as const,
      toolCallId: "srvtool_1",
      toolName: call.tool,
      result: call.result as NonNullable<unknown>
    },
    { type: "text" as const, text: answer }
  ],
  finishReason: { unified: "stop" as const, raw: "stop" },
  usage: reported(callUsage.answer),
  warnings: []
})

/** One response of the mock model. */
type ModelStep =
  | ReturnType<typeof modelSteps>[number]
  | ReturnType<typeof textStep>
  | ReturnType<typeof providerRanStep>

/** A response as a provider's stream sends it: its start, its text in deltas, its tool calls, its finish. */
const streamChunks = (step: ModelStep, cutOff: boolean) => {
  const parts: ReadonlyArray<{ readonly type: string; readonly text?: string }> = step.content
  const chunks: Array<Record<string, unknown>> = [{ type: "stream-start", warnings: [] }]
  for (const [i, part] of parts.entries()) {
    if (part.type !== "text") {
      chunks.push(part)
      continue
    }
    const words = (part.text ?? "").split(/(?<= )/)
    chunks.push({ type: "text-start", id: `text_${i}` })
    // A cut-off stream stops after the first words of its answer: the rest never arrives.
    for (const delta of cutOff ? words.slice(0, 3) : words) chunks.push({ type: "text-delta", id: `text_${i}`, delta })
    if (cutOff) return chunks
    chunks.push({ type: "text-end", id: `text_${i}` })
  }
  chunks.push({ type: "finish", finishReason: step.finishReason, usage: step.usage })
  return chunks
}

/**
 * A mock model's `doStream`: each call streams the next response. When `cutOff`, the last response
 * stops after its first words and the stream then waits, as a provider's response body does, until
 * the call's abort signal fires, when it errors with the signal's reason as `fetch` does.
 */
const streaming = (steps: ReadonlyArray<ModelStep>, cutOff: boolean) => {
  let next = 0
  return async (options: { abortSignal?: AbortSignal }) => {
    const i = next++
    const last = i === steps.length - 1
    const chunks = streamChunks(steps[i]!, cutOff && last)
    const signal = options.abortSignal
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of chunks) controller.enqueue(chunk)
        if (!(cutOff && last)) return controller.close()
        if (signal === undefined) throw new Error("a stream cut off mid-answer needs the call's abort signal")
        signal.addEventListener("abort", () => controller.error(signal.reason), { once: true })
      }
    })
    return { stream } as unknown as Awaited<ReturnType<MockLanguageModelV4["doStream"]>>
  }
}

/** How a call that needs approval is answered: left waiting, answered by a person, or decided by the call's `toolApproval`. */
export type ApprovalDecision = "pending" | "approved" | "denied" | "auto-approved" | "auto-denied"

/**
 * What asks for approval: the tool's own `needsApproval: true`, (AI SDK 7) the call's `toolApproval:
 * {tool: "user-approval"}`, or a tool without `execute`, whose result the client gives (left waiting only).
 */
export type ApprovalConfig = "needsApproval" | "toolApproval" | "withoutExecute"

/** An AI SDK 7 `toolApproval` status for one tool. */
type ApprovalStatus = "approved" | "denied" | "user-approval"

/** What one run of the AI SDK is asked to do. */
interface AiSdkRun {
  readonly producer: AiSdkProducer
  readonly turn: ScriptedTurn
  readonly steps: ReadonlyArray<ModelStep>
  /** The conversation so far, for a call that continues one; else the turn's question is the prompt. */
  readonly messages?: ReadonlyArray<unknown>
  /** `streamText` (consumed to its end) rather than `generateText`. */
  readonly stream: boolean
  /** Abort the stream once the first words of its answer arrive. */
  readonly abort?: boolean
  /** The tools defined with `needsApproval: true`. */
  readonly needsApproval?: ReadonlyArray<string>
  /** The tools defined without `execute`: the client gives their results. */
  readonly withoutExecute?: ReadonlyArray<string>
  /** The call's `toolApproval` (AI SDK 7). */
  readonly toolApproval?: Readonly<Record<string, ApprovalStatus>>
  /** The tools the provider runs itself (a provider tool, `type: "provider"`), not the application. */
  readonly providerTools?: ReadonlyArray<string>
}

/** A tool the provider runs, defined as a provider's package defines its own (`openai.tools.webSearch()`, say). */
const providerTool = (call: ScriptedCall) => ({
  type: "provider" as const,
  id: `test.${call.tool}` as const,
  args: {},
  inputSchema: inputSchema(call),
  isProviderExecuted: true as const
})

/** What a run gave back: its content parts and its response messages. */
interface AiSdkResult {
  readonly content: ReadonlyArray<{ readonly type: string; readonly approvalId?: string }>
  readonly messages: ReadonlyArray<unknown>
}

/**
 * Runs a turn with the AI SDK (`generateText`, or `streamText` consumed to its end as an application
 * streams it to its client), traced as the set-up traces it: the AI SDK 7 with the GenAI integration
 * or `LegacyOpenTelemetry`, the AI SDK 6 with its built-in telemetry. An aborted stream is aborted by
 * the caller's `abortSignal`, as a request's abort does.
 */
const runAiSdk = async (r: AiSdkRun): Promise<AiSdkResult> => {
  const controller = new AbortController()
  // A turn without an answer ends on its last tool, as an agent that stops at a proposal does.
  const last = r.turn.answer === undefined ? r.turn.calls.at(-1)?.tool : undefined
  const needsApproval = (tool: string) => r.needsApproval?.includes(tool) === true ? { needsApproval: true } : {}
  const withoutExecute = (call: ScriptedCall) => r.withoutExecute?.includes(call.tool) === true
  const consume = async (stream: AsyncIterable<{ type: string }>) => {
    for await (const part of stream) if (r.abort === true && part.type === "text-delta") controller.abort()
  }
  if (r.producer === "ai-sdk-6") {
    if (r.toolApproval !== undefined) throw new Error("the AI SDK 6 has no toolApproval")
    const settings = {
      model: new MockLanguageModelV3({
        doGenerate: [...r.steps],
        doStream: streaming(r.steps, r.abort === true) as unknown as MockLanguageModelV3["doStream"]
      }),
      ...(r.messages === undefined
        ? { prompt: r.turn.question }
        : { messages: [...r.messages] as Array<ModelMessage6> }),
      tools: Object.fromEntries(r.turn.calls.map((call) => {
        const own = aiTool6({ inputSchema: inputSchema(call), execute: run(call), ...needsApproval(call.tool) })
        const other = r.providerTools?.includes(call.tool) === true
          ? providerTool(call)
          : withoutExecute(call)
          ? aiTool6({ inputSchema: inputSchema(call) })
          : undefined
        return [call.tool, other === undefined ? own : other as unknown as typeof own]
      })),
      stopWhen: last === undefined ? stepCountIs6(5) : [hasToolCall6(last), stepCountIs6(5)],
      ...(r.abort === true ? { abortSignal: controller.signal } : {}),
      experimental_telemetry: {
        isEnabled: true,
        functionId: r.turn.surface,
        metadata: {
          ...(r.turn.caseId === undefined ? {} : { caseId: r.turn.caseId }),
          ...(r.turn.conversationId === undefined ? {} : { conversationId: r.turn.conversationId })
        }
      }
    }
    if (!r.stream) {
      const result = await generateText6(settings)
      return { content: result.content, messages: result.response.messages }
    }
    const result = streamText6(settings)
    await consume(result.fullStream)
    if (r.abort === true) return { content: [], messages: [] }
    return { content: await result.content, messages: (await result.response).messages }
  }
  const settings = {
    model: new MockLanguageModelV4({ doGenerate: [...r.steps], doStream: streaming(r.steps, r.abort === true) }),
    ...(r.messages === undefined ? { prompt: r.turn.question } : { messages: [...r.messages] as Array<ModelMessage> }),
    tools: Object.fromEntries(r.turn.calls.map((call) => {
      const own = aiTool({ inputSchema: inputSchema(call), execute: run(call), ...needsApproval(call.tool) })
      const other = r.providerTools?.includes(call.tool) === true
        ? providerTool(call)
        : withoutExecute(call)
        ? aiTool({ inputSchema: inputSchema(call) })
        : undefined
      return [call.tool, other === undefined ? own : other as unknown as typeof own]
    })),
    ...(r.toolApproval === undefined ? {} : { toolApproval: r.toolApproval }),
    stopWhen: last === undefined ? stepCountIs(5) : [hasToolCall(last), stepCountIs(5)],
    ...(r.abort === true ? { abortSignal: controller.signal } : {}),
    runtimeContext: {
      ...(r.turn.caseId === undefined ? {} : { caseId: r.turn.caseId }),
      ...(r.turn.conversationId === undefined ? {} : { conversationId: r.turn.conversationId })
    },
    telemetry: {
      functionId: r.turn.surface,
      includeRuntimeContext: { caseId: true, conversationId: true },
      ...(r.producer === "ai-sdk-7 (LegacyOpenTelemetry)" ? { integrations: [new LegacyOpenTelemetry()] } : {})
    }
  }
  if (!r.stream) {
    const result = await generateText(settings)
    return { content: result.content, messages: result.response.messages }
  }
  const result = streamText(settings)
  await consume(result.fullStream)
  if (r.abort === true) return { content: [], messages: [] }
  return { content: await result.content, messages: (await result.response).messages }
}

/**
 * Streams the turn with `streamText`: every tool call in one step, then the answer, the stream consumed
 * as an application streams it to its client. With `abortMidAnswer` the caller's `abortSignal` aborts
 * it once the first words of the answer have arrived, as a request's abort does (`abortSignal:
 * request.signal`): the tools (when the turn has any) have run, the answer is cut off. Returns the
 * spans as one OTLP JSON document.
 */
export const traceStreamedTurn = (
  producer: AiSdkProducer,
  turn: ScriptedTurn,
  options: { readonly abortMidAnswer?: boolean } = {}
): Promise<string> =>
  traced(`${producer} streamed`, async () => {
    const [toolStep, answerStep] = modelSteps(turn)
    const steps = turn.calls.length === 0 ? [answerStep!] : [toolStep!, answerStep!]
    await runAiSdk({ producer, turn, steps, stream: true, abort: options.abortMidAnswer ?? false })
  })

/** The scripted approval turn: it reads the config and applies the change; applying needs approval. */
export const approvalTurn = (): ScriptedTurn => ({
  surface: "ops-agent",
  question: "Scale search-api to 4 replicas.",
  calls: [
    { tool: "read_config", input: { service: "search-api" }, result: { path: "deploy/search-api.yaml", replicas: 2 } },
    { tool: "apply_change", input: { service: "search-api", replicas: "4" }, result: { applied: true, replicas: 4 } }
  ],
  answer: "search-api now runs 4 replicas."
})

/** The answer after a denied change. */
export const deniedAnswer = "I did not scale search-api: the change was not approved."

/** The traces of an approval flow, each one OTLP JSON document. */
export interface ApprovalTraces {
  /** The call in which the model called the tools. */
  readonly asked: string
  /** The call that continued after a person answered, with the first call's messages and the answer. */
  readonly continued?: string
  /** The approval id the SDK gave the request (for a call that waited for a person). */
  readonly approvalId?: string
}

/**
 * Runs the approval turn: the model calls every tool in one step, and the last tool needs approval.
 * An automatic decision (`toolApproval: {tool: "approved" | "denied"}`) is made in the call; a person's
 * answer is sent as the AI SDK's docs show — the first call's response messages and a
 * `tool-approval-response` in a tool message — in a second call, traced on its own.
 */
export const traceApprovalTurn = async (
  producer: AiSdkProducer,
  decision: ApprovalDecision,
  options: {
    readonly config?: ApprovalConfig
    readonly stream?: boolean
    readonly changeFails?: string
    /** The conversation both calls are in, as the app tells its telemetry. */
    readonly conversationId?: string
  } = {}
): Promise<ApprovalTraces> => {
  const scripted = {
    ...approvalTurn(),
    ...(options.conversationId === undefined ? {} : { conversationId: options.conversationId })
  }
  const [read, change] = scripted.calls
  // A change that fails throws `changeFails` once it is approved and runs.
  const turn = options.changeFails === undefined
    ? scripted
    : { ...scripted, calls: [read!, { ...change!, error: options.changeFails }] }
  const stream = options.stream ?? false
  const gated = turn.calls.at(-1)!.tool
  const automatic = decision === "auto-approved" || decision === "auto-denied"
  const asks = automatic
    ? { toolApproval: { [gated]: decision === "auto-approved" ? "approved" as const : "denied" as const } }
    : options.config === "toolApproval"
    ? { toolApproval: { [gated]: "user-approval" as const } }
    : options.config === "withoutExecute"
    ? { withoutExecute: [gated] }
    : { needsApproval: [gated] }
  if (options.config === "withoutExecute" && decision !== "pending") {
    throw new Error("a tool without execute is only left waiting")
  }
  const answer = decision.endsWith("denied") ? deniedAnswer : turn.answer ?? ""
  const toolStep = callStep(turn.calls)
  let first: AiSdkResult = { content: [], messages: [] }
  const asked = await traced(`${producer} approval`, async () => {
    const steps = automatic ? [toolStep, textStep(answer)] : [toolStep]
    first = await runAiSdk({ producer, turn, steps, stream, ...asks })
  })
  const approvalId = first.content.find((part) => part.type === "tool-approval-request")?.approvalId
  if (decision !== "approved" && decision !== "denied") {
    return { asked, ...(approvalId === undefined ? {} : { approvalId }) }
  }
  if (approvalId === undefined) throw new Error(`${producer}: the call asked for no approval`)
  const messages = [
    { role: "user", content: turn.question },
    ...first.messages,
    { role: "tool", content: [{ type: "tool-approval-response", approvalId, approved: decision === "approved" }] }
  ]
  const continued = await traced(`${producer} approval answered`, async () => {
    await runAiSdk({ producer, turn, steps: [textStep(answer)], messages, stream, ...asks })
  })
  return { asked, continued, approvalId }
}

/** The scripted turn of a denial and a wait: the model applies the change, then proposes it. */
export const deniedThenProposedTurn = (): ScriptedTurn => ({
  surface: "ops-agent",
  question: "Scale search-api to 4 replicas.",
  calls: [
    { tool: "apply_change", input: { service: "search-api", replicas: "4" }, result: { applied: true, replicas: 4 } },
    { tool: "propose_change", input: { service: "search-api" }, result: { id: "chg_42", status: "pending" } }
  ]
})

/**
 * Runs the denial-and-wait turn with the AI SDK 7's `toolApproval: {apply_change: "denied",
 * propose_change: "user-approval"}`: in its first step the model applies the change, which the call
 * denies; in its second it proposes the change, which waits for a person.
 */
export const traceDeniedThenProposed = (producer: Exclude<AiSdkProducer, "ai-sdk-6">): Promise<string> => {
  const turn = deniedThenProposedTurn()
  const [apply, propose] = turn.calls
  return traced(`${producer} denied, then proposed`, async () => {
    await runAiSdk({
      producer,
      turn,
      steps: [callStep([apply!]), callStep([propose!], 2)],
      stream: false,
      toolApproval: { [apply!.tool]: "denied", [propose!.tool]: "user-approval" }
    })
  })
}

/**
 * The refund question answered with the provider's own search (a provider tool the provider runs, as
 * OpenAI's web search runs), in one response that finishes with `stop`: the application runs no tool.
 */
export const traceProviderSearchTurn = (producer: AiSdkProducer): Promise<string> => {
  const turn = { ...refundTurn(), calls: refundTurn().calls.slice(0, 1) }
  return traced(`${producer} provider search`, async () => {
    const search = turn.calls[0]!
    await runAiSdk({
      producer,
      turn,
      steps: [providerRanStep(search, turn.answer ?? "")],
      stream: false,
      providerTools: [search.tool]
    })
  })
}
