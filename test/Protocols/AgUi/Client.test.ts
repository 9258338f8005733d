import { EventSchema, RunAgentInputSchema } from "@ag-ui/core/schemas"
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { readFileSync } from "node:fs"
import { resolveEvidence } from "../../../src/Evidence/Rules.js"
import { grade } from "../../../src/Graders/index.js"
import { agUiRunInput, readAgUiEvents } from "../../../src/Protocols/AgUi/Client.js"
import type { ReadContext } from "../../../src/Protocols/Protocol.js"
import { eventsOf } from "../../../src/Runner/EventStream.js"
import { CasesFile, questionCases } from "../../../src/Schema/Case.js"
import { Catalog } from "../../../src/Schema/Surface.js"
import type { Turn } from "../../../src/Schema/Trace.js"
import { type AgUiApp, type AgUiAppOptions, startAgUiApp } from "../../support/apps/agUiApp.js"
import { scenarioFor, scenarios } from "../../support/scenarios.js"

const fixture = (file: string): unknown => JSON.parse(readFileSync(`test/fixtures/protocols/${file}`, "utf8"))
const catalog = Schema.decodeUnknownSync(Catalog)(fixture("surfaces-ag-ui.json"))
const golden = { cases: questionCases(Schema.decodeUnknownSync(CasesFile)(fixture("golden-cases.json")).cases) }
const surface = catalog.surfaces["support"]!

const contextOf = (threadId: string, over: Partial<ReadContext> = {}): ReadContext => ({
  surface: "support",
  conversationId: threadId,
  gatedTools: surface.gatedTools ?? [],
  evidence: resolveEvidence(surface),
  ...over
})

/** The JSON of each event of an SSE body, in order, read as a live run reads it. */
const dataFrames = (body: string): ReadonlyArray<unknown> =>
  Either.getOrThrow(eventsOf(body)).map((e) => JSON.parse(e.data) as unknown)

interface Asked {
  readonly status: number
  readonly contentType: string | null
  readonly events: ReadonlyArray<unknown>
  readonly ids: { readonly threadId: string; readonly runId: string; readonly messageId: string }
}

let asks = 0

/** Asks `question` as a new run over loopback and splits the stream into its events. */
const ask = async (app: AgUiApp, question: string, body?: (ids: Asked["ids"]) => unknown): Promise<Asked> => {
  const n = asks++
  const ids = { threadId: `thread-${n}`, runId: `run-${n}`, messageId: `message-${n}` }
  const response = await fetch(`${app.url}/api/agent`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream" },
    body: JSON.stringify(body === undefined ? agUiRunInput(question, ids) : body(ids))
  })
  return {
    status: response.status,
    contentType: response.headers.get("content-type"),
    events: dataFrames(await response.text()),
    ids
  }
}

/** Every event that fails @ag-ui/core's own event schema, with why. */
const offProtocol = (events: ReadonlyArray<unknown>) =>
  events.flatMap((event, index) => {
    const checked = EventSchema.safeParse(event)
    return checked.success ? [] : [{ index, event, issues: checked.error.issues }]
  })

const typesOf = (events: ReadonlyArray<unknown>): ReadonlyArray<string> =>
  events.map((e) => (e as { type: string }).type)

const turnOf = (asked: Asked, over: Partial<ReadContext> = {}): Turn => {
  const read = readAgUiEvents(asked.events, contextOf(asked.ids.threadId, over), asked.ids.runId)
  if (Either.isLeft(read)) throw new Error(read.left)
  return read.right
}

const scenario = (question: string) => scenarioFor(question)!
const outputOf = (question: string, call: number) => scenario(question).calls[call]!.output

const [refundWindow, orderLookup, refundApproval, shipping, greeting, invoice] = scenarios.map((s) => s.question) as [
  string,
  string,
  string,
  string,
  string,
  string
]

