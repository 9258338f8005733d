/**
 * The `ai-sdk` reader over the AI SDK's own UI message stream: every scenario asked of a real `useChat`
 * chat route (v6 and v7) over loopback reads to its exact turn and grades to the golden set's verdicts;
 * the rules the scenarios do not reach are read from streams the library itself produces.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import {
  createUIMessageStream,
  createUIMessageStreamResponse,
  DefaultChatTransport,
  isStepCount,
  parseJsonEventStream,
  readUIMessageStream,
  streamText,
  tool,
  toUIMessageStream,
  type UIMessage,
  type UIMessageChunk,
  uiMessageChunkSchema
} from "ai"
import {
  DefaultChatTransport as DefaultChatTransport6,
  parseJsonEventStream as parseJsonEventStream6,
  stepCountIs as stepCountIs6,
  streamText as streamText6,
  tool as tool6,
  uiMessageChunkSchema as uiMessageChunkSchema6
} from "ai-v6"
import { MockLanguageModelV3 } from "ai-v6/test"
import { convertArrayToReadableStream, MockLanguageModelV4, simulateReadableStream } from "ai/test"
import { Either, Schema } from "effect"
import { randomUUID } from "node:crypto"
import { readFileSync } from "node:fs"
import { z } from "zod"
import { resolveEvidence } from "../../../src/Evidence/Rules.js"
import { grade } from "../../../src/Graders/index.js"
import {
  aiSdkRequestBody,
  aiSdkTurnId,
  eventStreamChunks,
  readAiSdkStream,
  uiMessageStreamHeader,
  uiMessageStreamVersion
} from "../../../src/Protocols/AiSdk/Client.js"
import type { ReadContext } from "../../../src/Protocols/Protocol.js"
import { toolErrorText } from "../../../src/Protocols/Reading.js"
import { CasesFile, questionCases } from "../../../src/Schema/Case.js"
import { fillRoute } from "../../../src/Schema/Protocol.js"
import { Catalog } from "../../../src/Schema/Surface.js"
import type { Turn } from "../../../src/Schema/Trace.js"
import { type AiSdkApp, answerMessageId, startAiSdkApp } from "../../support/apps/aiSdkApp.js"
import { scenarios } from "../../support/scenarios.js"

const fixture = (name: string): unknown =>
  JSON.parse(readFileSync(new URL(`../../fixtures/protocols/${name}`, import.meta.url), "utf8"))
const catalog = Schema.decodeUnknownSync(Catalog)(fixture("surfaces-ai-sdk.json"))
const cases = questionCases(Schema.decodeUnknownSync(CasesFile)(fixture("golden-cases.json")).cases)
const surface = catalog.surfaces["support"]!

const context = (conversationId: string): ReadContext => ({
  surface: "support",
  conversationId,
  gatedTools: surface.gatedTools ?? [],
  evidence: resolveEvidence(surface)
})

const read = (chunks: ReadonlyArray<unknown>, chatId: string): Turn =>
  Either.getOrThrow(readAiSdkStream(chunks, context(chatId)))
const reason = (chunks: ReadonlyArray<unknown>): string =>
  Either.getOrThrow(Either.flip(readAiSdkStream(chunks, context("chat"))))
const chunksOf = (text: string): ReadonlyArray<unknown> => Either.getOrThrow(eventStreamChunks(text))

/** What the library's own client parser makes of a stream's text: every chunk checked by its chunk schema. */
const libraryParse = async (version: 6 | 7, text: string) => {
  const stream = new Response(text).body!
  const parsed = version === 7
    ? parseJsonEventStream({ stream, schema: uiMessageChunkSchema })
    : parseJsonEventStream6({ stream, schema: uiMessageChunkSchema6 })
  const results: Array<{ readonly success: boolean; readonly value?: unknown }> = []
  for await (const result of parsed) results.push(result)
  return results
}

interface Asked {
  readonly response: Response
  readonly text: string
  readonly chunks: ReadonlyArray<unknown>
}

/** Asks a question in a new chat, with the body the suite sends. */
const ask = async (
  app: AiSdkApp,
  question: string,
  chatId: string,
  headers: Record<string, string> = {}
): Promise<Asked> => {
  const response = await fetch(new URL(surface.endpoint!, app.url), {
    method: "POST",
    headers: { "content-type": "application/json", ...headers },
    body: JSON.stringify(aiSdkRequestBody(question, { conversationId: chatId, messageId: `${chatId}-question` }))
  })
  const text = await response.text()
  return { response, text, chunks: response.ok ? chunksOf(text) : [] }
}

const refundDocuments = [
  { pageContent: "The page at /kb/refunds.", metadata: { source: "/kb/refunds" } },
  { pageContent: "The page at /kb/billing.", metadata: { source: "/kb/billing" } }
]

const shippingAnswer = "Orders ship within 2 days, as [Shipping](/kb/shipping-times) and [Delivery](/kb/delivery) say."

