/**
 * The stand-in as an AG-UI agent: every event it streams is one of `@ag-ui/core`'s event schemas and
 * framed exactly as `@ag-ui/encoder`'s EventEncoder frames it, the run reads back as the stand-in's
 * turn, a gated turn finishes with an interrupt outcome, and nothing is kept.
 */
import { EventSchemas } from "@ag-ui/core/schemas"
import { EventEncoder } from "@ag-ui/encoder"
import { describe, expect, it } from "@effect/vitest"
import { agUiEvents } from "../../src/Protocols/AgUi/Wire.js"
import { respondWithFlaws } from "../../src/StandIn/Flaws.js"
import type { StandIn } from "../../src/StandIn/Server.js"
import { withStandInProcess } from "../support/live.js"
import {
  expectedRead,
  failedTurn,
  gatedQuestion,
  post,
  type ReadTurn,
  readTurn,
  runInput,
  sseData,
  toolErrorQuestion,
  wireQuestions
} from "./wires.js"

const endpoints: Readonly<Record<string, string>> = { docs: "/api/ai/docs/ask", "ops-agent": "/api/ai/agent/ask" }

const run = (s: StandIn, surface: string, runId: string, question: string) =>
  post(s, endpoints[surface]!, runInput(`thread-${runId}`, runId, question))

type Event = { readonly type: string } & Record<string, unknown>

/** The turn a client reads from a run's events. */
const turnFromEvents = (events: ReadonlyArray<Event>): ReadTurn => {
  const calls = new Map<string, { tool: string; args: string }>()
  const executions: Array<ReadTurn["executions"][number]> = []
  let answer = ""
  let failed = false
  let interrupts: ReadonlyArray<{ id: string; toolCallId: string }> = []
  for (const e of events) {
    if (e.type === "TOOL_CALL_START") {
      calls.set(e["toolCallId"] as string, { tool: e["toolCallName"] as string, args: "" })
    }
    if (e.type === "TOOL_CALL_ARGS") calls.get(e["toolCallId"] as string)!.args += e["delta"] as string
    if (e.type === "TOOL_CALL_RESULT") {
      const call = calls.get(e["toolCallId"] as string)!
      const content = e["content"] as string
      // AG-UI has no error flag: a result is an error by its text alone.
      executions.push(
        content.startsWith("Error: ")
          ? { tool: call.tool, input: JSON.parse(call.args), error: content.slice("Error: ".length) }
          : { tool: call.tool, input: JSON.parse(call.args), output: JSON.parse(content) as unknown }
      )
    }
    if (e.type === "TEXT_MESSAGE_CONTENT") answer += e["delta"] as string
    if (e.type === "RUN_ERROR") failed = true
    if (e.type === "RUN_FINISHED") {
      const outcome = e["outcome"] as
        | { type: string; interrupts?: ReadonlyArray<{ id: string; toolCallId: string }> }
        | undefined
      interrupts = outcome?.type === "interrupt" ? outcome.interrupts ?? [] : []
    }
  }
  const waiting = interrupts.map((i) => calls.get(i.toolCallId)!)
  return readTurn({
    answer,
    outcome: failed ? "error" : interrupts.length > 0 ? "awaiting-approval" : "answered",
    executions,
    proposal: interrupts[0] === undefined
      ? null
      : { id: interrupts[0].id, actions: waiting.map((c) => ({ tool: c.tool, input: JSON.parse(c.args) as unknown })) }
  })
}

/** The events of a stream, each held to AG-UI's event schemas and to the encoder's framing of it. */
const eventsOf = (text: string): ReadonlyArray<Event> => {
  const encoder = new EventEncoder()
  const frames = text.split(/(?<=\n\n)/)
  return sseData(text).map((data, i) => {
    const parsed = EventSchemas.safeParse(JSON.parse(data))
    if (!parsed.success) throw new Error(`an event AG-UI's schemas reject: ${data}: ${parsed.error.message}`)
    expect(encoder.encodeSSE(JSON.parse(data) as never)).toBe(frames[i])
    return JSON.parse(data) as Event
  })
}

const questions = wireQuestions