describe("the AG-UI app and reader, scenario by scenario", () => {
  let app: AgUiApp
  beforeAll(async () => {
    app = await startAgUiApp()
  })
  afterAll(() => app.close())

  /**
   * Asks a scenario's question and reads its turn, checking that the app streamed real AG-UI. Each test
   * reads the turns it asserts, so what it proves is what it ran.
   */
  const turnFor = async (question: string): Promise<Turn> => {
    const asked = await ask(app, question)
    expect(asked.status).toBe(200)
    expect(asked.contentType).toBe("text/event-stream")
    expect(offProtocol(asked.events)).toEqual([])
    expect(typesOf(asked.events)[0]).toBe("RUN_STARTED")
    const turn = turnOf(asked)
    expect(turn.trace.turnId).toBe(asked.ids.runId)
    expect(turn.trace.surface).toBe("support")
    return turn
  }

  it("refund window: the retriever's documents are surfaced and the cited page matches", async () => {
    expect(await turnFor(refundWindow)).toEqual({
      answer: scenario(refundWindow).answer,
      trace: expect.objectContaining({
        outcome: "answered",
        toolExecutions: [{
          tool: "search_kb",
          input: { query: "refund window" },
          output: outputOf(refundWindow, 0),
          error: null
        }],
        citations: [{ path: "/kb/refunds", match: "path" }],
        proposal: null
      })
    })
  })

  it("order lookup: the error text is the result, and the closing snapshot's tool message says it errored", async () => {
    expect(await turnFor(orderLookup)).toEqual({
      answer: scenario(orderLookup).answer,
      trace: expect.objectContaining({
        outcome: "answered",
        toolExecutions: [{
          tool: "lookup_order",
          input: { orderId: "42" },
          output: "order service unavailable",
          error: "order service unavailable"
        }],
        citations: [],
        proposal: null
      })
    })
  })

  it("refund: the run stops at the gated call, which is no execution, and the interrupt is the proposal", async () => {
    const turn = await turnFor(refundApproval)
    const callId = `${turn.trace.turnId}-call-2`
    expect(turn).toEqual({
      answer: "",
      trace: expect.objectContaining({
        outcome: "awaiting-approval",
        toolExecutions: [{
          tool: "lookup_order",
          input: { orderId: "42" },
          output: outputOf(refundApproval, 0),
          error: null
        }],
        citations: [],
        proposal: {
          id: `${callId}-approval`,
          summary: "Approve issue_refund {\"orderId\":\"42\"}?",
          status: "pending",
          actions: [
            {
              id: `${callId}-approval`,
              reason: "tool_approval",
              toolCallId: callId,
              tool: "issue_refund",
              input: { orderId: "42" }
            }
          ]
        }
      })
    })
  })

  it("shipping: the page cited from memory is unsurfaced", async () => {
    expect(await turnFor(shipping)).toEqual({
      answer: scenario(shipping).answer,
      trace: expect.objectContaining({
        outcome: "answered",
        toolExecutions: [{
          tool: "search_kb",
          input: { query: "shipping times" },
          output: outputOf(shipping, 0),
          error: null
        }],
        citations: [{ path: "/kb/shipping-times", match: "path" }, { path: "/kb/delivery", match: "unsurfaced" }]
      })
    })
  })

  it("greeting: an answer and nothing else", async () => {
    expect(await turnFor(greeting)).toEqual({
      answer: scenario(greeting).answer,
      trace: expect.objectContaining({ outcome: "answered", toolExecutions: [], citations: [], proposal: null })
    })
  })

  it("invoice: RUN_ERROR makes the outcome error; the tool that ran is kept, with no word on its error", async () => {
    expect(await turnFor(invoice)).toEqual({
      answer: "",
      trace: expect.objectContaining({
        outcome: "error",
        toolExecutions: [{ tool: "search_kb", input: { query: "invoice" }, output: outputOf(invoice, 0) }],
        citations: [],
        proposal: null
      })
    })
  })

  it("the golden set grades the turns as expected", async () => {
    const turns = new Map<string, Turn>()
    for (const { question } of scenarios) turns.set(question, await turnFor(question))
    const results = golden.cases.map((c) => grade(c, turns.get(c.question)!, surface))
    expect(results.map((r) => [r.id, r.passed, r.expectations.flatMap((e) => e.fact === undefined ? [] : [e.fact])]))
      .toEqual([
        ["support.refund-window-cites-kb", true, []],
        ["support.order-lookup-errors", false, ["lookup_order errored: order service unavailable"]],
        ["support.refund-waits-for-approval", true, []],
        ["support.shipping-cites-only-surfaced", false, ["unsurfaced: /kb/delivery"]],
        ["support.greeting-calls-nothing", true, []],
        ["support.invoice-failure-is-an-error", false, ["outcome: error (expected answered)"]]
      ])
  })
})