/** The exact turn each scenario reads to, in a chat; `approvalId` is the one the library made up. */
const expectedTurns = (version: 6 | 7, chatId: string, approvalId: string | undefined): Record<string, Turn> => {
  const turn = (
    answer: string,
    trace: Omit<Turn["trace"], "turnId" | "surface" | "proposal"> & Partial<Turn["trace"]>
  ): Turn => ({
    answer,
    trace: {
      turnId: version === 7 ? answerMessageId(chatId) : `${chatId}:1`,
      surface: "support",
      proposal: null,
      ...trace
    }
  })
  return {
    "How long do customers have to ask for a refund?": turn(
      "Customers have 30 days to ask for a refund; see [Refunds](/kb/refunds).",
      {
        outcome: "answered",
        citations: [{ path: "/kb/refunds", match: "path" }],
        toolExecutions: [{ tool: "search_kb", input: { query: "refund window" }, output: refundDocuments }]
      }
    ),
    "Where is order 42?": turn("I could not look up order 42 right now; please try again later.", {
      outcome: "answered",
      citations: [],
      // v6 sends the library's generic error text unless the app says otherwise; v7 sends the error's own.
      toolExecutions: [{
        tool: "lookup_order",
        input: { orderId: "42" },
        error: version === 7 ? "order service unavailable" : "An error occurred."
      }]
    }),
    "Please refund order 42.": turn("", {
      outcome: "awaiting-approval",
      citations: [],
      toolExecutions: [{
        tool: "lookup_order",
        input: { orderId: "42" },
        output: { orderId: "42", status: "delivered", total: 120 }
      }],
      proposal: {
        id: approvalId ?? "",
        summary: "issue_refund",
        actions: [{ tool: "issue_refund", input: { orderId: "42" } }]
      }
    }),
    "How long does shipping take?": turn(shippingAnswer, {
      outcome: "answered",
      citations: [{ path: "/kb/shipping-times", match: "path" }, { path: "/kb/delivery", match: "unsurfaced" }],
      toolExecutions: [{
        tool: "search_kb",
        input: { query: "shipping times" },
        output: [{ pageContent: "The page at /kb/shipping-times.", metadata: { source: "/kb/shipping-times" } }]
      }]
    }),
    "Hello!": turn("Hello! How can I help with your order?", {
      outcome: "answered",
      citations: [],
      toolExecutions: []
    }),
    "Summarise my last invoice.": turn("", {
      outcome: "error",
      citations: [],
      toolExecutions: [{
        tool: "search_kb",
        input: { query: "invoice" },
        output: [{ pageContent: "The page at /kb/invoices.", metadata: { source: "/kb/invoices" } }]
      }]
    })
  }
}

/** The approval id a stream's `tool-approval-request` carries (the library makes one up per request). */
const approvalIdIn = (chunks: ReadonlyArray<unknown>): string | undefined =>
  chunks.flatMap((c) => {
    const chunk = c as { type?: unknown; approvalId?: unknown }
    return chunk.type === "tool-approval-request" && typeof chunk.approvalId === "string" ? [chunk.approvalId] : []
  })[0]

