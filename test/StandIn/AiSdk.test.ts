/**
 * The stand-in over the AI SDK's UI message stream: every chunk it streams parses with the AI SDK's
 * own chunk schema (v7 and v6), the message the SDK's own reader builds from the stream is the
 * stand-in's turn, and the chat route takes the faults, the delete route and the sign-ins a live run
 * meets.
 */
import { describe, expect, it } from "@effect/vitest"
import { parseJsonEventStream, readUIMessageStream, type UIMessage, uiMessageChunkSchema } from "ai"
import * as v6 from "ai-v6"
import { Effect, Redacted } from "effect"
import { uiMessageChunks, uiMessageFrames } from "../../src/Protocols/AiSdk/Wire.js"
import { respondWithFlaws } from "../../src/StandIn/Flaws.js"
import { type StandIn, start } from "../../src/StandIn/Server.js"
import { fetchAt, withStandInProcess } from "../support/live.js"
import {
  expectedRead,
  failedTurn,
  gatedQuestion,
  post,
  readTurn,
  type SignIn,
  signIn,
  sseData,
  toolErrorQuestion,
  wireQuestions
} from "./wires.js"

const endpoints: Readonly<Record<string, string>> = { docs: "/api/ai/docs/ask", "ops-agent": "/api/ai/agent/ask" }

const chatRequest = (id: string, question: string) => ({
  id,
  messages: [{ id: `${id}-user`, role: "user", parts: [{ type: "text", text: question }] }],
  trigger: "submit-message"
})

const chat = (s: StandIn, surface: string, id: string, question: string, how?: SignIn) =>
  post(s, endpoints[surface]!, chatRequest(id, question), how)

const streamOf = (text: string) =>
  new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(new TextEncoder().encode(text))
      controller.close()
    }
  })

const drain = async <T>(stream: ReadableStream<T>): Promise<Array<T>> => {
  const reader = stream.getReader()
  const all: Array<T> = []
  for (let next = await reader.read(); !next.done; next = await reader.read()) all.push(next.value)
  return all
}

type Lib = { parseJsonEventStream: typeof parseJsonEventStream; uiMessageChunkSchema: typeof uiMessageChunkSchema }
const libraries: ReadonlyArray<readonly [string, Lib]> = [
  ["ai 7", { parseJsonEventStream, uiMessageChunkSchema }],
  ["ai 6", v6 as unknown as Lib]
]

/** The stream's chunks as the library's parser reads them; a chunk it rejects fails the test, naming it. */
const parseChunks = async (lib: Lib, text: string) => {
  const results = await drain(lib.parseJsonEventStream({ stream: streamOf(text), schema: lib.uiMessageChunkSchema }))
  return results.map((r) => {
    if (!r.success) throw new Error(`a chunk the AI SDK rejects: ${String(r.error)}`)
    return r.value
  })
}

/** The message the AI SDK's reader builds from the chunks, and the errors it reported. */
const readMessage = async (chunks: ReadonlyArray<unknown>, read: typeof readUIMessageStream = readUIMessageStream) => {
  const errors: Array<string> = []
  const stream = new ReadableStream({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk)
      controller.close()
    }
  })
  const snapshots = await drain(
    read({
      stream: stream as never,
      onError: (error) => errors.push(error instanceof Error ? error.message : String(error))
    }) as ReadableStream<UIMessage>
  )
  return { message: snapshots.at(-1), errors }
}

/** A tool part of a UI message, in any state. */
interface ToolPart {
  readonly type: string
  readonly state: string
  readonly input: unknown
  readonly output?: unknown
  readonly errorText?: string
  readonly approval?: { readonly id: string }
}

/** A text part of a UI message, with the citations AI SDK 7 states on it. */
interface TextPart {
  readonly text: string
  readonly citations?: ReadonlyArray<{ readonly source: { readonly url?: string }; readonly citedText?: string }>
}

