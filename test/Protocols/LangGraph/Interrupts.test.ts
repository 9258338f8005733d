/**
 * The proposals the LangGraph reader takes from the interrupts real graphs make: the real LangGraph JS
 * server runs a graph that calls LangGraph's `interrupt` with each value shape the docs name (those of
 * LangGraph's own types and guides), and the turn is read from what the server answered.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { defaultEvidence } from "../../../src/Evidence/Rules.js"
import { langGraphRunBody, readLangGraphTurn, runIdFromLocation } from "../../../src/Protocols/LangGraph/Client.js"
import type { Proposal } from "../../../src/Schema/Trace.js"
import { type LangGraphApp, startLangGraphApp } from "../../support/apps/langGraphApp.js"

const json = { "content-type": "application/json" }

const refund = { orderId: "42" }

/** LangGraph's `HumanInterrupt` (the prebuilt type Agent Inbox reads), asking to approve a refund. */
const humanInterrupt = {
  action_request: { action: "issue_refund", args: refund },
  config: { allow_ignore: true, allow_respond: true, allow_edit: false, allow_accept: true },
  description: "Refund order 42?"
}

/** The tool call the review-tool-calls guide interrupts with, as LangChain records one. */
const toolCall = { name: "issue_refund", args: refund, id: "call_1", type: "tool_call" }

/** Each question the `interrupts` graph is asked, the value it interrupts with, and the proposal it leaves but its id. */
const cases: ReadonlyArray<{ question: string; value: unknown; proposal: Omit<Proposal, "id"> }> = [
  {
    question: "An Agent Inbox request?",
    value: [humanInterrupt],
    proposal: { summary: "issue_refund", actions: [humanInterrupt.action_request] }
  },
  {
    question: "A HumanInterrupt?",
    value: humanInterrupt,
    proposal: { summary: "issue_refund", actions: [humanInterrupt.action_request] }
  },
  {
    question: "A tool call to review?",
    value: { question: "Is this correct?", tool_call: toolCall },
    proposal: { summary: "issue_refund", actions: [toolCall] }
  },
  {
    question: "A bare action request?",
    value: { action: "run_query", args: { sql: "select 1" }, description: "Please review" },
    proposal: {
      summary: "run_query",
      actions: [{ action: "run_query", args: { sql: "select 1" }, description: "Please review" }]
    }
  },
  {
    question: "A query for a person?",
    value: { query: "Which order do you mean?" },
    proposal: { summary: "Which order do you mean?" }
  },
  { question: "A question alone?", value: { question: "Is this correct?" }, proposal: { summary: "Is this correct?" } },
  {
    question: "Text?",
    value: "Approve the refund of order 42?",
    proposal: { summary: "Approve the refund of order 42?" }
  },
  { question: "Blank text?", value: " ", proposal: {} },
  { question: "Something else?", value: { textToRevise: "Hello" }, proposal: {} }
]

describe("a LangGraph interrupt's value, read as a proposal", () => {
  let app: LangGraphApp

  beforeAll(async () => {
    app = await startLangGraphApp({ interrupts: Object.fromEntries(cases.map((c) => [c.question, c.value])) })
  }, 20_000)

  afterAll(async () => {
    await app?.close()
  })

  /** Asks the `interrupts` graph as a live run does: open a thread, wait for the run, read the thread and its state. */
  const ask = async (question: string) => {
    const opened = await fetch(`${app.url}/threads`, { method: "POST", headers: json, body: "{}" })
    const { thread_id: threadId } = await opened.json() as { thread_id: string }
    const run = await fetch(`${app.url}/threads/${threadId}/runs/wait`, {
      method: "POST",
      headers: json,
      body: JSON.stringify(langGraphRunBody("interrupts", question))
    })
    expect(run.status).toBe(200)
    const body = JSON.parse(await run.text()) as unknown
    const thread = await (await fetch(`${app.url}/threads/${threadId}`)).json() as unknown
    const state = await (await fetch(`${app.url}/threads/${threadId}/state`)).json() as unknown
    const wire = { question, runId: runIdFromLocation(run.headers.get("content-location")), run: body, thread, state }
    return {
      body,
      read: readLangGraphTurn(wire, {
        surface: "ops",
        conversationId: threadId,
        gatedTools: [],
        evidence: defaultEvidence
      })
    }
  }

  it.each(cases)("$question", async ({ proposal, question, value }) => {
    const { body, read } = await ask(question)
    const interrupt = (body as { __interrupt__: ReadonlyArray<{ id: string; value: unknown }> }).__interrupt__[0]!
    expect(interrupt.value).toEqual(value)
    expect(Either.map(read, (turn) => [turn.trace.outcome, turn.trace.proposal])).toEqual(
      Either.right(["awaiting-approval", { id: interrupt.id, ...proposal }])
    )
  })
})
