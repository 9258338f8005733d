import { NodeFileSystem } from "@effect/platform-node"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Either } from "effect"
import { defaultEvidence } from "../../../src/Evidence/Rules.js"
import { grade } from "../../../src/Graders/index.js"
import {
  langGraphAssistantId,
  type LangGraphEvent,
  langGraphRunBody,
  type LangGraphWire,
  readLangGraphTurn,
  runIdFromLocation
} from "../../../src/Protocols/LangGraph/Client.js"
import type { ReadContext } from "../../../src/Protocols/Protocol.js"
import { fillTemplate } from "../../../src/Protocols/Reading.js"
import { eventsOf } from "../../../src/Runner/EventStream.js"
import { type GoldenSet, loadGoldenSet } from "../../../src/Runner/GoldenSet.js"
import { questionCases } from "../../../src/Schema/Case.js"
import type { Turn } from "../../../src/Schema/Trace.js"
import { type LangGraphApp, startLangGraphApp } from "../../support/apps/langGraphApp.js"
import { type Scenario, scenarioFor, scenarios } from "../../support/scenarios.js"

const casesFile = "test/fixtures/protocols/golden-cases.json"
const surfacesFile = "test/fixtures/protocols/surfaces-langgraph.json"

const json = { "content-type": "application/json" }

/** A thread and the run that asked the question in it, exactly as a live run makes them. */
interface Asked {
  readonly threadId: string
  readonly location: string | null
  readonly wire: LangGraphWire
}

const scenario = (question: string): Scenario => {
  const found = scenarioFor(question)
  if (found === undefined) throw new Error(`no scenario for ${question}`)
  return found
}

/** The named server-sent events of a stream's text, read as a live run reads an event stream. */
const eventsIn = (text: string): ReadonlyArray<LangGraphEvent> =>
  Either.getOrThrow(eventsOf(text)).flatMap(({ data, event }) =>
    event === undefined ? [] : [{ event, data: data === "" ? undefined : JSON.parse(data) as unknown }]
  )

const openThread = async (app: LangGraphApp): Promise<string> => {
  const response = await fetch(`${app.url}/threads`, { method: "POST", headers: json, body: "{}" })
  expect(response.status).toBe(200)
  return ((await response.json()) as { thread_id: string }).thread_id
}

const getJson = async (url: string): Promise<unknown> => {
  const response = await fetch(url)
  expect(response.status).toBe(200)
  return response.json()
}

/**
 * Asks a question: `POST /threads`, `POST /threads/{id}/runs/wait` (or `/runs/stream`), then
 * `GET /threads/{id}` and `GET /threads/{id}/state`.
 */
const ask = async (
  app: LangGraphApp,
  question: string,
  how: "wait" | "stream" = "wait",
  input?: unknown
): Promise<Asked> => {
  const threadId = await openThread(app)
  const response = await fetch(`${app.url}/threads/${threadId}/runs/${how}`, {
    method: "POST",
    headers: json,
    body: JSON.stringify(langGraphRunBody("support", question, input, { conversationId: threadId }))
  })
  expect(response.status).toBe(200)
  const location = response.headers.get("content-location")
  const text = await response.text()
  const events = how === "stream" ? eventsIn(text) : undefined
  const thread = await getJson(`${app.url}/threads/${threadId}`)
  const state = await getJson(`${app.url}/threads/${threadId}/state`)
  return {
    threadId,
    location,
    wire: {
      question,
      runId: how === "wait" ? runIdFromLocation(location) : undefined,
      // The wait answers newlines to keep the connection alive until the run's last values.
      run: how === "wait" ? JSON.parse(text) as unknown : undefined,
      thread,
      state,
      ...(events === undefined ? {} : { events })
    }
  }
}

const context = (conversationId: string): ReadContext => ({
  surface: "support",
  conversationId,
  gatedTools: ["issue_refund"],
  evidence: defaultEvidence
})

const read = (asked: Asked): Turn => {
  const turn = readLangGraphTurn(asked.wire, context(asked.threadId))
  if (Either.isLeft(turn)) throw new Error(turn.left)
  return turn.right
}

/** The outcome and turn id read from part of a wire. */
const readAs = (asked: Asked, wire: LangGraphWire) =>
  Either.map(
    readLangGraphTurn(wire, context(asked.threadId)),
    (t) => ({ outcome: t.trace.outcome, turnId: t.trace.turnId })
  )

