/**
 * The tokens a turn used, as each live protocol's wire carries them from the real library serving it
 * on loopback: LangGraph's AI messages' `usage_metadata`, summed over the turn; AG-UI 1.0's `usage`
 * on the run's end, summed across its entries; the AI SDK's UI message stream carries none, and an
 * app's own message metadata is not read as if it did. The stand-in serves its turns' usage over
 * LangGraph as the server does, so a run over `--protocol langgraph` records what the trace route serves.
 */
import { EventSchema } from "@ag-ui/core/schemas"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { mkdtempSync, readdirSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultEvidence } from "../../src/Evidence/Rules.js"
import { agUiRunInput, readAgUiEvents } from "../../src/Protocols/AgUi/Client.js"
import { aiSdkRequestBody, eventStreamChunks, readAiSdkStream } from "../../src/Protocols/AiSdk/Client.js"
import {
  langGraphRunBody,
  type LangGraphWire,
  readLangGraphTurn,
  runIdFromLocation
} from "../../src/Protocols/LangGraph/Client.js"
import { runValues, threadMessages } from "../../src/Protocols/LangGraph/Wire.js"
import type { ReadContext } from "../../src/Protocols/Protocol.js"
import type { ProtocolName } from "../../src/Protocols/Registry.js"
import { eventsOf } from "../../src/Runner/EventStream.js"
import { questionCases } from "../../src/Schema/Case.js"
import { Recording, type Turn, type TurnTrace } from "../../src/Schema/Trace.js"
import { respondWithFlaws } from "../../src/StandIn/Flaws.js"
import { failedTurn, goldenQuestions } from "../StandIn/wires.js"
import { startAgUiApp } from "../support/apps/agUiApp.js"
import { startAiSdkApp } from "../support/apps/aiSdkApp.js"
import { type LangGraphApp, startLangGraphApp } from "../support/apps/langGraphApp.js"
import { turnUsage } from "../support/apps/usage.js"
import { evalCliAsync } from "../support/cli.js"
import { goldenCases } from "../support/golden.js"
import { sessionEnv, surfacesArgs, withProtocolStandIn } from "../support/protocols.js"
import { type Scenario, scenarios } from "../support/scenarios.js"

const context = (conversationId: string): ReadContext => ({
  surface: "support",
  conversationId,
  gatedTools: ["issue_refund"],
  evidence: defaultEvidence
})

const turnOf = (read: Either.Either<Turn, string>): Turn => {
  if (Either.isLeft(read)) throw new Error(read.left)
  return read.right
}

/** A trace's usage, checked to be absent as a key (not merely undefined) when there is none. */
const usageOf = (trace: TurnTrace) => {
  expect("usage" in trace).toBe(trace.usage !== undefined)
  return trace.usage
}

/** The tokens a scenario's turn reports: one model call per tool call and one for the answer; a call that fails reports none. */
const scenarioUsage = (scenario: Scenario) => turnUsage(scenario.calls.length + (scenario.answer === undefined ? 0 : 1))

const [refundWindow, , , , greeting, invoice] = scenarios as [
  Scenario,
  Scenario,
  Scenario,
  Scenario,
  Scenario,
  Scenario
]

// ---------------------------------------------------------------------------------------------------
// LangGraph

const json = { "content-type": "application/json" }

const openThread = async (app: LangGraphApp): Promise<string> =>
  ((await (await fetch(`${app.url}/threads`, { method: "POST", headers: json, body: "{}" })).json()) as {
    thread_id: string
  }).thread_id

/** Runs `question` on a thread, as a live run does, and reads back what the server answered. */
const askLangGraph = async (
  app: LangGraphApp,
  question: string,
  threadId?: string
): Promise<{ threadId: string; wire: LangGraphWire }> => {
  const thread = threadId ?? await openThread(app)
  const response = await fetch(`${app.url}/threads/${thread}/runs/wait`, {
    method: "POST",
    headers: json,
    body: JSON.stringify(langGraphRunBody("support", question))
  })
  expect(response.status).toBe(200)
  const run = JSON.parse((await response.text()).trimStart()) as unknown
  const get = async (path: string) => (await fetch(`${app.url}/threads/${thread}${path}`)).json() as Promise<unknown>
  return {
    threadId: thread,
    wire: {
      question,
      runId: runIdFromLocation(response.headers.get("content-location")),
      run,
      thread: await get(""),
      state: await get("/state")
    }
  }
}