/** The turn a client reads from the SDK's message: its text, tool parts, sources and the citations its text states. */
const turnFromMessage = (message: UIMessage | undefined, errors: ReadonlyArray<string>) => {
  const parts = message?.parts ?? []
  const executions = []
  const waiting: Array<{ id: string; tool: string; input: unknown }> = []
  for (const part of parts) {
    if (!part.type.startsWith("tool-")) continue
    const tool = part as unknown as ToolPart
    const name = tool.type.slice("tool-".length)
    if (tool.state === "output-available") executions.push({ tool: name, input: tool.input, output: tool.output })
    else if (tool.state === "output-error") {
      executions.push({ tool: name, input: tool.input, error: tool.errorText ?? "" })
    } else if (tool.state === "approval-requested") {
      waiting.push({ id: tool.approval?.id ?? "", tool: name, input: tool.input })
    }
  }
  const texts = parts.flatMap((p) => p.type === "text" ? [p as TextPart] : [])
  return readTurn({
    answer: texts.map((t) => t.text).join(""),
    outcome: errors.length > 0 ? "error" : waiting.length > 0 ? "awaiting-approval" : "answered",
    executions,
    proposal: waiting[0] === undefined
      ? null
      : { id: waiting[0].id, actions: waiting.map(({ input, tool }) => ({ tool, input })) },
    sources: parts.flatMap((p) => p.type === "source-url" ? [(p as { url: string }).url] : []),
    stated: texts.flatMap((t) =>
      (t.citations ?? []).map((c) => ({
        path: c.source.url ?? "",
        ...(c.citedText === undefined ? {} : { quote: c.citedText })
      }))
    )
  })
}

const questions = wireQuestions