/** A turn without its ids (the run's, and its proposal's interrupt's), to compare two runs of one scenario. */
const withoutIds = (turn: Turn) => ({
  ...turn,
  trace: {
    ...turn.trace,
    turnId: "",
    proposal: turn.trace.proposal === null ? null : { ...turn.trace.proposal, id: "" }
  }
})

/**
 * A tool that threw, as the turn records it: LangChain's tool node writes `Error: MESSAGE\n Please fix
 * your mistakes.` (its default `handleToolErrors`), and the error is that text's first line without `Error: `.
 */
const thrown = (message: string) => message

/** A retriever call's tool execution as the server records it: the documents' text and the documents. */
const searched = (question: string) => {
  const call = scenario(question).calls[0]!
  const documents = call.output as ReadonlyArray<{ pageContent: string; metadata: { source: string } }>
  return {
    tool: "search_kb",
    input: call.input,
    output: {
      content: documents.map((d) => `Source: ${d.metadata.source}\nContent: ${d.pageContent}`).join("\n\n"),
      artifact: documents
    },
    error: null
  }
}

const refundWindow = scenarios[0]!.question
const orderLookup = scenarios[1]!.question
const refundApproval = scenarios[2]!.question
const shipping = scenarios[3]!.question
const greeting = scenarios[4]!.question
const invoice = scenarios[5]!.question

