/**
 * What every protocol of the stand-in shares: a session by cookie, bearer token or API key (401
 * without one), and the faults a live run is tested against — a status with Retry-After, a hang, a
 * connection reset mid-answer, a failure after the conversation was opened, an id no route may hold,
 * garbage, padding — each where the protocol's wire takes it, with the stats counting alike.
 */
import { EventSchemas } from "@ag-ui/core/schemas"
import { describe, expect, it } from "@effect/vitest"
import { parseJsonEventStream, readUIMessageStream, type UIMessage, uiMessageChunkSchema } from "ai"
import { Cause, Effect, Exit, Redacted } from "effect"
import { isDeepStrictEqual } from "node:util"
import type { ProtocolName } from "../../src/Protocols/Registry.js"
import { type FaultKind, type StandIn, start } from "../../src/StandIn/Server.js"
import { fetchAt, goldenSet, withStandInProcess } from "../support/live.js"
import { post, runInput, type SignIn, sseData } from "./wires.js"

const question = "Which repo is search-api in?"

const chatRequest = (id: string) => ({
  id,
  messages: [{ id: `${id}-user`, role: "user", parts: [{ type: "text", text: question }] }],
  trigger: "submit-message"
})

/** Creates a LangGraph thread, answering its id (as the app named it). */
const createThread = async (s: StandIn, how: SignIn = "cookie") => {
  const created = await post(s, "/threads", {}, how)
  return {
    status: created.status,
    id: created.status === 200 ? (await created.json() as { thread_id: string }).thread_id : ""
  }
}

/** Asks the question over a protocol: the ask's response (on LangGraph, the run's, on a thread made first). */
const ask = async (
  s: StandIn,
  protocol: ProtocolName,
  how: SignIn = "cookie",
  signal?: AbortSignal
): Promise<Response> => {
  switch (protocol) {
    case "turn-eval":
      return post(s, "/api/ai/docs/ask", { message: question }, how, signal)
    case "ai-sdk":
      return post(s, "/api/ai/docs/ask", chatRequest("chat-1"), how, signal)
    case "ag-ui":
      return post(s, "/api/ai/docs/ask", runInput("thread-1", "run-1", question), how, signal)
    case "langgraph": {
      const thread = await createThread(s, how)
      if (thread.status !== 200) return new Response(null, { status: thread.status })
      const run = { assistant_id: "docs", input: { messages: [{ role: "user", content: question }] } }
      return post(s, `/threads/${thread.id}/runs/wait`, run, how, signal)
    }
  }
}

/** The body's text as far as it came before the connection dropped, and whether it dropped. */
const readUntilCut = async (response: Response) => {
  const reader = response.body!.getReader()
  const decoder = new TextDecoder()
  let text = ""
  try {
    for (let next = await reader.read(); !next.done; next = await reader.read()) {
      text += decoder.decode(next.value, { stream: true })
    }
    return { text, cut: false }
  } catch {
    return { text, cut: true }
  }
}

const protocols: ReadonlyArray<ProtocolName> = ["turn-eval", "ai-sdk", "langgraph", "ag-ui"]

/** Conversations each protocol holds after one ask: a LangGraph ask is two requests. */
const asksPerQuestion = (protocol: ProtocolName) => protocol === "langgraph" ? 2 : 1

describe("signing in", () => {
  for (const protocol of protocols) {
    it(`${protocol}: a bearer token or an API key signs in as the cookie does; no session or a wrong token is 401`, () =>
      withStandInProcess({ protocol }, async (s) => {
        for (const how of ["cookie", "bearer", "api-key"] as const) {
          const answered = await ask(s, protocol, how)
          expect(answered.status, how).toBe(200)
          await answered.text()
        }
        const wrong = [{ header: "authorization", value: "Bearer not-a-token" }, {
          header: "x-api-key",
          value: "nope"
        }] as const
        for (const how of ["none", ...wrong] as const) {
          const refused = await ask(s, protocol, how)
          expect(refused.status, JSON.stringify(how)).toBe(401)
          if (refused.body !== null) expect(await refused.json()).toEqual({ error: "sign in first" })
        }
        expect(s.stats().unauthorized).toBe(3)
        expect(s.stats().requests.ask).toBe(3 * asksPerQuestion(protocol) + 3)
      }))
  }
})

describe("whenRequests", () => {
  it("settles once that many requests of the route have come, not before, and at once for a count already reached", () =>
    withStandInProcess({ protocol: "ai-sdk" }, async (s) => {
      let settled = false
      const second = s.whenRequests("ask", 2).then(() => void (settled = true))
      await (await ask(s, "ai-sdk")).text()
      await s.whenRequests("ask", 1)
      expect(settled).toBe(false)
      await (await ask(s, "ai-sdk")).text()
      await second
      expect(s.stats().requests.ask).toBe(2)
      let other = false
      void s.whenRequests("delete", 1).then(() => void (other = true))
      await s.whenRequests("ask", 2)
      expect(other).toBe(false)
    }))
})

