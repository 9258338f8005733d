/**
 * The stand-in as LangGraph Server: `@langchain/langgraph-sdk`'s own Client creates a thread, waits
 * on a run, reads the thread and its state and deletes it; the messages are LangChain's own
 * serialisation; a gated turn interrupts as `humanInTheLoopMiddleware` does; and the routes take the
 * faults and the sign-ins a live run meets.
 */
import { describe, expect, it } from "@effect/vitest"
import { AIMessage, HumanMessage, ToolMessage } from "@langchain/core/messages"
import { Client } from "@langchain/langgraph-sdk"
import { Redacted } from "effect"
import { type LangChainMessage, runValues, threadMessages, uuid5 } from "../../src/Protocols/LangGraph/Wire.js"
import { respondWithFlaws } from "../../src/StandIn/Flaws.js"
import type { StandIn } from "../../src/StandIn/Server.js"
import { withStandIn } from "../support/live.js"
import {
  expectedRead,
  failedTurn,
  gatedQuestion,
  type ReadTurn,
  readTurn,
  toolErrorQuestion,
  wireQuestions
} from "./wires.js"

const clientOf = (s: StandIn, headers: Record<string, string> = {}) =>
  new Client({
    apiUrl: s.url,
    apiKey: Redacted.value(s.token()),
    defaultHeaders: headers,
    callerOptions: { maxRetries: 0 }
  })

const input = (question: string) => ({ input: { messages: [{ role: "user", content: question }] } })

/** A message as LangChain serialises it when built from this one's fields: the same, when the shape is LangChain's. */
const reserialised = (message: LangChainMessage): unknown => {
  const { type, ...fields } = message
  const made = type === "human"
    ? new HumanMessage(fields as never)
    : type === "ai"
    ? new AIMessage(fields as never)
    : new ToolMessage(fields as never)
  const dict = made.toDict()
  return JSON.parse(JSON.stringify({ ...dict.data, type: dict.type }))
}

interface Interrupt {
  readonly id: string
  readonly value: {
    readonly actionRequests: ReadonlyArray<
      { readonly name: string; readonly args: unknown; readonly description: string }
    >
  }
}

/** The turn a client reads from a thread's state: its tool messages by their calls, the last AI message, the interrupt. */
const turnFromState = (
  messages: ReadonlyArray<LangChainMessage>,
  interrupts: ReadonlyArray<Interrupt>,
  failed: boolean
) => {
  const calls = new Map<string, { name: string; args: unknown }>()
  for (const m of messages) {
    if (m.type !== "ai") continue
    for (const call of m["tool_calls"] as ReadonlyArray<{ id: string; name: string; args: unknown }>) {
      calls.set(call.id, call)
    }
  }
  const executions = messages.flatMap((m): ReadTurn["executions"] => {
    if (m.type !== "tool") return []
    const call = calls.get(m["tool_call_id"] as string)!
    const content = m["content"] as string
    return m["status"] === "error"
      ? [{ tool: call.name, input: call.args, error: content }]
      : [{ tool: call.name, input: call.args, output: JSON.parse(content) as unknown }]
  })
  const last = messages.at(-1)
  const [interrupt] = interrupts
  return readTurn({
    answer: !failed && last?.type === "ai" ? last["content"] as string : "",
    outcome: failed ? "error" : interrupt !== undefined ? "awaiting-approval" : "answered",
    executions,
    proposal: interrupt === undefined
      ? null
      : { id: interrupt.id, actions: interrupt.value.actionRequests.map((a) => ({ tool: a.name, input: a.args })) }
  })
}

const questions = wireQuestions