describe("the LangGraph server's turns, read", () => {
  let app: LangGraphApp
  let set: GoldenSet
  const asked = new Map<string, Asked>()

  beforeAll(async () => {
    app = await startLangGraphApp()
    set = await Effect.runPromise(loadGoldenSet(casesFile, surfacesFile).pipe(Effect.provide(NodeFileSystem.layer)))
    const all = await Promise.all(scenarios.map((s) => ask(app, s.question)))
    all.forEach((a, i) => asked.set(scenarios[i]!.question, a))
  }, 20_000)

  afterAll(async () => {
    await app?.close()
  })

  /** The golden case for a question, graded over the turn read from the server. */
  const graded = (question: string) => {
    const testCase = questionCases(set.cases).find((c) => c.question === question)!
    const turn = read(asked.get(question)!)
    return grade(testCase, turn, set.catalog.surfaces[testCase.surface]!)
  }

  it("asks in the order a live run does, the run id in the run's Content-Location", () => {
    const { location, threadId, wire } = asked.get(refundWindow)!
    expect(location).toMatch(new RegExp(`^/threads/${threadId}/runs/[0-9a-f-]{36}$`))
    const paths = app.requests.filter((r) => r.url.includes(threadId)).map((r) => [r.method, new URL(r.url).pathname])
    expect(paths).toEqual([
      ["POST", `/threads/${threadId}/runs/wait`],
      ["GET", `/threads/${threadId}`],
      ["GET", `/threads/${threadId}/state`]
    ])
    expect(read(asked.get(refundWindow)!).trace.turnId).toBe(wire.runId)
    expect(wire.runId).toBe(location!.split("/").at(-1))
  })

  it("reads a retrieval: the answer, the search with its documents, a citation of a retrieved page", () => {
    const a = asked.get(refundWindow)!
    expect(read(a)).toEqual({
      answer: scenario(refundWindow).answer,
      trace: {
        turnId: a.wire.runId,
        surface: "support",
        outcome: "answered",
        citations: [{ path: "/kb/refunds", match: "path" }],
        toolExecutions: [searched(refundWindow)],
        proposal: null
      }
    })
    expect(graded(refundWindow)).toMatchObject({ passed: true })
  })

  it("reads a tool that threw as errored, with the message LangChain's tool node wrote", () => {
    const a = asked.get(orderLookup)!
    expect(read(a)).toEqual({
      answer: scenario(orderLookup).answer,
      trace: {
        turnId: a.wire.runId,
        surface: "support",
        outcome: "answered",
        citations: [],
        toolExecutions: [{
          tool: "lookup_order",
          input: { orderId: "42" },
          error: thrown("order service unavailable")
        }],
        proposal: null
      }
    })
    expect(graded(orderLookup)).toMatchObject({
      passed: false,
      expectations: [
        { kind: "calls-tool", passed: false, fact: `lookup_order errored: ${thrown("order service unavailable")}` },
        { kind: "outcome", passed: true }
      ]
    })
  })

  it("reads an interrupted thread as awaiting approval, the proposal from the human-in-the-loop interrupt", () => {
    const a = asked.get(refundApproval)!
    const interrupt = (a.wire.run as { __interrupt__: ReadonlyArray<{ id: string }> }).__interrupt__[0]!
    expect(interrupt.id).toMatch(/^[0-9a-f]{32}$/)
    expect((a.wire.thread as { status: string }).status).toBe("interrupted")
    expect(read(a)).toEqual({
      answer: "",
      trace: {
        turnId: a.wire.runId,
        surface: "support",
        outcome: "awaiting-approval",
        citations: [],
        toolExecutions: [{
          tool: "lookup_order",
          input: { orderId: "42" },
          output: JSON.stringify(scenario(refundApproval).calls[0]!.output),
          error: null
        }],
        proposal: {
          id: interrupt.id,
          summary: "issue_refund",
          actions: [{
            name: "issue_refund",
            args: { orderId: "42" },
            description: "Tool execution requires approval\n\nTool: issue_refund\nArgs: {\n  \"orderId\": \"42\"\n}"
          }]
        }
      }
    })
    expect(graded(refundApproval)).toMatchObject({ passed: true })
  })

  it("finds the interrupt in the thread or the state alone, and the thread's status alone", () => {
    const a = asked.get(refundApproval)!
    const expected = read(a)
    const { run: _run, ...withoutRun } = a.wire
    expect(readLangGraphTurn({ ...withoutRun, run: undefined }, context(a.threadId))).toEqual(Either.right(expected))
    const { thread: _thread, ...stateOnly } = withoutRun
    expect(readLangGraphTurn({ ...stateOnly, run: undefined }, context(a.threadId))).toEqual(Either.right(expected))
    // An interrupted thread whose interrupt is not shown still waits; the proposal is named after the run.
    const statusOnly = readLangGraphTurn({
      ...stateOnly,
      run: undefined,
      thread: { ...(a.wire.thread as object), interrupts: {} },
      state: { values: (a.wire.state as { values: unknown }).values }
    }, context(a.threadId))
    expect(Either.map(statusOnly, (t) => [t.trace.outcome, t.trace.proposal])).toEqual(
      Either.right(["awaiting-approval", { id: `${a.wire.runId}:interrupt` }])
    )
  })

  it("reads a citation nothing surfaced as unsurfaced", () => {
    const a = asked.get(shipping)!
    expect(read(a).trace.citations).toEqual([{ path: "/kb/shipping-times", match: "path" }, {
      path: "/kb/delivery",
      match: "unsurfaced"
    }])
    expect(read(a).trace.toolExecutions).toEqual([searched(shipping)])
    expect(graded(shipping)).toMatchObject({
      passed: false,
      expectations: [{ passed: true }, { passed: true }, {
        kind: "cites-only-surfaced",
        passed: false,
        fact: "unsurfaced: /kb/delivery"
      }]
    })
  })

  it("reads a greeting: an answer and nothing else", () => {
    const a = asked.get(greeting)!
    expect(read(a)).toEqual({
      answer: scenario(greeting).answer,
      trace: {
        turnId: a.wire.runId,
        surface: "support",
        outcome: "answered",
        citations: [],
        toolExecutions: [],
        proposal: null
      }
    })
    expect(graded(greeting)).toMatchObject({ passed: true })
  })

  it("reads a run whose model failed as an error, from the run's body or the thread's status alone", () => {
    const a = asked.get(invoice)!
    expect(a.wire.run).toEqual({
      __error__: { error: "Error", message: JSON.stringify({ error: "Error", message: scenario(invoice).fails }) }
    })
    expect((a.wire.thread as { status: string }).status).toBe("error")
    expect(read(a)).toEqual({
      answer: "",
      trace: {
        turnId: a.wire.runId,
        surface: "support",
        outcome: "error",
        citations: [],
        toolExecutions: [searched(invoice)],
        proposal: null
      }
    })
    const { run: _run, ...rest } = a.wire
    expect(readAs(a, { ...rest, run: undefined })).toEqual(Either.right({ outcome: "error", turnId: a.wire.runId }))
    const { thread: _thread, ...bodyOnly } = a.wire
    expect(readAs(a, bodyOnly)).toEqual(Either.right({ outcome: "error", turnId: a.wire.runId }))
    expect(graded(invoice)).toMatchObject({
      passed: false,
      expectations: [{ kind: "calls-tool", passed: true }, {
        kind: "outcome",
        passed: false,
        fact: "outcome: error (expected answered)"
      }]
    })
  })

  it("reads a streamed run the same, the run id from its metadata event", async () => {
    const questions = [refundWindow, invoice, refundApproval]
    const streams = await Promise.all(questions.map((question) => ask(app, question, "stream")))
    streams.forEach((streamed, i) => {
      const runId = runIdFromLocation(streamed.location)
      const events = streamed.wire.events!
      expect(events[0]).toEqual({ event: "metadata", data: { run_id: runId, attempt: 1 } })
      // The stream closes after the run's last event; this server sends no `end` event.
      expect(events.map((e) => e.event)).not.toContain("end")
      const turn = read(streamed)
      expect(turn.trace.turnId).toBe(runId)
      expect(withoutIds(turn)).toEqual(withoutIds(read(asked.get(questions[i]!)!)))
      // Without the state's metadata (the run that wrote its last checkpoint) the event names the run;
      // without the event, the state's metadata does.
      const values = (streamed.wire.state as { values: unknown }).values
      const same = Either.right({ outcome: turn.trace.outcome, turnId: runId })
      expect(readAs(streamed, { ...streamed.wire, state: { values } })).toEqual(same)
      expect(readAs(streamed, { ...streamed.wire, events: [] })).toEqual(same)
    })
    const failed = streams[1]!
    expect(failed.wire.events!.at(-1)).toEqual({
      event: "error",
      data: { error: "Error", message: scenario(invoice).fails }
    })
    const { thread: _thread, ...eventsOnly } = failed.wire
    expect(readAs(failed, eventsOnly)).toEqual(
      Either.right({ outcome: "error", turnId: runIdFromLocation(failed.location) })
    )
  })

  it("asks with the surface's input template, the question in a text block", async () => {
    const template = { messages: [{ role: "user", content: [{ type: "text", text: "{question}" }] }] }
    const a = await ask(app, refundWindow, "wait", template)
    expect((a.wire.state as { values: { messages: ReadonlyArray<{ content: unknown }> } }).values.messages[0]!.content)
      .toEqual([{ type: "text", text: refundWindow }])
    expect(read(a).answer).toBe(scenario(refundWindow).answer)
    expect(read(a).trace.citations).toEqual([{ path: "/kb/refunds", match: "path" }])
  })

  it("deletes a thread: the server no longer holds it", async () => {
    const { threadId } = asked.get(greeting)!
    expect(await app.threads()).toContain(threadId)
    const response = await fetch(`${app.url}/threads/${threadId}`, { method: "DELETE" })
    expect(response.status).toBe(204)
    expect(await app.threads()).not.toContain(threadId)
    const gone = await fetch(`${app.url}/threads/${threadId}`)
    expect([gone.status, await gone.text()]).toEqual([404, `Thread with ID ${threadId} not found`])
  })

  it("answers a run for an unknown assistant 404, naming it", async () => {
    const threadId = await openThread(app)
    const response = await fetch(`${app.url}/threads/${threadId}/runs/wait`, {
      method: "POST",
      headers: json,
      body: JSON.stringify(langGraphRunBody("billing", greeting))
    })
    expect([response.status, await response.text()]).toEqual([
      404,
      "No assistant found for \"billing\". Make sure the assistant ID is for a valid assistant or a valid graph ID."
    ])
  })
})