/** The `usage_metadata` of each message of a wire's state, in order (null for a message without one). */
const usageMetadataOf = (wire: LangGraphWire): ReadonlyArray<unknown> =>
  (wire.state as { values: { messages: ReadonlyArray<{ usage_metadata?: unknown }> } }).values.messages.map((m) =>
    m.usage_metadata ?? null
  )

/** A wire whose AI messages' `usage_metadata` is replaced, in order, by `metadata`. */
const withUsageMetadata = (wire: LangGraphWire, metadata: ReadonlyArray<unknown>): LangGraphWire => {
  let i = 0
  const { values, ...state } = wire.state as { values: { messages: ReadonlyArray<Record<string, unknown>> } }
  const messages = values.messages.map((m) => m["type"] === "ai" ? { ...m, usage_metadata: metadata[i++] } : m)
  return { ...wire, state: { ...state, values: { ...values, messages } } }
}

describe("langgraph, against a LangChain agent whose model reports each call's usage_metadata", () => {
  let app: LangGraphApp
  beforeAll(async () => {
    app = await startLangGraphApp({ usage: true })
  }, 20_000)
  afterAll(() => app?.close())

  it("sums the turn's AI messages' usage_metadata: every call that answered, none for the call that failed", async () => {
    for (const scenario of scenarios) {
      const { threadId, wire } = await askLangGraph(app, scenario.question)
      expect(usageOf(turnOf(readLangGraphTurn(wire, context(threadId))).trace), scenario.question).toEqual(
        scenarioUsage(scenario)
      )
    }
  })

  it("counts only the messages after the question, in a thread that holds an earlier turn", async () => {
    const { threadId } = await askLangGraph(app, greeting.question)
    const { wire } = await askLangGraph(app, refundWindow.question, threadId)
    // The earlier turn's answer really carries its call's usage in the same state.
    expect(usageMetadataOf(wire).slice(0, 2)).toEqual([null, {
      input_tokens: 120,
      output_tokens: 13,
      total_tokens: 133
    }])
    expect(usageOf(turnOf(readLangGraphTurn(wire, context(threadId))).trace)).toEqual(scenarioUsage(refundWindow))
  })

  it("ignores a count that is no whole number of 0 or more, and still reads the turn", async () => {
    const { threadId, wire } = await askLangGraph(app, refundWindow.question)
    const read = (metadata: ReadonlyArray<unknown>) =>
      turnOf(readLangGraphTurn(withUsageMetadata(wire, metadata), context(threadId)))
    const { trace } = read([{ input_tokens: "120", output_tokens: -1 }, { input_tokens: 1.5, output_tokens: 23 }])
    expect(trace.usage).toEqual({ inputTokens: 0, outputTokens: 23 })
    expect(trace.toolExecutions.map((e) => e.tool)).toEqual(["search_kb"])
    expect(usageOf(read(["lots", { input_tokens: null, output_tokens: 2 ** 60 }]).trace)).toBeUndefined()
  })
})

describe("langgraph, against a model that reports no usage", () => {
  it("records none", async () => {
    const app = await startLangGraphApp()
    try {
      const { threadId, wire } = await askLangGraph(app, refundWindow.question)
      expect(usageMetadataOf(wire)).toEqual([null, null, null, null])
      expect(usageOf(turnOf(readLangGraphTurn(wire, context(threadId))).trace)).toBeUndefined()
    } finally {
      await app.close()
    }
  })
})

// ---------------------------------------------------------------------------------------------------
// AG-UI

/** The JSON of each event of an SSE body, in order, read as a live run reads it. */
const dataFrames = (body: string): ReadonlyArray<Record<string, unknown>> =>
  Either.getOrThrow(eventsOf(body)).map((e) => JSON.parse(e.data) as Record<string, unknown>)