describe("what AG-UI cannot tell", () => {
  let app: AgUiApp
  beforeAll(async () => {
    app = await startAgUiApp({ snapshot: false })
  })
  afterAll(() => app.close())

  it("without a MESSAGES_SNAPSHOT a tool's error text reads as a result, and calls-tool passes on it", async () => {
    const asked = await ask(app, orderLookup)
    expect(typesOf(asked.events)).not.toContain("MESSAGES_SNAPSHOT")
    const turn = turnOf(asked)
    expect(turn.trace.toolExecutions).toEqual([{
      tool: "lookup_order",
      input: { orderId: "42" },
      output: "order service unavailable"
    }])
    const lookup = golden.cases.find((c) => c.question === orderLookup)!
    expect(grade(lookup, turn, surface).passed).toBe(true)
  })
})

describe("chunk events", () => {
  let plain: AgUiApp
  let chunked: AgUiApp
  beforeAll(async () => {
    plain = await startAgUiApp()
    chunked = await startAgUiApp({ chunks: true })
  })
  afterAll(async () => {
    await plain.close()
    await chunked.close()
  })

  it.each([refundWindow, refundApproval])("%s: chunks read as the same turn as start/content/end", async (question) => {
    const asked = await ask(chunked, question)
    expect(offProtocol(asked.events)).toEqual([])
    const types = typesOf(asked.events)
    expect(types).toContain("TOOL_CALL_CHUNK")
    expect(types).not.toContain("TOOL_CALL_START")
    expect(types).not.toContain("TEXT_MESSAGE_CONTENT")
    const reference = await ask(plain, question, (ids) => agUiRunInput(question, { ...ids, runId: asked.ids.runId }))
    expect(turnOf(asked)).toEqual(turnOf(reference))
  })

  it("a text chunk that names no message and follows none cannot be read", async () => {
    const asked = await ask(chunked, greeting)
    const first = asked.events.findIndex((e) => (e as { type: string }).type === "TEXT_MESSAGE_CHUNK")
    const events = asked.events.map((e, i) => {
      if (i !== first) return e
      const { messageId: _, ...rest } = e as { messageId: string }
      return rest
    })
    expect(offProtocol(events)).toEqual([])
    expect(readAgUiEvents(events, contextOf(asked.ids.threadId))).toEqual(
      Either.left(`event ${first} (TEXT_MESSAGE_CHUNK): names no messageId and continues no message`)
    )
  })

  it("an event between two chunks closes the first: the second, naming nothing, continues nothing", async () => {
    const asked = await ask(chunked, refundWindow)
    const second = asked.events.findIndex((e) =>
      (e as { type: string; toolCallId?: string }).type === "TOOL_CALL_CHUNK" &&
      (e as { toolCallId?: string }).toolCallId === undefined
    )
    const events = [
      ...asked.events.slice(0, second),
      { type: "STEP_STARTED", stepName: "between" },
      ...asked.events.slice(second)
    ]
    expect(readAgUiEvents(events, contextOf(asked.ids.threadId))).toEqual(
      Either.left(`event ${second + 1} (TOOL_CALL_CHUNK): names no toolCallId and continues no tool call`)
    )
  })
})