describe("the LangGraph test app behind a key", () => {
  it("answers 401 without the header, and records every request with its headers", async () => {
    const app = await startLangGraphApp({ auth: { header: "x-api-key", value: "key-1" } })
    try {
      const without = await fetch(`${app.url}/threads`, { method: "POST", headers: json, body: "{}" })
      expect([without.status, await without.text()]).toEqual([401, "Unauthorized"])
      const wrong = await fetch(`${app.url}/threads`, {
        method: "POST",
        headers: { ...json, "x-api-key": "key-2" },
        body: "{}"
      })
      expect(wrong.status).toBe(401)
      const right = await fetch(`${app.url}/threads`, {
        method: "POST",
        headers: { ...json, "x-api-key": "key-1" },
        body: "{}"
      })
      expect(right.status).toBe(200)
      const { thread_id } = await right.json() as { thread_id: string }
      expect(await app.threads()).toEqual([thread_id])
      expect(app.requests.map((r) => [r.method, new URL(r.url).pathname, r.headers["x-api-key"]])).toEqual([
        ["POST", "/threads", undefined],
        ["POST", "/threads", "key-2"],
        ["POST", "/threads", "key-1"]
      ])
    } finally {
      await app.close()
    }
  })
})

describe("reading a LangGraph turn", () => {
  const wire = (state: unknown, question = "Hello!"): LangGraphWire => ({ question, runId: "run-1", run: {}, state })
  const reason = (w: LangGraphWire) => Either.flip(readLangGraphTurn(w, context("t-1")))

  it("says why a malformed state holds no turn", () => {
    expect(reason(wire(null))).toEqual(Either.right("thread state: expected an object with \"values\", got null"))
    expect(reason(wire({ values: {} }))).toEqual(
      Either.right("thread state: values.messages: expected a list of messages, got undefined")
    )
    expect(reason(wire({ values: { messages: "Hello!" } }))).toEqual(
      Either.right("thread state: values.messages: expected a list of messages, got \"Hello!\"")
    )
    expect(reason(wire({ values: { messages: [{ type: "human", content: "Hello!" }, 7] } }))).toEqual(
      Either.right("thread state: values.messages[1]: expected a message object, got 7")
    )
    expect(reason(wire({ values: { messages: [{ type: "human", content: "Hi" }, { type: "ai", content: "Hello" }] } })))
      .toEqual(
        Either.right("thread state: values.messages: no human message asks \"Hello!\"")
      )
  })

  it("reads only the messages after the question's last asking, and falls back to the thread and question index for the turn id", () => {
    const messages = [
      { type: "human", content: "Hello!" },
      { type: "ai", content: "", tool_calls: [{ name: "search_kb", args: { query: "x" }, id: "c1" }] },
      { type: "tool", content: "{\"path\": \"/kb/old\"}", tool_call_id: "c1", status: "success" },
      { type: "ai", content: "See [old](/kb/old)." },
      { type: "human", content: "Hello!" },
      { type: "ai", content: "", tool_calls: [{ name: "search_kb", args: { query: "y" }, id: "c2" }] },
      { type: "tool", content: "{\"path\": \"/kb/new\"}", tool_call_id: "c2", status: "error" },
      {
        type: "ai",
        content: [
          { type: "text", text: "See [old](/kb/old) " },
          { type: "tool_use", id: "toolu_1", name: "lookup_order", input: { orderId: "1" } },
          { type: "text", text: "and [new](/kb/new)." }
        ],
        tool_calls: [{ name: "lookup_order", args: { orderId: "1" }, id: "toolu_1" }]
      }
    ]
    const turn = readLangGraphTurn(
      { question: "Hello!", runId: undefined, run: undefined, state: { values: { messages } } },
      context("t-1")
    )
    expect(turn).toEqual(Either.right({
      answer: "See [old](/kb/old) and [new](/kb/new).",
      trace: {
        turnId: "t-1:4",
        surface: "support",
        outcome: "answered",
        // An earlier turn's results and an errored result surface nothing for this turn.
        citations: [{ path: "/kb/old", match: "unsurfaced" }, { path: "/kb/new", match: "unsurfaced" }],
        // The last call has no tool message and nothing waits on it: an attempt.
        toolExecutions: [{ tool: "search_kb", input: { query: "y" }, error: "{\"path\": \"/kb/new\"}" }, {
          tool: "lookup_order",
          input: { orderId: "1" },
          unresolved: true
        }],
        proposal: null
      }
    }))
  })
})