describe("faults, per protocol", () => {
  for (const protocol of protocols) {
    it(`${protocol}: a 503 with Retry-After on the ask answers it and takes no question`, () =>
      withStandInProcess({ protocol }, async (s) => {
        s.setFaults([{ route: "ask", kind: "status", status: 503, retryAfter: "2" }])
        const answered = await ask(s, protocol)
        expect([answered.status, answered.headers.get("retry-after"), await answered.json()])
          .toEqual([503, "2", { error: "injected HTTP 503" }])
        // Only LangGraph's thread, made before the run was asked for, is there: it holds no turn.
        expect(s.conversations().map((c) => [c.protocol, c.turnId])).toEqual(
          protocol === "langgraph" ? [["langgraph", ""]] : []
        )
      }))

    it(`${protocol}: a hang on the ask never answers`, () =>
      withStandInProcess({ protocol }, async (s) => {
        s.setFaults([{ route: "ask", kind: "hang" }])
        await expect(ask(s, protocol, "cookie", AbortSignal.timeout(300))).rejects.toThrow(/abort|timeout/i)
        expect(s.stats().requests.ask).toBe(asksPerQuestion(protocol))
      }))
  }

  it("ai-sdk: a reset drops the stream after its first chunks; the chat it opened is there to delete", () =>
    withStandInProcess({ protocol: "ai-sdk" }, async (s) => {
      s.setFaults([{ route: "ask", kind: "reset" }])
      const { cut, text } = await readUntilCut(await ask(s, "ai-sdk"))
      expect(cut).toBe(true)
      const [chat] = s.conversations()
      expect([chat?.id, chat?.protocol]).toEqual(["chat-1", "ai-sdk"])
      expect(sseData(text).map((d) => JSON.parse(d) as unknown)).toEqual([
        { type: "start", messageId: chat!.turnId },
        { type: "start-step" },
        { type: "tool-input-start", toolCallId: `${chat!.turnId}-call-1`, toolName: "catalog" }
      ])
    }))

  it("ag-ui: a reset drops the stream after RUN_STARTED and the first event", () =>
    withStandInProcess({ protocol: "ag-ui" }, async (s) => {
      s.setFaults([{ route: "ask", kind: "reset" }])
      const { cut, text } = await readUntilCut(await ask(s, "ag-ui"))
      expect(cut).toBe(true)
      const events = sseData(text).map((d) => JSON.parse(d) as unknown)
      expect(events).toEqual([
        { type: "RUN_STARTED", threadId: "thread-1", runId: "run-1" },
        { type: "TOOL_CALL_START", toolCallId: "run-1-call-1", toolCallName: "catalog" }
      ])
      for (const e of events) expect(EventSchemas.safeParse(e).success).toBe(true)
    }))

  it("langgraph: a reset drops the run's answer half-way; the thread holds the run", () =>
    withStandInProcess({ protocol: "langgraph" }, async (s) => {
      s.setFaults([{ route: "ask", kind: "reset" }])
      const answered = await ask(s, "langgraph")
      const { cut, text } = await readUntilCut(answered)
      expect(cut).toBe(true)
      expect(text.startsWith("{\"messages\":[")).toBe(true)
      const [thread] = s.conversations()
      expect([thread?.question, answered.headers.get("content-location")])
        .toEqual([question, `/threads/${thread!.id}/runs/${thread!.turnId}`])
    }))

  it("ai-sdk: opened=500 opens the chat by the client's id, then answers 500", () =>
    withStandInProcess({ protocol: "ai-sdk" }, async (s) => {
      s.setFaults([{ route: "ask", kind: "opened", status: 500 }])
      const answered = await ask(s, "ai-sdk")
      expect([answered.status, await answered.json()]).toEqual([500, { error: "injected HTTP 500" }])
      expect(s.conversations().map((c) => [c.id, c.question])).toEqual([["chat-1", question]])
      expect(s.stats().created).toBe(1)
    }))

  it("langgraph: opened=500 takes the run on the thread, then answers 500 naming the thread", () =>
    withStandInProcess({ protocol: "langgraph" }, async (s) => {
      s.setFaults([{ route: "ask", kind: "opened", status: 500 }])
      const answered = await ask(s, "langgraph")
      const [thread] = s.conversations()
      expect([answered.status, await answered.json()]).toEqual([500, {
        error: "injected HTTP 500",
        thread_id: thread!.id
      }])
      expect([thread?.question, answered.headers.get("content-location")])
        .toEqual([question, `/threads/${thread!.id}/runs/${thread!.turnId}`])
    }))

  it("langgraph: id=.. names every thread created by an id no route may hold; the thread is there under its own", () =>
    withStandInProcess({ protocol: "langgraph" }, async (s) => {
      s.setFaults([{ route: "ask", kind: "id", id: "..", rate: 0.3 }, { route: "ask", kind: "status", status: 500 }])
      const first = await createThread(s)
      const second = await createThread(s)
      expect([first, second]).toEqual([{ status: 200, id: ".." }, { status: 200, id: ".." }])
      const uuid = expect.stringMatching(/^[0-9a-f-]{36}$/)
      expect(s.conversations().map((c) => c.id)).toEqual([uuid, uuid])
      // With `times`, only the first creations are renamed.
      s.setFaults([{ route: "ask", kind: "id", id: "%2e%2e", times: 1 }])
      expect([(await createThread(s)).id, (await createThread(s)).id]).toEqual(["%2e%2e", uuid])
    }))

  it("ai-sdk and ag-ui: a wrong-shape ask streams events the library's parser rejects", () =>
    withStandInProcess({ protocol: "ai-sdk" }, async (s) => {
      s.setFaults([{ route: "ask", kind: "wrong-shape" }])
      const answered = await ask(s, "ai-sdk")
      const parsed = parseJsonEventStream({ stream: answered.body!, schema: uiMessageChunkSchema }).getReader()
      const first = await parsed.read()
      expect(first.value?.success).toBe(false)
      expect(s.conversations()).toEqual([])
      await withStandInProcess({ protocol: "ag-ui" }, async (a) => {
        a.setFaults([{ route: "ask", kind: "wrong-shape" }])
        const events = sseData(await (await ask(a, "ag-ui")).text())
        expect(events.map((e) => EventSchemas.safeParse(JSON.parse(e)).success)).toEqual([false])
      })
    }))

  it("ai-sdk and ag-ui: a huge ask adds a 5 MB event the library still parses", () =>
    withStandInProcess({ protocol: "ai-sdk" }, async (s) => {
      s.setFaults([{ route: "ask", kind: "huge" }])
      const text = await (await ask(s, "ai-sdk")).text()
      const chunks = sseData(text).slice(0, -1).map((d) =>
        JSON.parse(d) as { type?: string; data?: string; transient?: boolean }
      )
      const padding = chunks.find((c) => c.type === "data-padding")
      expect([padding?.data?.length, padding?.transient]).toEqual([5 * 1024 * 1024, true])
      const results = parseJsonEventStream({ stream: new Response(text).body!, schema: uiMessageChunkSchema })
        .getReader()
      for (let next = await results.read(); !next.done; next = await results.read()) {
        expect(next.value.success).toBe(true)
      }
      await withStandInProcess({ protocol: "ag-ui" }, async (a) => {
        a.setFaults([{ route: "ask", kind: "huge" }])
        const events = sseData(await (await ask(a, "ag-ui")).text()).map((d) =>
          JSON.parse(d) as { type: string; name?: string }
        )
        expect(events.at(-2)).toMatchObject({ type: "CUSTOM", name: "padding" })
        expect(events.every((e) => EventSchemas.safeParse(e).success)).toBe(true)
      })
    }))

  it("ai-sdk and ag-ui: a no-result ask leaves the first call started, its input sent, and no result", async () => {
    // The same question of two stand-ins, one clean and one faulted: the faulted stream is the clean one less
    // the first call's result (and on ai-sdk the sources that result surfaced), which each library still reads.
    const streams = async (protocol: "ai-sdk" | "ag-ui") => {
      const read = (faults: ReadonlyArray<FaultKind>) =>
        withStandInProcess({ protocol }, async (s) => {
          s.setFaults(faults.map((f) => ({ ...f, route: "ask" })))
          const data = sseData(await (await ask(s, protocol)).text()).filter((d) => d !== "[DONE]")
          // The AI SDK turn's id is the stand-in's, new each run: the two streams are compared without it.
          const turnId = (JSON.parse(data[0]!) as { messageId?: string }).messageId
          return data.map((d) =>
            JSON.parse(turnId === undefined ? d : d.replaceAll(turnId, "turn")) as { type: string; toolCallId?: string }
          )
        })
      const clean = await read([])
      const faulted = await read([{ kind: "no-result" }])
      const missing = clean.filter((c) => !faulted.some((f) => isDeepStrictEqual(f, c)))
      expect(faulted).toEqual(clean.filter((c) => !missing.includes(c)))
      return { faulted, missing }
    }
    const aiSdk = await streams("ai-sdk")
    const [output, ...sources] = aiSdk.missing
    expect(output).toMatchObject({ type: "tool-output-available", toolCallId: expect.stringMatching(/-call-1$/) })
    expect(sources.map((c) => c.type)).toEqual(sources.map(() => "source-url"))
    const chunks = parseJsonEventStream({
      stream: new Response(aiSdk.faulted.map((c) => `data: ${JSON.stringify(c)}\n\n`).join("")).body!,
      schema: uiMessageChunkSchema
    }).getReader()
    const parsed: Array<unknown> = []
    for (let next = await chunks.read(); !next.done; next = await chunks.read()) {
      expect(next.value.success).toBe(true)
      if (next.value.success) parsed.push(next.value.value)
    }
    let message: UIMessage | undefined
    const stream = new ReadableStream({
      start(controller) {
        for (const chunk of parsed) controller.enqueue(chunk)
        controller.close()
      }
    })
    for await (const read of readUIMessageStream({ stream: stream as never })) message = read
    const tools = (message?.parts ?? []).filter((p) => p.type.startsWith("tool-")) as ReadonlyArray<
      { type: string; state: string; output?: unknown }
    >
    expect(tools[0]).toMatchObject({ type: "tool-catalog", state: "input-available" })
    expect(tools[0]?.output).toBeUndefined()

    const agUi = await streams("ag-ui")
    expect(agUi.missing).toEqual([expect.objectContaining({ type: "TOOL_CALL_RESULT", toolCallId: "run-1-call-1" })])
    expect(agUi.faulted.filter((e) => e.toolCallId === "run-1-call-1").map((e) => e.type))
      .toEqual(["TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END"])
    expect(agUi.faulted.every((e) => EventSchemas.safeParse(e).success)).toBe(true)
  })

  it("langgraph: the thread and state reads and the delete take their faults, a 404 on the delete deleting all the same", () =>
    withStandInProcess({ protocol: "langgraph" }, async (s) => {
      await (await ask(s, "langgraph")).text()
      const [thread] = s.conversations()
      const signed = { "x-api-key": Redacted.value(s.token()) }
      s.setFaults([{ route: "trace", kind: "status", status: 500 }, { route: "conversation", kind: "not-json" }])
      const state = await fetchAt(s)(`${s.url}/threads/${thread!.id}/state`, { headers: signed })
      expect([state.status, await state.json()]).toEqual([500, { error: "injected HTTP 500" }])
      const read = await fetchAt(s)(`${s.url}/threads/${thread!.id}`, { headers: signed })
      expect([read.status, read.headers.get("content-type")]).toEqual([200, "text/html"])
      s.setFaults([{ route: "delete", kind: "status", status: 500 }])
      expect((await fetchAt(s)(`${s.url}/threads/${thread!.id}`, { method: "DELETE", headers: signed })).status).toBe(
        500
      )
      expect(s.conversations()).toHaveLength(1)
      s.setFaults([{ route: "delete", kind: "status", status: 404 }])
      expect((await fetchAt(s)(`${s.url}/threads/${thread!.id}`, { method: "DELETE", headers: signed })).status).toBe(
        404
      )
      expect(s.conversations()).toEqual([])
      expect(s.stats()).toMatchObject({
        created: 1,
        deleted: 1,
        requests: { ask: 2, conversation: 1, trace: 1, delete: 2 }
      })
    }))

  it("refuses a fault no served protocol can take, naming why", () =>
    withStandInProcess({ protocol: "ai-sdk" }, async (s) => {
      const refused = (fault: FaultKind & { route: "ask" | "trace" }) => () => s.setFaults([fault])
      expect(refused({ route: "trace", kind: "hang" })).toThrow("a trace fault: ai-sdk has no trace route")
      expect(refused({ route: "ask", kind: "id", id: ".." })).toThrow(
        "an id= fault: ai-sdk takes its ids from the client, so the app names no id to change (turn-eval and langgraph do)"
      )
      await withStandInProcess({ protocol: "ag-ui" }, async (a) => {
        expect(() => a.setFaults([{ route: "ask", kind: "opened", status: 500 }])).toThrow(
          "an opened= fault: ag-ui opens no conversation an answer could fail after"
        )
        expect(() => a.setFaults([{ route: "delete", kind: "hang" }])).toThrow(
          "a delete fault: ag-ui has no delete route"
        )
      })
      const set = await Effect.runPromise(goldenSet)
      const started = start({
        catalog: set.catalog,
        protocol: "ag-ui",
        faults: [{ route: "ask", kind: "id", id: ".." }]
      })
      const exit = await Effect.runPromiseExit(Effect.scoped(started))
      expect(Exit.isFailure(exit) && Cause.squash(exit.cause)).toEqual(
        new Error(
          "an id= fault: ag-ui takes its ids from the client, so the app names no id to change (turn-eval and langgraph do)"
        )
      )
    }))
})