let runs = 0

/** Asks `question` as a new AG-UI run and returns its events and ids. */
const askAgUi = async (url: string, question: string) => {
  const n = runs++
  const ids = { threadId: `thread-${n}`, runId: `run-${n}`, messageId: `message-${n}` }
  const response = await fetch(`${url}/api/agent`, {
    method: "POST",
    headers: { ...json, accept: "text/event-stream" },
    body: JSON.stringify(agUiRunInput(question, ids))
  })
  return { events: dataFrames(await response.text()), ids }
}

const readAgUi = (asked: Awaited<ReturnType<typeof askAgUi>>, events = asked.events) =>
  turnOf(readAgUiEvents(events, context(asked.ids.threadId), asked.ids.runId))

describe("ag-ui, against an agent whose run's end carries AG-UI 1.0's usage", () => {
  it("sums the usage entries of RUN_FINISHED, and of RUN_ERROR for the calls before the failure", async () => {
    const app = await startAgUiApp({ usage: true })
    try {
      for (const scenario of scenarios) {
        const asked = await askAgUi(app.url, scenario.question)
        const end = asked.events.at(-1)!
        expect(end["type"]).toBe(scenario.fails === undefined ? "RUN_FINISHED" : "RUN_ERROR")
        // The usage is the protocol's own field: @ag-ui/core's schema for the event keeps it.
        const checked = EventSchema.safeParse(end)
        expect(checked.success && "usage" in checked.data ? checked.data.usage : undefined).toEqual(end["usage"])
        // The calls that chose tools and the one that answered are two models: two entries when both ran.
        const models = [
          scenario.calls.length > 0 ? "scripted-tools" : [],
          scenario.answer === undefined ? [] : "scripted-answer"
        ].flat()
        expect((end["usage"] as ReadonlyArray<{ model: string }>).map((e) => e.model), scenario.question).toEqual(
          models
        )
        expect(usageOf(readAgUi(asked).trace), scenario.question).toEqual(scenarioUsage(scenario))
      }
    } finally {
      await app.close()
    }
  })

  it("ignores usage that is no list of entries, and counts that are no whole number; the turn still reads", async () => {
    const app = await startAgUiApp({ usage: true })
    try {
      const asked = await askAgUi(app.url, refundWindow.question)
      const ending = (usage: unknown) => [...asked.events.slice(0, -1), { ...asked.events.at(-1)!, usage }]
      expect(usageOf(readAgUi(asked, ending("lots")).trace)).toBeUndefined()
      expect(usageOf(readAgUi(asked, ending([{ inputTokens: -1, outputTokens: 2.5 }, "entry", null])).trace))
        .toBeUndefined()
      const { trace } = readAgUi(asked, ending([{ inputTokens: 7 }, { inputTokens: "8", outputTokens: 3 }]))
      expect(trace.usage).toEqual({ inputTokens: 7, outputTokens: 3 })
      expect(trace.outcome).toBe("answered")
    } finally {
      await app.close()
    }
  })

  it("records none when the run's end carries no usage", async () => {
    const app = await startAgUiApp()
    try {
      const asked = await askAgUi(app.url, invoice.question)
      expect(asked.events.some((e) => "usage" in e)).toBe(false)
      expect(usageOf(readAgUi(asked).trace)).toBeUndefined()
    } finally {
      await app.close()
    }
  })
})

// ---------------------------------------------------------------------------------------------------
// The AI SDK