describe("a LangGraph run's body", () => {
  it("asks the question as one user message, or fills the surface's input template", () => {
    expect(langGraphRunBody("support", "Hello!")).toEqual({
      assistant_id: "support",
      input: { messages: [{ role: "user", content: "Hello!" }] }
    })
    const template = { q: "{question}", about: "Asked in {conversationId}: {question} {other}", n: 3 }
    expect(langGraphRunBody("support", "Hello {conversationId}!", template, { conversationId: "t-1" })).toEqual({
      assistant_id: "support",
      input: { q: "Hello {conversationId}!", about: "Asked in t-1: Hello {conversationId}! {other}", n: 3 }
    })
    expect(fillTemplate(["{messageId}", { "{question}": "{messageId}" }], { messageId: "m-1" })).toEqual(["m-1", {
      "{question}": "m-1"
    }])
  })

  it("names the surface's assistant, else the surface, and finds the run id in a Content-Location", () => {
    expect(langGraphAssistantId("support", {})).toBe("support")
    expect(langGraphAssistantId("support", { assistantId: "agent" })).toBe("agent")
    expect(runIdFromLocation("/threads/t-1/runs/r-1")).toBe("r-1")
    expect(runIdFromLocation("/runs/r-2")).toBe("r-2")
    expect(runIdFromLocation("/threads/t-1")).toBeUndefined()
    expect(runIdFromLocation(null)).toBeUndefined()
  })
})