for (const version of [6, 7] as const) {
  describe(`a useChat route on the AI SDK ${version}`, () => {
    let app: AiSdkApp
    beforeAll(async () => {
      app = await startAiSdkApp({ version })
    })
    afterAll(() => app.close())

    for (const scenario of scenarios) {
      it(`reads the exact turn of "${scenario.question}"`, async () => {
        const chatId = randomUUID()
        const { chunks, response, text } = await ask(app, scenario.question, chatId)
        expect(response.status).toBe(200)
        expect(response.headers.get(uiMessageStreamHeader)).toBe(uiMessageStreamVersion)
        expect(text.endsWith("data: [DONE]\n\n")).toBe(true)
        // The library's own client parser reads the same chunks, and its chunk schema accepts each.
        const parsed = await libraryParse(version, text)
        expect(parsed.every((r) => r.success)).toBe(true)
        expect(parsed.map((r) => r.value)).toEqual(chunks)
        expect(read(chunks, chatId)).toEqual(expectedTurns(version, chatId, approvalIdIn(chunks))[scenario.question])
      })
    }

    it("the waiting approval's id is the library's, and the waiting call is no tool execution", async () => {
      const { chunks } = await ask(app, "Please refund order 42.", randomUUID())
      expect(approvalIdIn(chunks)).toMatch(/^aitxt-/)
      expect(
        chunks.filter((c) => (c as { toolName?: unknown }).toolName === "issue_refund").map((c) =>
          (c as { type: string }).type
        )
      )
        .toEqual(["tool-input-start", "tool-input-available"])
    })

    it("grades the golden set to its verdicts", async () => {
      const failing: Record<string, ReadonlyArray<string>> = {}
      for (const testCase of cases) {
        const chatId = randomUUID()
        const turn = read((await ask(app, testCase.question, chatId)).chunks, chatId)
        const result = grade(testCase, turn, surface)
        failing[testCase.id] = result.expectations.filter((e) => !e.passed).map((e) => `${e.kind}: ${e.fact ?? ""}`)
        expect(result.passed).toBe(failing[testCase.id]!.length === 0)
      }
      expect(failing).toEqual({
        "support.refund-window-cites-kb": [],
        "support.order-lookup-errors": [
          `calls-tool: lookup_order errored: ${version === 7 ? "order service unavailable" : "An error occurred."}`
        ],
        "support.refund-waits-for-approval": [],
        "support.shipping-cites-only-surfaced": ["cites-only-surfaced: unsurfaced: /kb/delivery"],
        "support.greeting-calls-nothing": [],
        "support.invoice-failure-is-an-error": ["outcome: outcome: error (expected answered)"]
      })
    })

    it("the body is the one useChat's transport sends, and the library's client reads the same turn", async () => {
      const chatId = randomUUID()
      const question = "How long do customers have to ask for a refund?"
      const message = {
        id: `${chatId}-question`,
        role: "user" as const,
        parts: [{ type: "text" as const, text: question }]
      }
      const api = new URL(surface.endpoint!, app.url).href
      const options = {
        chatId,
        messages: [message],
        trigger: "submit-message" as const,
        messageId: undefined,
        abortSignal: undefined
      }
      const stream = version === 7
        ? await new DefaultChatTransport({ api }).sendMessages(options)
        : await new DefaultChatTransport6({ api }).sendMessages(options)
      const chunks: Array<unknown> = []
      for await (const chunk of stream) chunks.push(chunk)
      const sent = app.requests.at(-1)!
      expect(JSON.parse(sent.body)).toEqual(
        aiSdkRequestBody(question, { conversationId: chatId, messageId: message.id })
      )
      expect(read(chunks, chatId)).toEqual(expectedTurns(version, chatId, undefined)[question])
    })

    it("keeps each chat until the catalog's delete route removes it", async () => {
      const chatId = randomUUID()
      await ask(app, "Hello!", chatId)
      expect(app.chats.has(chatId)).toBe(true)
      const route = new URL(fillRoute(surface.routes!.delete!, { conversationId: chatId }), app.url)
      expect((await fetch(route, { method: "DELETE" })).status).toBe(200)
      expect(app.chats.has(chatId)).toBe(false)
      expect((await fetch(route, { method: "DELETE" })).status).toBe(404)
    })

    it("answers a question it has no scenario for with 400", async () => {
      const chatId = randomUUID()
      const { response } = await ask(app, "What is the meaning of life?", chatId)
      expect(response.status).toBe(400)
      expect(app.chats.has(chatId)).toBe(false)
    })
  })
}

describe("a useChat route behind a header", () => {
  it("refuses requests without the header's value", async () => {
    const app = await startAiSdkApp({ version: 7, auth: { header: "x-api-key", value: "secret" } })
    try {
      expect((await ask(app, "Hello!", randomUUID())).response.status).toBe(401)
      expect((await ask(app, "Hello!", randomUUID(), { "x-api-key": "wrong" })).response.status).toBe(401)
      const { response } = await ask(app, "Hello!", randomUUID(), { "x-api-key": "secret" })
      expect(response.status).toBe(200)
      expect(app.requests.map((r) => r.headers["x-api-key"])).toEqual([undefined, "wrong", "secret"])
    } finally {
      await app.close()
    }
  })
})

// ---------------------------------------------------------------------------------------------------
// Streams the library produces for what the scenarios do not reach: the mock model streams the given
// parts, one list per step, through `streamText` and the library's UI message stream response.

const usage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 }
}

type Source =
  | {
    readonly type: "source"
    readonly sourceType: "url"
    readonly id: string
    readonly url: string
    readonly title?: string
  }
  | {
    readonly type: "source"
    readonly sourceType: "document"
    readonly id: string
    readonly mediaType: string
    readonly title: string
  }