describe("the stand-in as an AG-UI agent", () => {
  it("streams every golden question's run, a tool error and each flaw as AG-UI events that read back as the turn, keeping nothing", () =>
    withStandInProcess({ protocol: "ag-ui" }, async (s) => {
      for (const [i, q] of questions.entries()) {
        const response = await run(s, q.surface, `run-${i}`, q.question)
        expect([response.status, response.headers.get("content-type")], q.id).toEqual([200, "text/event-stream"])
        const events = eventsOf(await response.text())
        expect(events[0], q.id).toEqual({ type: "RUN_STARTED", threadId: `thread-run-${i}`, runId: `run-${i}` })
        expect(events.at(-1)?.type, q.id).toBe("RUN_FINISHED")
        expect(turnFromEvents(events), q.id).toEqual(expectedRead(respondWithFlaws(q.surface, q.question)))
      }
      expect(s.stats()).toMatchObject({ created: 0, requests: { ask: questions.length } })
      expect(s.conversations()).toEqual([])
    }))

  it("finishes a gated run with an interrupt outcome: a tool_call interrupt on the gated call, named by the proposal's id", () =>
    withStandInProcess({ protocol: "ag-ui" }, async (s) => {
      const turn = respondWithFlaws(gatedQuestion.surface, gatedQuestion.question)
      const events = eventsOf(await (await run(s, gatedQuestion.surface, "gated", gatedQuestion.question)).text())
      expect(events.slice(-4)).toEqual([
        { type: "TOOL_CALL_START", toolCallId: "gated-call-3", toolCallName: "deploy" },
        {
          type: "TOOL_CALL_ARGS",
          toolCallId: "gated-call-3",
          delta: JSON.stringify({ service: "payments-api", environment: "production", release: "r2024.06.11.1" })
        },
        { type: "TOOL_CALL_END", toolCallId: "gated-call-3" },
        {
          type: "RUN_FINISHED",
          threadId: "thread-gated",
          runId: "gated",
          outcome: {
            type: "interrupt",
            interrupts: [{
              id: turn.proposal!.id,
              reason: "tool_call",
              message: "Roll back payments-api in production to r2024.06.11.1",
              toolCallId: "gated-call-3"
            }]
          },
          usage: [{ model: "stand-in", inputTokens: turn.usage!.inputTokens, outputTokens: turn.usage!.outputTokens }]
        }
      ])
      // The gated call has no result: it did not run.
      expect(events.filter((e) => e.type === "TOOL_CALL_RESULT").map((e) => e["toolCallId"])).toEqual([
        "gated-call-1",
        "gated-call-2"
      ])
    }))

  it("carries a failed tool call as a result whose content is the error after Error: (AG-UI has no error flag)", () =>
    withStandInProcess({ protocol: "ag-ui" }, async (s) => {
      const events = eventsOf(await (await run(s, "docs", "err", toolErrorQuestion.question)).text())
      expect(events.filter((e) => e.type === "TOOL_CALL_RESULT")).toEqual([
        {
          type: "TOOL_CALL_RESULT",
          messageId: "err-result-1",
          toolCallId: "err-call-1",
          content: "Error: no catalog entry for ledger-api",
          role: "tool"
        }
      ])
    }))

  it("ends a run that failed with RUN_ERROR instead of RUN_FINISHED", () => {
    const events = agUiEvents(failedTurn, "t", "r")
    for (const e of events) expect(EventSchemas.safeParse(e).success).toBe(true)
    expect(events.map((e) => e.type))
      .toEqual(["RUN_STARTED", "TOOL_CALL_START", "TOOL_CALL_ARGS", "TOOL_CALL_END", "TOOL_CALL_RESULT", "RUN_ERROR"])
    // What the calls before the failure used comes with the error, as AG-UI 1.0 allows.
    expect(events.at(-1)).toEqual({
      type: "RUN_ERROR",
      message: "the model provider is overloaded",
      usage: [{
        model: "stand-in",
        inputTokens: failedTurn.usage!.inputTokens,
        outputTokens: failedTurn.usage!.outputTokens
      }]
    })
    expect(turnFromEvents(events)).toEqual(expectedRead(failedTurn))
  })
})