describe("streams that cannot be read as a turn", () => {
  let app: AgUiApp
  let refund: Asked
  beforeAll(async () => {
    app = await startAgUiApp()
    refund = await ask(app, refundWindow)
  })
  afterAll(() => app.close())

  const read = (events: ReadonlyArray<unknown>) =>
    readAgUiEvents(events, contextOf(refund.ids.threadId), refund.ids.runId)
  const indexOf = (type: string) => refund.events.findIndex((e) => (e as { type: string }).type === type)
  const replaced = (index: number, change: (event: Record<string, unknown>) => unknown) =>
    refund.events.map((e, i) => i === index ? change(e as Record<string, unknown>) : e)

  it("a stream that broke off before RUN_FINISHED", () => {
    const cut = refund.events.slice(0, -1)
    expect(typesOf(refund.events).at(-1)).toBe("RUN_FINISHED")
    expect(read(cut)).toEqual(
      Either.left(`the stream broke off: ${cut.length} events and no RUN_FINISHED or RUN_ERROR`)
    )
    expect(read([])).toEqual(Either.left("the stream broke off: 0 events and no RUN_FINISHED or RUN_ERROR"))
  })

  it("a malformed event of a type read, named by its index and type", () => {
    const args = indexOf("TOOL_CALL_ARGS")
    expect(read(replaced(args, (e) => ({ ...e, delta: 42 })))).toEqual(
      Either.left(`event ${args} (TOOL_CALL_ARGS): $.delta: expected string, got 42`)
    )
    const finished = indexOf("RUN_FINISHED")
    expect(read(replaced(finished, (e) => ({ ...e, outcome: { type: "interrupt", interrupts: [] } })))).toEqual(
      Either.left(`event ${finished} (RUN_FINISHED): $.outcome.interrupts: expected at least one interrupt`)
    )
    expect(read(replaced(0, () => "RUN_STARTED"))).toEqual(
      Either.left(`event 0: not an AG-UI event (expected an object with a string "type")`)
    )
  })

  it("a result for a call the stream never started", () => {
    const start = indexOf("TOOL_CALL_START")
    const without = refund.events.filter((e) =>
      !["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "MESSAGES_SNAPSHOT"]
        .includes((e as { type: string }).type)
    )
    const result = typesOf(without).indexOf("TOOL_CALL_RESULT")
    expect(start).toBeGreaterThan(0)
    expect(read(without)).toEqual(
      Either.left(
        `event ${result} (TOOL_CALL_RESULT): answers tool call "${refund.ids.runId}-call-1", which was never started`
      )
    )
  })

  it("a cancelled run", () => {
    const finished = indexOf("RUN_FINISHED")
    expect(read(replaced(finished, (e) => ({ ...e, outcome: { type: "cancelled" } })))).toEqual(
      Either.left(`the run was cancelled: RUN_FINISHED (event ${finished}) has the outcome "cancelled"`)
    )
  })

  it("events of types not read are skipped, whatever their shape, and so is what follows the run's end", () => {
    const turn = read(refund.events)
    const noisy = [
      { type: "CUSTOM", name: 7 },
      ...refund.events,
      { type: "TEXT_MESSAGE_CONTENT", messageId: "late", delta: "after the end" }
    ]
    noisy.splice(3, 0, { type: "SOMETHING_NEW", delta: 1 }, { type: "STATE_SNAPSHOT" })
    expect(Either.isRight(turn)).toBe(true)
    expect(read(noisy)).toEqual(turn)
  })
})

describe("what the stream carries beyond the basics", () => {
  it("timestamps give each execution its duration", async () => {
    let now = 1_000
    const app = await startAgUiApp({ clock: () => (now += 5) })
    try {
      const asked = await ask(app, refundApproval)
      expect(offProtocol(asked.events)).toEqual([])
      const types = typesOf(asked.events)
      // From TOOL_CALL_START to its TOOL_CALL_RESULT, five milliseconds an event.
      const gap = (types.indexOf("TOOL_CALL_RESULT") - types.indexOf("TOOL_CALL_START")) * 5
      expect(turnOf(asked).trace.toolExecutions.map((e) => e.durationMs)).toEqual([gap])
    } finally {
      await app.close()
    }
  })

  it("with no text streamed, the answer is the snapshot's assistant messages of this turn", async () => {
    const app = await startAgUiApp()
    try {
      const asked = await ask(app, greeting)
      const snapshotOnly = {
        ...asked,
        events: asked.events.filter((e) => !(e as { type: string }).type.startsWith("TEXT_MESSAGE"))
      }
      expect(turnOf(snapshotOnly).answer).toBe(scenario(greeting).answer)
      expect(turnOf(snapshotOnly)).toEqual(turnOf(asked))
    } finally {
      await app.close()
    }
  })

  it("each assistant text message is a paragraph of the answer; text of other roles is not the answer", async () => {
    const app = await startAgUiApp()
    try {
      const asked = await ask(app, greeting)
      const text = asked.events.filter((e) => (e as { type: string }).type.startsWith("TEXT_MESSAGE"))
      const again = (messageId: string, role: string) =>
        text.map((e) => ({
          ...(e as object),
          messageId,
          ...((e as { type: string }).type === "TEXT_MESSAGE_START" ? { role } : {})
        }))
      const end = typesOf(asked.events).indexOf("TEXT_MESSAGE_END") + 1
      const withMore = (...more: ReadonlyArray<unknown>) => ({
        ...asked,
        events: [...asked.events.slice(0, end), ...more, ...asked.events.slice(end)]
      })
      const answer = scenario(greeting).answer
      expect(turnOf(withMore(...again("second", "assistant"))).answer).toBe(`${answer}\n\n${answer}`)
      expect(offProtocol(again("notes", "developer"))).toEqual([])
      expect(turnOf(withMore(...again("notes", "developer"))).answer).toBe(answer)
    } finally {
      await app.close()
    }
  })

  it("a result the snapshot marks as errored surfaces nothing", async () => {
    const app = await startAgUiApp()
    try {
      const asked = await ask(app, refundWindow)
      const events = asked.events.map((e) => {
        const event = e as { type: string; messages?: ReadonlyArray<{ role: string }> }
        if (event.type !== "MESSAGES_SNAPSHOT") return e
        return {
          ...event,
          messages: event.messages!.map((m) => m.role === "tool" ? { ...m, error: "index stale" } : m)
        }
      })
      expect(offProtocol(events)).toEqual([])
      const turn = turnOf({ ...asked, events })
      expect(turn.trace.toolExecutions.map((x) => x.error)).toEqual(["index stale"])
      expect(turn.trace.citations).toEqual([{ path: "/kb/refunds", match: "unsurfaced" }])
    } finally {
      await app.close()
    }
  })

  it("a call that streamed no arguments has no input, in its execution and in the proposal's action", async () => {
    const app = await startAgUiApp()
    try {
      const withoutArgs = async (question: string) => {
        const asked = await ask(app, question)
        const events = asked.events.filter((e) => (e as { type: string }).type !== "TOOL_CALL_ARGS")
        expect(events.length).toBeLessThan(asked.events.length)
        expect(offProtocol(events)).toEqual([])
        return turnOf({ ...asked, events }).trace
      }
      const searched = await withoutArgs(refundWindow)
      expect(searched.toolExecutions).toEqual([{ tool: "search_kb", output: outputOf(refundWindow, 0), error: null }])
      const waiting = await withoutArgs(refundApproval)
      expect(waiting.toolExecutions.map((e) => "input" in e)).toEqual([false])
      const actions = (waiting.proposal?.actions ?? []) as ReadonlyArray<{ tool?: string }>
      expect(actions.map((action) => [action.tool, "input" in action])).toEqual([["issue_refund", false]])
    } finally {
      await app.close()
    }
  })

  it("a run that ends on a surface's proposal tool is awaiting approval, its result the proposal", async () => {
    const app = await startAgUiApp()
    try {
      const asked = await ask(app, refundWindow)
      const evidence = resolveEvidence({ evidence: { proposalTools: ["search_kb"] } })
      const turn = turnOf(asked, { evidence })
      expect(turn.trace.outcome).toBe("awaiting-approval")
      expect(turn.trace.proposal).toEqual({ id: `${asked.ids.runId}-call-1` })
    } finally {
      await app.close()
    }
  })
})

describe("the run input", () => {
  const ids = { threadId: "thread-x", runId: "run-x", messageId: "message-x" }

  it("is a RunAgentInput with the user's message and nothing else", () => {
    const input = agUiRunInput("Hello!", ids)
    expect(input).toEqual({
      threadId: "thread-x",
      runId: "run-x",
      messages: [{ id: "message-x", role: "user", content: "Hello!" }],
      tools: [],
      context: [],
      state: {},
      forwardedProps: {}
    })
    expect(RunAgentInputSchema.safeParse(input).success).toBe(true)
  })

  it("fills a template's placeholders in string values, once, and leaves keys and other values alone", () => {
    const template = {
      threadId: "{conversationId}",
      runId: "{runId}",
      messages: [{ id: "{messageId}", role: "user", content: "{question}" }],
      forwardedProps: {
        note: "asked {question} in {conversationId}",
        "{question}": 3,
        flags: [true, null, "{unknown}"]
      }
    }
    expect(agUiRunInput("Why {messageId}?", ids, template)).toEqual({
      threadId: "thread-x",
      runId: "run-x",
      messages: [{ id: "message-x", role: "user", content: "Why {messageId}?" }],
      forwardedProps: { note: "asked Why {messageId}? in thread-x", "{question}": 3, flags: [true, null, "{unknown}"] }
    })
  })

  it("a template the app accepts asks the same question", async () => {
    const app = await startAgUiApp()
    try {
      const template = {
        threadId: "{conversationId}",
        runId: "{runId}",
        messages: [{ id: "{messageId}", role: "user", content: "{question}" }],
        forwardedProps: { tenant: "acme" }
      }
      const asked = await ask(app, greeting, (ids) => agUiRunInput(greeting, ids, template))
      expect(app.requests.at(-1)?.body).toEqual({
        ...template,
        threadId: asked.ids.threadId,
        runId: asked.ids.runId,
        messages: [{ id: asked.ids.messageId, role: "user", content: greeting }]
      })
      expect(turnOf(asked).answer).toBe(scenario(greeting).answer)
    } finally {
      await app.close()
    }
  })
})

describe("the app over HTTP", () => {
  const options: AgUiAppOptions = { auth: { header: "x-api-key", value: "secret" } }
  let app: AgUiApp
  beforeAll(async () => {
    app = await startAgUiApp(options)
  })
  afterAll(() => app.close())

  const post = (headers: Record<string, string>, body: string) =>
    fetch(`${app.url}/api/agent`, { method: "POST", headers: { "content-type": "application/json", ...headers }, body })
  const input = JSON.stringify(agUiRunInput(greeting, { threadId: "t", runId: "r", messageId: "m" }))

  it("answers 401 without the auth header, and records the request", async () => {
    const response = await post({}, input)
    expect(response.status).toBe(401)
    expect(app.requests.at(-1)).toMatchObject({ method: "POST", url: "/api/agent", body: JSON.parse(input) })
  })

  it("answers 400 to a body that is not a RunAgentInput", async () => {
    const response = await post({ "x-api-key": "secret" }, JSON.stringify({ threadId: "t", messages: "Hello!" }))
    expect(response.status).toBe(400)
    expect(
      ((await response.json()) as { issues: ReadonlyArray<{ path: ReadonlyArray<string> }> }).issues.map((i) => i.path)
    )
      .toEqual([["runId"], ["messages"]])
  })

  it("honours accept: an event stream when asked for one, the encoder's protobuf for */*", async () => {
    const sse = await post({ "x-api-key": "secret", accept: "text/event-stream" }, input)
    expect(sse.headers.get("content-type")).toBe("text/event-stream")
    expect(typesOf(dataFrames(await sse.text())).at(-1)).toBe("RUN_FINISHED")
    const any = await post({ "x-api-key": "secret", accept: "*/*" }, input)
    expect(any.headers.get("content-type")).toBe("application/vnd.ag-ui.event+proto")
    const bytes = new Uint8Array(await any.arrayBuffer())
    // Length-prefixed protobuf frames: the first frame's four-byte big-endian length, then that many bytes.
    const length = new DataView(bytes.buffer).getUint32(0, false)
    expect(length).toBeGreaterThan(0)
    expect(bytes.length).toBeGreaterThan(4 + length)
  })
})