describe("the stand-in as LangGraph Server", () => {
  it("names an assistant by its graph's id as the server does (uuid5 in LangGraph's namespace)", () => {
    // The id the real server (@langchain/langgraph-api 1.5.1) gave a graph registered as `agent`.
    expect(uuid5("agent")).toBe("fe096781-5601-53d2-b2f6-0d3403f7e9ca")
  })

  it("answers every golden question, a tool error and each flaw through the SDK's Client; the thread's state reads back as the turn", () =>
    withStandIn({ protocol: "langgraph", maxConversations: 100 }, async (s) => {
      const client = clientOf(s)
      for (const q of questions) {
        const thread = await client.threads.create()
        expect(thread.thread_id, q.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/)
        expect(thread.status).toBe("idle")
        let runId = ""
        const values = await client.runs.wait(thread.thread_id, q.surface, {
          ...input(q.question),
          onRunCreated: ({ run_id }) => (runId = run_id)
        }) as Record<string, unknown>
        const turn = respondWithFlaws(q.surface, q.question)
        const state = await client.threads.getState<{ messages: ReadonlyArray<LangChainMessage> }>(thread.thread_id)
        const interrupts = state.tasks.flatMap((t) => t.interrupts) as ReadonlyArray<Interrupt>
        expect(turnFromState(state.values.messages, interrupts, false), q.id).toEqual(expectedRead(turn))
        for (const m of state.values.messages) expect(reserialised(m), q.id).toEqual(m)
        // The run's values: the messages, or, stopped for approval, the interrupt alone, as the server answers.
        expect(values, q.id).toEqual(
          interrupts.length > 0 ? { __interrupt__: interrupts } : { messages: state.values.messages }
        )
        expect(runId, q.id).toBe(s.conversations().find((c) => c.id === thread.thread_id)?.turnId)
        const read = await client.threads.get(thread.thread_id)
        expect([read.status, read.values], q.id).toEqual([interrupts.length > 0 ? "interrupted" : "idle", state.values])
        expect(read.metadata).toEqual({ graph_id: q.surface, assistant_id: uuid5(q.surface) })
      }
      const n = questions.length
      expect(s.stats()).toMatchObject({ created: n, requests: { ask: 2 * n, conversation: n, trace: n } })
    }))

  it("interrupts a gated turn as humanInTheLoopMiddleware does: the thread waits on the gated call, named by the proposal's id", () =>
    withStandIn({ protocol: "langgraph" }, async (s) => {
      const client = clientOf(s)
      const turn = respondWithFlaws(gatedQuestion.surface, gatedQuestion.question)
      const thread = await client.threads.create()
      const values = await client.runs.wait(thread.thread_id, gatedQuestion.surface, input(gatedQuestion.question))
      const release = { service: "payments-api", environment: "production", release: "r2024.06.11.1" }
      const interrupt = {
        id: turn.proposal!.id,
        value: {
          actionRequests: [{
            name: "deploy",
            args: release,
            description: "Roll back payments-api in production to r2024.06.11.1"
          }],
          reviewConfigs: [{ actionName: "deploy", allowedDecisions: ["approve", "edit", "reject"] }]
        }
      }
      expect(values).toEqual({ __interrupt__: [interrupt] })
      const state = await client.threads.getState<{ messages: ReadonlyArray<LangChainMessage> }>(thread.thread_id)
      expect(state.next).toEqual(["HumanInTheLoopMiddleware.after_model"])
      expect(state.tasks.map((t) => [t.name, t.error, t.interrupts])).toEqual([[
        "HumanInTheLoopMiddleware.after_model",
        null,
        [interrupt]
      ]])
      const last = state.values.messages.at(-1)!
      expect([
        last.type,
        (last["tool_calls"] as ReadonlyArray<{ name: string; args: unknown }>).map((c) => [c.name, c.args])
      ])
        .toEqual(["ai", [["deploy", release]]])
      // No tool message answers the gated call: it did not run.
      expect(state.values.messages.filter((m) => m.type === "tool").map((m) => m["name"])).toEqual([
        "read_config",
        "propose_change"
      ])
      const read = await client.threads.get(thread.thread_id)
      expect([read.status, Object.values(read.interrupts)]).toEqual(["interrupted", [[interrupt]]])
    }))

  it("answers a failed tool call with a tool message of status error holding the error", () =>
    withStandIn({ protocol: "langgraph" }, async (s) => {
      const client = clientOf(s)
      const thread = await client.threads.create()
      const values = await client.runs.wait(thread.thread_id, "docs", input(toolErrorQuestion.question))
      const messages = (values as { messages: ReadonlyArray<LangChainMessage> }).messages
      expect(messages.filter((m) => m.type === "tool").map((m) => [m["name"], m["status"], m["content"]])).toEqual([
        ["catalog", "error", "no catalog entry for ledger-api"]
      ])
    }))

  it("answers a turn that failed as the server does a graph that threw: __error__ with its message serialised twice", () => {
    expect(runValues(failedTurn, threadMessages(failedTurn, "Which repo is search-api in?", "run-1"))).toEqual({
      __error__: { error: "Error", message: "{\"error\":\"Error\",\"message\":\"the model provider is overloaded\"}" }
    })
    // The thread keeps what ran before the failure, and no answer.
    expect(threadMessages(failedTurn, "Which repo is search-api in?", "run-1").map((m) => m.type)).toEqual([
      "human",
      "ai",
      "tool"
    ])
  })

  it("deletes a thread (204), then answers 404 for it as the server does; another account cannot reach it", () =>
    withStandIn({ protocol: "langgraph" }, async (s) => {
      const client = clientOf(s)
      const thread = await client.threads.create()
      await client.runs.wait(thread.thread_id, "docs", input("Which repo is search-api in?"))
      const other = new Client({
        apiUrl: s.url,
        apiKey: Redacted.value(s.token("other")),
        callerOptions: { maxRetries: 0 }
      })
      await expect(other.threads.get(thread.thread_id)).rejects.toThrow(/404/)
      await expect(other.threads.delete(thread.thread_id)).rejects.toThrow(/404/)
      await client.threads.delete(thread.thread_id)
      const again = await fetch(`${s.url}/threads/${thread.thread_id}`, {
        method: "DELETE",
        headers: { "x-api-key": Redacted.value(s.token()) }
      })
      expect([again.status, await again.text()]).toEqual([404, `Thread with ID ${thread.thread_id} not found`])
      expect(s.stats()).toMatchObject({ created: 1, deleted: 1 })
      expect(s.conversations()).toEqual([])
    }))
})