describe("the stand-in over the AI SDK's UI message stream", () => {
  it("streams every golden question's turn, a tool error and each flaw as chunks the AI SDK parses and reads back as the turn", () =>
    withStandInProcess({ protocol: "ai-sdk", maxConversations: 100 }, async (s) => {
      for (const [i, q] of questions.entries()) {
        const chatId = `chat-${i}`
        const response = await chat(s, q.surface, chatId, q.question)
        expect(response.status, q.id).toBe(200)
        expect(response.headers.get("content-type")).toBe("text/event-stream")
        expect(response.headers.get("x-vercel-ai-ui-message-stream")).toBe("v1")
        const text = await response.text()
        expect(text.endsWith("data: [DONE]\n\n"), q.id).toBe(true)
        const turn = respondWithFlaws(q.surface, q.question)
        for (const [name, lib] of libraries) {
          const chunks = await parseChunks(lib, text)
          expect(chunks.length, `${q.id} (${name})`).toBe(sseData(text).length - 1)
        }
        const { errors, message } = await readMessage(await parseChunks(libraries[0]![1], text))
        expect(message?.id, q.id).toBe(s.conversations().find((c) => c.id === chatId)?.turnId)
        expect(turnFromMessage(message, errors), q.id).toEqual(expectedRead(turn, { quotes: true }))
        const older = await readMessage(await parseChunks(libraries[1]![1], text), v6.readUIMessageStream as never)
        expect(turnFromMessage(older.message, older.errors), `${q.id} (ai 6)`).toEqual(expectedRead(turn))
      }
      expect(s.stats().created).toBe(questions.length)
    }))

  it("stops a gated turn at a tool-approval-request for the gated call, named by the proposal's id", () =>
    withStandInProcess({ protocol: "ai-sdk" }, async (s) => {
      const turn = respondWithFlaws(gatedQuestion.surface, gatedQuestion.question)
      const text = await (await chat(s, gatedQuestion.surface, "gated", gatedQuestion.question)).text()
      const chunks = sseData(text).slice(0, -1).map((d) => JSON.parse(d) as Record<string, unknown>)
      const turnId = s.conversations()[0]!.turnId
      expect(turn.proposal?.id).toMatch(/^prop_[0-9a-f]{8}$/)
      expect(chunks.slice(-6)).toEqual([
        { type: "tool-input-start", toolCallId: `${turnId}-call-3`, toolName: "deploy" },
        {
          type: "tool-input-delta",
          toolCallId: `${turnId}-call-3`,
          inputTextDelta: JSON.stringify({
            service: "payments-api",
            environment: "production",
            release: "r2024.06.11.1"
          })
        },
        {
          type: "tool-input-available",
          toolCallId: `${turnId}-call-3`,
          toolName: "deploy",
          input: { service: "payments-api", environment: "production", release: "r2024.06.11.1" }
        },
        { type: "tool-approval-request", approvalId: turn.proposal!.id, toolCallId: `${turnId}-call-3` },
        { type: "finish-step" },
        { type: "finish", finishReason: "tool-calls" }
      ])
      // The proposal itself is the propose_change call before it, which ran.
      expect(chunks.filter((c) => c.type === "tool-output-available").map((c) => c.toolCallId))
        .toEqual([`${turnId}-call-1`, `${turnId}-call-2`])
    }))

  it("sends a failed tool call as tool-output-error with the error's text", () =>
    withStandInProcess({ protocol: "ai-sdk" }, async (s) => {
      const text = await (await chat(s, toolErrorQuestion.surface, "err", toolErrorQuestion.question)).text()
      const chunks = sseData(text).slice(0, -1).map((d) => JSON.parse(d) as Record<string, unknown>)
      const turnId = s.conversations()[0]!.turnId
      expect(chunks.filter((c) => String(c.type).startsWith("tool-output"))).toEqual([
        { type: "tool-output-error", toolCallId: `${turnId}-call-1`, errorText: "no catalog entry for ledger-api" }
      ])
    }))

  it("ends a turn that failed with an error chunk and no finish, as streamText does, and the SDK reports it", async () => {
    const chunks = uiMessageChunks(failedTurn, "turn_1")
    expect(chunks.map((c) => c.type)).toEqual([
      "start",
      "start-step",
      "tool-input-start",
      "tool-input-delta",
      "tool-input-available",
      "tool-output-available",
      "finish-step",
      "error"
    ])
    const parsed = await parseChunks(libraries[0]![1], uiMessageFrames(failedTurn, "turn_1").join(""))
    const { errors, message } = await readMessage(parsed)
    expect(errors).toEqual(["the model provider is overloaded"])
    expect(turnFromMessage(message, errors)).toEqual(expectedRead(failedTurn))
  })

  it("names the conversation by the client's chat id: asking again keeps the one chat, the delete route deletes it, then 404", () =>
    withStandInProcess({ protocol: "ai-sdk" }, async (s) => {
      await (await chat(s, "docs", "chat-a", "Which repo is search-api in?")).text()
      const first = s.conversations()[0]!
      await (await chat(s, "docs", "chat-a", "Who owns auth-gateway? I need to ask them about token lifetimes.")).text()
      expect(s.conversations().map((c) => [c.id, c.protocol, c.question])).toEqual([
        ["chat-a", "ai-sdk", "Who owns auth-gateway? I need to ask them about token lifetimes."]
      ])
      expect(s.conversations()[0]!.turnId).not.toBe(first.turnId)
      // Another account's chat id is not this account's to answer in.
      const other = { header: "cookie", value: Redacted.value(s.cookie("other")) }
      expect((await chat(s, "docs", "chat-a", "Which repo is search-api in?", other)).status).toBe(404)
      const remove = () => fetchAt(s)(`${s.url}/api/ai/conversations/chat-a`, { method: "DELETE", headers: signIn(s) })
      const removed = await remove()
      expect([removed.status, await removed.json()]).toEqual([200, { deleted: "chat-a" }])
      expect((await remove()).status).toBe(404)
      expect(s.stats()).toMatchObject({ created: 1, deleted: 1, requests: { ask: 3, delete: 2 } })
      expect(s.conversations("other")).toEqual([])
    }))

  it.live("deletes a chat by the surface's own delete route, a template with a query", () =>
    Effect.scoped(Effect.gen(function*() {
      const catalog = {
        surfaces: {
          docs: {
            protocol: "ai-sdk" as const,
            endpoint: "/api/chat",
            tools: ["search_docs", "catalog"],
            routes: { delete: "/api/chat?id={conversationId}" }
          }
        }
      }
      const s = yield* start({ catalog })
      yield* Effect.promise(async () => {
        await (await post(s, "/api/chat", chatRequest("c/1 x", "Which repo is search-api in?"))).text()
        expect(s.serves).toContain("DELETE /api/chat?id={conversationId}  delete a conversation (docs)")
        expect((await fetchAt(s)(`${s.url}/api/chat?id=other`, { method: "DELETE", headers: signIn(s) })).status).toBe(
          404
        )
        expect((await fetchAt(s)(`${s.url}/api/chat`, { method: "DELETE", headers: signIn(s) })).status).toBe(404)
        const removed = await fetchAt(s)(`${s.url}/api/chat?id=${encodeURIComponent("c/1 x")}`, {
          method: "DELETE",
          headers: signIn(s)
        })
        expect([removed.status, await removed.json()]).toEqual([200, { deleted: "c/1 x" }])
        expect(s.conversations()).toEqual([])
      })
    })))
})