describe.each([6, 7] as const)("ai-sdk, against the AI SDK %i, whose model reports each call's tokens", (version) => {
  it("no chunk of the stream carries them, so the turn has no usage; the app's own message metadata is not read as usage", async () => {
    for (const usageMetadata of [false, true]) {
      const app = await startAiSdkApp({ version, usageMetadata })
      try {
        const response = await fetch(`${app.url}/api/chat`, {
          method: "POST",
          headers: json,
          body: JSON.stringify(aiSdkRequestBody(refundWindow.question, { conversationId: "chat-1", messageId: "m-1" }))
        })
        const chunks = Either.getOrThrow(eventStreamChunks(await response.text())) as ReadonlyArray<
          Record<string, unknown>
        >
        const finish = chunks.find((c) => c["type"] === "finish")!
        if (usageMetadata) {
          // The model's counts reached the stream only as the app's own metadata, in the shape it chose.
          expect(finish["messageMetadata"]).toMatchObject({ totalUsage: scenarioUsage(refundWindow) })
        }
        const { messageMetadata: _metadata, ...rest } = finish
        expect([...chunks.filter((c) => c !== finish), rest].filter((c) => /tokens|usage/i.test(JSON.stringify(c))))
          .toEqual([])
        expect(usageOf(turnOf(readAiSdkStream(chunks, context("chat-1"))).trace)).toBeUndefined()
      } finally {
        await app.close()
      }
    }
  })
})

// ---------------------------------------------------------------------------------------------------
// The stand-in

describe("the stand-in over langgraph", () => {
  it("serves each turn's usage on its last AI message, which reads back as the turn's", () => {
    for (const [i, q] of goldenQuestions.entries()) {
      const turn = respondWithFlaws(q.surface, q.question)
      expect(turn.usage, q.id).toBeDefined()
      const runId = `run-${i}`
      const messages = threadMessages(turn, q.question, runId)
      const ai = messages.filter((m) => m.type === "ai")
      expect(ai.map((m) => m["usage_metadata"] !== undefined), q.id).toEqual([...ai.map(() => false).slice(1), true])
      const wire: LangGraphWire = {
        question: q.question,
        runId,
        run: runValues(turn, messages),
        state: { values: { messages } }
      }
      expect(turnOf(readLangGraphTurn(wire, { ...context("thread"), surface: q.surface })).trace.usage, q.id).toEqual(
        turn.usage
      )
    }
    // A turn that failed keeps the usage of what ran before, on its last AI message.
    const failed = threadMessages(failedTurn, "Which repo is search-api in?", "run-1").filter((m) => m.type === "ai")
    expect(failed.at(-1)?.["usage_metadata"]).toEqual({
      input_tokens: failedTurn.usage!.inputTokens,
      output_tokens: failedTurn.usage!.outputTokens,
      total_tokens: failedTurn.usage!.inputTokens + failedTurn.usage!.outputTokens
    })
  })

  it("a run over --protocol langgraph records the usage a run over the trace route records, case by case", async () => {
    const recorded = async (protocol: ProtocolName) =>
      withProtocolStandIn(protocol, { maxConversations: 64 }, async (s, p) => {
        const dir = mkdtempSync(join(tmpdir(), `eval-usage-${protocol}-`))
        const run = await evalCliAsync(
          [
            "run",
            "--base-url",
            s.url,
            ...surfacesArgs(p),
            "--record",
            join(dir, "rec"),
            "--json",
            join(dir, "results.json")
          ],
          {
            env: {
              ...sessionEnv(s, protocol === "langgraph" ? "api-key" : "cookie"),
              XDG_STATE_HOME: join(dir, "state")
            }
          }
        )
        expect(run.code, run.stderr).not.toBe(2)
        return Object.fromEntries(
          readdirSync(join(dir, "rec")).filter((f) => f.endsWith(".json")).flatMap((f) => {
            const recorded = Schema.decodeUnknownSync(Recording)(JSON.parse(readFileSync(join(dir, "rec", f), "utf8")))
            // The one-question cases: over langgraph a conversation takes only its first step, and is not recorded.
            return "turns" in recorded ? [] : [[recorded.caseId, recorded.trace.usage]]
          })
        )
      })
    const overTraceRoute = await recorded("turn-eval")
    expect(Object.keys(overTraceRoute)).toHaveLength(questionCases(goldenCases).length)
    expect(Object.values(overTraceRoute).every((u) => u !== undefined && u.inputTokens > 0)).toBe(true)
    expect(await recorded("langgraph")).toEqual(overTraceRoute)
  }, 120_000)
})