/** The model stream parts these tests use, as both versions' model interfaces define them. */
type Part =
  | Source
  | { readonly type: "tool-call"; readonly toolCallId: string; readonly toolName: string; readonly input: string }
  | { readonly type: "text-start"; readonly id: string }
  | { readonly type: "text-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "error"; readonly error: unknown }
  | {
    readonly type: "text-end"
    readonly id: string
    readonly citations?: Array<{ readonly source: Source; readonly citedText?: string }>
  }
  | {
    readonly type: "finish"
    readonly finishReason: { readonly unified: "stop" | "tool-calls" | "error"; readonly raw: string }
    readonly usage: typeof usage
  }

const call = (toolCallId: string, toolName: string, input: unknown): Part => ({
  type: "tool-call",
  toolCallId,
  toolName,
  input: JSON.stringify(input)
})
const calls = (
  ...parts: ReadonlyArray<Part>
): ReadonlyArray<Part> => [...parts, {
  type: "finish",
  finishReason: { unified: "tool-calls", raw: "tool_calls" },
  usage
}]
const text = (answer: string, citations?: Extract<Part, { type: "text-end" }>["citations"]): ReadonlyArray<Part> => [
  { type: "text-start", id: "t" },
  { type: "text-delta", id: "t", delta: answer },
  { type: "text-end", id: "t", ...(citations === undefined ? {} : { citations }) },
  { type: "finish", finishReason: { unified: "stop", raw: "stop" }, usage }
]

const orderSchema = z.object({ orderId: z.string() })

interface Drive {
  /** The refund tool needs a person's approval. */
  readonly refundNeedsApproval?: true
  /** v7's app-wide approval policy, decided in the stream. */
  readonly toolApproval?: {
    readonly issue_refund?: "approved" | "denied"
    readonly lookup_order?: "approved" | "denied"
  }
  /** The search streams a preliminary result, then throws. */
  readonly searchBreaks?: true
  readonly sendSources?: true
}

const search = (drive: Drive) =>
  drive.searchBreaks === true
    ? async function*() {
      yield [{ pageContent: "A draft.", metadata: { source: "/kb/draft" } }]
      throw new Error("index gone")
    }
    : async () => refundDocuments
const lookup = async ({ orderId }: { orderId: string }) => ({ orderId, status: "delivered" })
const refund = async () => ({ refunded: true })
const tools7 = (drive: Drive) => ({
  search_kb: tool({ inputSchema: z.object({ query: z.string() }), execute: search(drive) }),
  lookup_order: tool({ inputSchema: orderSchema, execute: lookup }),
  issue_refund: tool({ inputSchema: orderSchema, needsApproval: drive.refundNeedsApproval === true, execute: refund })
})
const tools6 = (drive: Drive) => ({
  search_kb: tool6({ inputSchema: z.object({ query: z.string() }), execute: search(drive) }),
  lookup_order: tool6({ inputSchema: orderSchema, execute: lookup }),
  issue_refund: tool6({ inputSchema: orderSchema, needsApproval: drive.refundNeedsApproval === true, execute: refund })
})

/** The library's UI message stream for a scripted model, as the chunks of its response's event stream. */
const libraryStream = async (version: 6 | 7, steps: ReadonlyArray<ReadonlyArray<Part>>, drive: Drive = {}) => {
  const modelSteps = steps.map((parts) => ({
    stream: convertArrayToReadableStream([{ type: "stream-start" as const, warnings: [] }, ...parts])
  }))
  const sources = drive.sendSources ? { sendSources: true } : {}
  if (version === 7) {
    const tools = tools7(drive)
    const result = streamText({
      model: new MockLanguageModelV4({ doStream: modelSteps }),
      prompt: "the question",
      tools,
      stopWhen: isStepCount(steps.length),
      onError: () => {},
      ...(drive.toolApproval === undefined ? {} : { toolApproval: drive.toolApproval })
    })
    const stream = toUIMessageStream({ stream: result.stream, tools, ...sources })
    return chunksOf(await createUIMessageStreamResponse({ stream }).text())
  }
  const result = streamText6({
    model: new MockLanguageModelV3({ doStream: modelSteps }),
    prompt: "the question",
    tools: tools6(drive),
    stopWhen: stepCountIs6(steps.length),
    onError: () => {}
  })
  return chunksOf(await result.toUIMessageStreamResponse(sources).text())
}

const chunkOf = (chunks: ReadonlyArray<unknown>, type: string): Record<string, unknown> =>
  chunks.find((c) => (c as { type?: unknown }).type === type) as Record<string, unknown>

describe("reading what the scenarios do not reach", () => {
  for (const version of [6, 7] as const) {
    it(`v${version}: a call whose input the tool refuses is an attempt that errored`, async () => {
      const chunks = await libraryStream(version, [calls(call("c1", "lookup_order", { orderId: 42 })), text("Sorry.")])
      const errorText = chunkOf(chunks, "tool-input-error")["errorText"]
      expect(typeof errorText).toBe("string")
      const turn = read(chunks, "chat")
      expect(turn.trace.toolExecutions).toEqual([
        { tool: "lookup_order", input: { orderId: 42 }, error: toolErrorText(errorText as string) }
      ])
      const neverLookup = {
        id: "c",
        surface: "support",
        question: "q",
        guards: "g",
        expect: [{ kind: "never-calls" as const, tool: "lookup_order" }]
      }
      expect(grade(neverLookup, turn, surface).expectations)
        .toEqual([{ kind: "never-calls", passed: false, fact: "called: lookup_order" }])
    })

    it(`v${version}: a gated tool's call whose input was refused is an attempt that errored, which never-calls counts`, async () => {
      const chunks = await libraryStream(version, [calls(call("c1", "issue_refund", { orderId: 42 })), text("Sorry.")])
      expect(chunkOf(chunks, "tool-input-error")["toolName"]).toBe("issue_refund")
      const executions = read(chunks, "chat").trace.toolExecutions
      expect(executions.map((e) => [e.tool, typeof e.error === "string" && e.error.length > 0])).toEqual([[
        "issue_refund",
        true
      ]])
    })

    it(`v${version}: a call waiting for approval is no execution, though the surface does not gate its tool`, async () => {
      const chunks = await libraryStream(version, [calls(call("c1", "issue_refund", { orderId: "42" }))], {
        refundNeedsApproval: true
      })
      const { trace } = Either.getOrThrow(readAiSdkStream(chunks, { ...context("chat"), gatedTools: [] }))
      expect(trace.outcome).toBe("awaiting-approval")
      expect(trace.proposal?.summary).toBe("issue_refund")
      expect(trace.toolExecutions).toEqual([])
    })

    it(`v${version}: every call waiting for approval is an action of the one proposal`, async () => {
      const chunks = await libraryStream(version, [
        calls(call("c1", "issue_refund", { orderId: "42" }), call("c2", "issue_refund", { orderId: "43" }))
      ], { refundNeedsApproval: true })
      const approvals = chunks.filter((c) => (c as { type?: unknown }).type === "tool-approval-request") as Array<
        { approvalId: string }
      >
      expect(approvals).toHaveLength(2)
      const { trace } = read(chunks, "chat")
      expect(trace.outcome).toBe("awaiting-approval")
      expect(trace.toolExecutions).toEqual([])
      expect(trace.proposal).toEqual({
        id: approvals[0]!.approvalId,
        summary: "issue_refund, issue_refund",
        actions: [{ tool: "issue_refund", input: { orderId: "42" } }, {
          tool: "issue_refund",
          input: { orderId: "43" }
        }]
      })
    })

    it(`v${version}: sources the stream sends are surfaced`, async () => {
      const chunks = await libraryStream(version, [[
        { type: "source", sourceType: "url", id: "s1", url: "https://example.com/kb/a", title: "A" },
        { type: "source", sourceType: "document", id: "doc-7", mediaType: "text/plain", title: "Doc" },
        ...text("See [A](https://example.com/kb/a), [Doc](doc-7) and [B](https://example.com/kb/b).")
      ]], { sendSources: true })
      expect(chunkOf(chunks, "source-url")["url"]).toBe("https://example.com/kb/a")
      expect(chunkOf(chunks, "source-document")["sourceId"]).toBe("doc-7")
      expect(read(chunks, "chat").trace.citations).toEqual([
        { path: "https://example.com/kb/a", match: "path" },
        { path: "doc-7", match: "path" },
        { path: "https://example.com/kb/b", match: "unsurfaced" }
      ])
    })

    it(`v${version}: a model that finishes in error ends the turn in error, with no error chunk`, async () => {
      const chunks = await libraryStream(version, [[
        { type: "text-start", id: "t" },
        { type: "text-delta", id: "t", delta: "Part" },
        { type: "text-end", id: "t" },
        { type: "finish", finishReason: { unified: "error", raw: "server_error" }, usage }
      ]])
      expect(chunks.some((c) => (c as { type?: unknown }).type === "error")).toBe(false)
      expect(chunkOf(chunks, "finish")).toEqual({ type: "finish", finishReason: "error" })
      const turn = read(chunks, "chat")
      expect(turn.answer).toBe("Part")
      expect(turn.trace.outcome).toBe("error")
    })

    it(
      `v${version}: a stream error ends the turn in error, though a call still waits; an output before a tool's error surfaces nothing`,
      async () => {
        const chunks = await libraryStream(version, [[
          { type: "text-start", id: "t" },
          { type: "text-delta", id: "t", delta: "See [Draft](/kb/draft)." },
          { type: "text-end", id: "t" },
          call("c1", "issue_refund", { orderId: "42" }),
          call("c2", "search_kb", { query: "drafts" }),
          { type: "error", error: new Error("connection reset") },
          ...calls()
        ]], { refundNeedsApproval: true, searchBreaks: true })
        expect(
          chunks.filter((c) => (c as { toolCallId?: unknown }).toolCallId === "c2").map((c) =>
            (c as { type: string }).type
          )
        )
          .toEqual(["tool-input-available", "tool-output-available", "tool-output-error"])
        expect(chunkOf(chunks, "tool-output-available")["preliminary"]).toBe(true)
        const { trace } = read(chunks, "chat")
        expect(trace.outcome).toBe("error")
        expect(trace.proposal).toEqual({
          id: chunkOf(chunks, "tool-approval-request")["approvalId"],
          summary: "issue_refund",
          actions: [{ tool: "issue_refund", input: { orderId: "42" } }]
        })
        expect(trace.toolExecutions).toEqual([{
          tool: "search_kb",
          input: { query: "drafts" },
          error: version === 7 ? "index gone" : "An error occurred."
        }])
        expect(trace.citations).toEqual([{ path: "/kb/draft", match: "unsurfaced" }])
      }
    )

    it(`v${version}: an aborted stream is a turn that ended in error, with the text sent before it`, async () => {
      const abort = new AbortController()
      const stream = simulateReadableStream({
        chunks: [
          { type: "stream-start" as const, warnings: [] },
          { type: "text-start" as const, id: "t" },
          { type: "text-delta" as const, id: "t", delta: "Hel" },
          { type: "text-delta" as const, id: "t", delta: "lo" },
          { type: "text-end" as const, id: "t" },
          { type: "finish" as const, finishReason: { unified: "stop" as const, raw: "stop" }, usage }
        ],
        initialDelayInMs: null,
        chunkDelayInMs: 5
      })
      // The person stops the answer as its first words arrive.
      const onChunk = ({ chunk }: { chunk: { type: string } }) => {
        if (chunk.type === "text-delta") abort.abort()
      }
      const text = version === 7
        ? await createUIMessageStreamResponse({
          stream: toUIMessageStream({
            stream: streamText({
              model: new MockLanguageModelV4({ doStream: { stream } }),
              prompt: "q",
              abortSignal: abort.signal,
              onChunk
            }).stream
          })
        }).text()
        : await streamText6({
          model: new MockLanguageModelV3({ doStream: { stream } }),
          prompt: "q",
          abortSignal: abort.signal,
          onChunk
        })
          .toUIMessageStreamResponse().text()
      const chunks = chunksOf(text)
      expect(chunks.at(-1)).toMatchObject({ type: "abort" })
      expect(chunks.some((c) => (c as { type?: unknown }).type === "finish")).toBe(false)
      const turn = read(chunks, "chat")
      expect(turn.answer).toBe("Hel")
      expect(turn.trace.outcome).toBe("error")
    })
  }

  it("v7: an approval the app decides in the stream leaves no proposal; the approved call ran", async () => {
    const chunks = await libraryStream(7, [calls(call("c1", "issue_refund", { orderId: "42" })), text("Refunded.")], {
      toolApproval: { issue_refund: "approved" }
    })
    expect(chunkOf(chunks, "tool-approval-request")["isAutomatic"]).toBe(true)
    expect(chunkOf(chunks, "tool-approval-response")["approved"]).toBe(true)
    const { trace } = read(chunks, "chat")
    expect(trace.outcome).toBe("answered")
    expect(trace.proposal).toBeNull()
    expect(trace.toolExecutions).toEqual([{
      tool: "issue_refund",
      input: { orderId: "42" },
      output: { refunded: true }
    }])
  })

  it("v7: an approval request is answered by its automatic flag, its response or its call's output", async () => {
    const approved = await libraryStream(7, [calls(call("c1", "issue_refund", { orderId: "42" })), text("Refunded.")], {
      toolApproval: { issue_refund: "approved" }
    })
    // The library's stream with one way of answering kept at a time.
    const type = (c: unknown) => (c as { type?: unknown }).type
    const manual = (
      c: unknown
    ) => (type(c) === "tool-approval-request" ? { ...(c as object), isAutomatic: undefined } : c)
    const automaticOnly = approved.filter((c) =>
      type(c) !== "tool-approval-response" && type(c) !== "tool-output-available"
    )
    const responseOnly = approved.filter((c) => type(c) !== "tool-output-available").map(manual)
    const outputOnly = approved.filter((c) => type(c) !== "tool-approval-response").map(manual)
    const neither = approved.filter((c) => type(c) !== "tool-approval-response" && type(c) !== "tool-output-available")
      .map(manual)
    const outcomes = [automaticOnly, responseOnly, outputOnly, neither].map((chunks) => {
      const { trace } = read(chunks, "chat")
      return {
        outcome: trace.outcome,
        proposal: trace.proposal?.id ?? null,
        ran: trace.toolExecutions.map((e) => e.tool)
      }
    })
    const approvalId = chunkOf(approved, "tool-approval-request")["approvalId"]
    // Approved with no output on the wire, the call is an attempt: it may have run.
    expect(outcomes).toEqual([
      { outcome: "answered", proposal: null, ran: ["issue_refund"] },
      { outcome: "answered", proposal: null, ran: ["issue_refund"] },
      { outcome: "answered", proposal: null, ran: ["issue_refund"] },
      { outcome: "awaiting-approval", proposal: approvalId, ran: [] }
    ])
  })

  it("v7: a denied call did not run", async () => {
    const chunks = await libraryStream(7, [
      calls(call("c1", "issue_refund", { orderId: "42" }), call("c2", "lookup_order", { orderId: "42" })),
      text("I may not do that.")
    ], { toolApproval: { issue_refund: "denied", lookup_order: "denied" } })
    expect(chunks.filter((c) => (c as { type?: unknown }).type === "tool-output-denied")).toEqual([
      { type: "tool-output-denied", toolCallId: "c1" },
      { type: "tool-output-denied", toolCallId: "c2" }
    ])
    const { trace } = read(chunks, "chat")
    expect(trace.outcome).toBe("answered")
    expect(trace.proposal).toBeNull()
    expect(trace.toolExecutions).toEqual([])
  })

  it("v7: citations the text states come first, with their quotes, matched against what was surfaced", async () => {
    const chunks = await libraryStream(7, [[
      { type: "source", sourceType: "url", id: "s1", url: "https://example.com/kb/refunds" },
      ...text("30 days, see [Refunds](https://example.com/kb/refunds).", [
        {
          source: { type: "source", sourceType: "url", id: "s1", url: "https://example.com/kb/refunds" },
          citedText: "within 30 days"
        },
        {
          source: { type: "source", sourceType: "document", id: "terms-2023", mediaType: "text/plain", title: "Terms" }
        }
      ])
    ]], { sendSources: true })
    expect(chunkOf(chunks, "text-end")["citations"]).toHaveLength(2)
    expect(read(chunks, "chat").trace.citations).toEqual([
      { path: "https://example.com/kb/refunds", quote: "within 30 days", match: "path" },
      { path: "terms-2023", match: "unsurfaced" }
    ])
  })

  it("v7: a citation the text states with a blank source id is dropped", async () => {
    const chunks = await libraryStream(7, [[
      ...text("30 days.", [{
        source: { type: "source", sourceType: "document", id: "   ", mediaType: "text/plain", title: "Terms" }
      }])
    ]])
    expect(chunkOf(chunks, "text-end")["citations"]).toEqual([{ source: expect.objectContaining({ id: "   " }) }])
    expect(read(chunks, "chat").trace.citations).toEqual([])
  })

  it("v7: chunk types the reader does not read are ignored", async () => {
    const base = await libraryStream(7, [calls(call("c1", "lookup_order", { orderId: "42" })), text("Delivered.")])
    // An app that adds its own data parts and a reasoning model's thoughts to the same stream.
    const merged = createUIMessageStream({
      // The writer names the answer message itself.
      generateId: () => "answer-1",
      execute: ({ writer }) => {
        writer.write({ type: "data-order", id: "o1", data: { orderId: "42" } })
        writer.write({ type: "reasoning-start", id: "r" })
        writer.write({ type: "reasoning-delta", id: "r", delta: "The order is known." })
        writer.write({ type: "reasoning-end", id: "r" })
        writer.write({ type: "message-metadata", messageMetadata: { model: "mock" } })
        for (const chunk of base) writer.write(chunk as UIMessageChunk)
      }
    })
    const chunks = chunksOf(await createUIMessageStreamResponse({ stream: merged }).text())
    expect(chunks.map((c) => (c as { type: string }).type).slice(0, 5))
      .toEqual(["data-order", "reasoning-start", "reasoning-delta", "reasoning-end", "message-metadata"])
    const { answer, trace } = read(base, "chat")
    expect(read(chunks, "chat")).toEqual({ answer, trace: { ...trace, turnId: "answer-1" } })
  })

  for (const version of [6, 7] as const) {
    it(`v${version}: the stream that continues a turn after a person's decision is no turn of its own`, async () => {
      const app = await startAiSdkApp({ version })
      try {
        const chatId = randomUUID()
        const question = "Please refund order 42."
        const first = await ask(app, question, chatId)
        // What useChat sends after addToolApprovalResponse: the answer so far, its approval responded.
        let assistant: UIMessage | undefined
        const replay = new ReadableStream<UIMessageChunk>({
          start: (controller) => {
            for (const chunk of first.chunks) controller.enqueue(chunk as UIMessageChunk)
            controller.close()
          }
        })
        for await (const message of readUIMessageStream({ stream: replay })) assistant = message
        const responded = {
          ...assistant!,
          id: assistant!.id === "" ? `${chatId}-answer` : assistant!.id,
          parts: assistant!.parts.map((part) =>
            part.type === "tool-issue_refund" && part.state === "approval-requested"
              ? { ...part, state: "approval-responded" as const, approval: { ...part.approval, approved: true } }
              : part
          )
        }
        const user = { id: `${chatId}-question`, role: "user", parts: [{ type: "text", text: question }] }
        const response = await fetch(new URL(surface.endpoint!, app.url), {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify({ id: chatId, messages: [user, responded], trigger: "submit-message" })
        })
        const chunks = chunksOf(await response.text())
        expect(chunkOf(chunks, "tool-output-available"))
          .toEqual({ type: "tool-output-available", toolCallId: "call_2", output: { refunded: true } })
        expect(reason(chunks)).toBe(
          `chunk 2 (tool-output-available): tool call "call_2" was not started in this stream`
        )
      } finally {
        await app.close()
      }
    })
  }
})

describe("streams that are no turn", () => {
  let app: AiSdkApp
  let whole: ReadonlyArray<unknown>
  beforeAll(async () => {
    app = await startAiSdkApp({ version: 7 })
    whole = (await ask(app, "How long do customers have to ask for a refund?", randomUUID())).chunks
  })
  afterAll(() => app.close())

  it("a stream that broke off before its finish", () => {
    const cut = whole.slice(0, -1)
    expect(chunkOf(whole, "finish")).toEqual({ type: "finish", finishReason: "stop" })
    expect(reason(cut)).toBe(`the stream broke off after ${cut.length} chunks: no finish, error or abort chunk`)
    expect(reason([])).toBe("the stream broke off after 0 chunks: no finish, error or abort chunk")
    expect(reason([{ type: "start" }])).toBe("the stream broke off after 1 chunk: no finish, error or abort chunk")
  })

  it("a chunk of a type the reader reads with a field the library's schema refuses", async () => {
    const at = whole.findIndex((c) => (c as { type?: unknown }).type === "tool-input-available")
    const broken = whole.map((c, i) => (i === at ? { ...(c as object), toolName: 7 } : c))
    expect(reason(broken)).toBe(`chunk ${at + 1} (tool-input-available): toolName is not a string`)
    const sse = broken.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")
    expect((await libraryParse(7, sse)).map((r) => r.success)).toEqual(broken.map((_, i) => i !== at))

    const missing = whole.map((c, i) => (i === at ? { type: "tool-input-available", toolName: "search_kb" } : c))
    expect(reason(missing)).toBe(`chunk ${at + 1} (tool-input-available): toolCallId is missing`)
    const badCitation = [{ type: "text-end", id: "t", citations: [{ source: { url: "https://x" } }] }, {
      type: "finish"
    }]
    expect(reason(badCitation)).toBe("chunk 1 (text-end): citations[0] is not a citation with a source id or url")
  })

  it("a chunk that is not a UI message chunk", () => {
    expect(reason([{ type: "start" }, "text", { type: "finish" }])).toBe(
      "chunk 2 of the stream is not a UI message chunk (an object with a string type)"
    )
    expect(reason([{ kind: "start" }])).toBe(
      "chunk 1 of the stream is not a UI message chunk (an object with a string type)"
    )
  })

  it("a response to an approval the stream never asked for", () => {
    expect(reason([{ type: "tool-approval-response", approvalId: "a1", approved: true }, { type: "finish" }])).toBe(
      `chunk 1 (tool-approval-response): approval "a1" was not requested in this stream`
    )
  })

  it("a chunk type named after an object's own properties is just an unknown type", () => {
    expect(
      Either.isRight(readAiSdkStream([{ type: "constructor" }, { type: "toString" }, { type: "finish" }], context("c")))
    ).toBe(true)
  })
})

describe("the event stream", () => {
  it("gives one chunk per event up to [DONE], data lines joined, comments and other fields skipped", () => {
    const text = [
      ": keep-alive",
      "",
      "event: message",
      "data: {\"type\":",
      "data: \"start\"}",
      "",
      "data:{\"type\":\"finish\"}",
      "",
      "data: [DONE]",
      "",
      "data: {\"type\":\"after\"}",
      ""
    ].join("\r\n")
    expect(eventStreamChunks(text)).toEqual(Either.right([{ type: "start" }, { type: "finish" }]))
  })

  it("fails on an event that is not JSON", () => {
    expect(eventStreamChunks("data: {\"type\":\"start\"}\n\ndata: {oops\n\n")).toEqual(
      Either.left(`event 2 of the stream is not JSON: "{oops"`)
    )
  })
})

describe("the request", () => {
  const ids = { conversationId: "chat-1", messageId: "msg-1" }

  it("is the body useChat sends", () => {
    expect(aiSdkRequestBody("Hello!", ids)).toEqual({
      id: "chat-1",
      messages: [{ id: "msg-1", role: "user", parts: [{ type: "text", text: "Hello!" }] }],
      trigger: "submit-message"
    })
  })

  it("fills a template's placeholders wherever they are, leaving keys and other values alone", () => {
    const template = {
      threadId: "{conversationId}",
      input: [{ content: "{question}", id: "{messageId}", label: "Q: {question} ({conversationId})" }],
      "{question}": "key untouched",
      stream: true,
      n: 3,
      none: null,
      other: "{unknown}"
    }
    expect(aiSdkRequestBody("Where is order 42?", ids, template)).toEqual({
      threadId: "chat-1",
      input: [{ content: "Where is order 42?", id: "msg-1", label: "Q: Where is order 42? (chat-1)" }],
      "{question}": "key untouched",
      stream: true,
      n: 3,
      none: null,
      other: "{unknown}"
    })
  })

  it("puts the question in as text: never read again as a placeholder or a replacement pattern", () => {
    expect(aiSdkRequestBody("Is {conversationId} $& $1 ${x} safe?", ids, { q: "{question}", l: "<{question}>" }))
      .toEqual({
        q: "Is {conversationId} $& $1 ${x} safe?",
        l: "<Is {conversationId} $& $1 ${x} safe?>"
      })
  })

  it("names the turn by the answer's message id, else the chat's first turn", () => {
    expect(aiSdkTurnId("chat-1", "msg-9")).toBe("msg-9")
    expect(aiSdkTurnId("chat-1")).toBe("chat-1:1")
    expect(aiSdkTurnId("chat-1", "")).toBe("chat-1:1")
  })
})
