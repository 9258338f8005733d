/**
 * The scripted scenarios (test/support/scenarios.ts) served by the real LangGraph JS server — the
 * in-memory server `@langchain/langgraph-api` runs for `langgraphjs dev`, with its Agent Protocol routes
 * (threads, runs, state) — over a LangChain `createAgent` graph named `support`. LangChain's fake chat
 * model plays each scenario's steps through the agent's real tool loop: `search_kb` is a retriever tool
 * (`responseFormat: "content_and_artifact"`, the documents as its artifact), `lookup_order` throws when
 * the scenario says so (the agent's tool node turns that into an error `ToolMessage` and the run goes
 * on), and `issue_refund` is gated by `humanInTheLoopMiddleware`, so the run interrupts before it runs.
 * With `usage`, the model reports the tokens of each call (usage.ts) as LangChain's chat models do, as
 * `usage_metadata` on its AI message; without it, it reports none, as LangChain's fake models do.
 *
 * The server loads graphs (and custom HTTP apps) from files by path, as `langgraph.json` names them;
 * each start writes two one-line modules into its own temporary directory that hand over the graph and
 * the request recorder made here. The server keeps its storage in module state, so one app runs in a
 * process at a time.
 */
import { Document, type DocumentInput } from "@langchain/core/documents"
import {
  AIMessage,
  type AIMessageFields,
  type BaseMessage,
  HumanMessage,
  ToolMessage,
  type UsageMetadata
} from "@langchain/core/messages"
import { fakeModel } from "@langchain/core/testing"
import { tool, type ToolRuntime } from "@langchain/core/tools"
import { END, interrupt, MessagesAnnotation, START, StateGraph } from "@langchain/langgraph"
import { Hono } from "hono"
import { type AgentMiddleware, createAgent, humanInTheLoopMiddleware, type InterruptOnConfig } from "langchain"
import { mkdtemp, rm, writeFile } from "node:fs/promises"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { z } from "zod"
import { answerOf, type Scenario, type ScenarioCall, scenarioFor } from "../scenarios.js"
import { modelCallUsage } from "./usage.js"

/** One request the server received, as it arrived. */
export interface RecordedRequest {
  readonly method: string
  readonly url: string
  readonly headers: Readonly<Record<string, string>>
  /** The body, as text (empty for none). */
  readonly body: string
}

/** A running LangGraph server on loopback. */
export interface LangGraphApp {
  /** Where it listens: `http://127.0.0.1:PORT`. */
  readonly url: string
  /** The ids of the threads the server holds. */
  readonly threads: () => Promise<ReadonlyArray<string>>
  /** Every request it received, in order. */
  readonly requests: ReadonlyArray<RecordedRequest>
  /** Every tool the agent's tools ran, with its input, in order. */
  readonly ran: ReadonlyArray<{ readonly tool: string; readonly input: unknown }>
  /** Stops the server and removes its files. */
  readonly close: () => Promise<void>
}

/** How to start the app: with `auth`, a request without that header value is answered 401. */
export interface LangGraphAppOptions {
  readonly auth?: { readonly header: string; readonly value: string }
  /** The model reports the tokens of each call (`usage_metadata` on its AI messages). */
  readonly usage?: boolean
  /** Values the `interrupts` graph interrupts with, by the question that asks for each. */
  readonly interrupts?: Readonly<Record<string, unknown>>
}

/** The text of a message's content, whichever form it has. */
const textOf = (message: BaseMessage): string => message.text

/** The scenario a conversation is in: the one of its last human message, and the messages after it. */
const scenarioOf = (
  messages: ReadonlyArray<BaseMessage>
): { scenario: Scenario | undefined; after: ReadonlyArray<BaseMessage> } => {
  const last = messages.map((m) => HumanMessage.isInstance(m)).lastIndexOf(true)
  return {
    scenario: last < 0 ? undefined : scenarioFor(textOf(messages[last]!)),
    after: last < 0 ? [] : messages.slice(last + 1)
  }
}

/**
 * The AI message of the turn's `n`-th model call, reporting its tokens when `usage` says so. LangChain's
 * field types make `usage_metadata` `undefined` for messages of its default structure: the fields are
 * given as its own type.
 */
const aiMessage = (n: number, usage: boolean, fields: Pick<AIMessageFields, "content" | "tool_calls">): AIMessage => {
  const counts = modelCallUsage(n)
  const metadata: UsageMetadata = {
    input_tokens: counts.inputTokens,
    output_tokens: counts.outputTokens,
    total_tokens: counts.inputTokens + counts.outputTokens
  }
  return new AIMessage({ ...fields, ...(usage ? { usage_metadata: metadata } : {}) } as AIMessageFields)
}

/** The model's next step in a conversation: the scenario's next tool call, then its answer or failure. */
const nextStep = (usage: boolean) => (messages: ReadonlyArray<BaseMessage>): BaseMessage | Error => {
  const { after, scenario } = scenarioOf(messages)
  const step = after.filter((m) => AIMessage.isInstance(m)).length
  if (scenario === undefined) {
    return aiMessage(step + 1, usage, { content: "I can only answer the scripted questions." })
  }
  const call = scenario.calls[step]
  if (call !== undefined) {
    return aiMessage(step + 1, usage, {
      content: "",
      tool_calls: [{ name: call.tool, args: call.input, id: `call_${step + 1}`, type: "tool_call" }]
    })
  }
  // A call that fails reports no tokens, as a provider that answers an error does.
  if (scenario.fails !== undefined) return new Error(scenario.fails)
  return aiMessage(step + 1, usage, { content: answerOf(scenario, decisionIn(scenario, after)) })
}

/**
 * The decision a person made on the turn's gated call, as the thread holds it: the middleware answers
 * a rejection with an error tool message; an approved call's tool message is the tool's own result.
 */
const decisionIn = (scenario: Scenario, after: ReadonlyArray<BaseMessage>): "approved" | "denied" | undefined => {
  const gated = scenario.calls.find((call) => call.needsApproval === true)?.tool
  const result = after.find((m) => ToolMessage.isInstance(m) && m.name === gated) as ToolMessage | undefined
  return result === undefined ? undefined : result.status === "error" ? "denied" : "approved"
}

/** More steps than any scenario takes: the fake model answers each invocation from its own queue entry. */
const maxSteps = 8

/** The scenario call a tool is running for, from the conversation the agent hands the tool. */
const callFor = (toolName: ScenarioCall["tool"], state: unknown): ScenarioCall => {
  const messages = typeof state === "object" && state !== null && "messages" in state && Array.isArray(state.messages)
    ? state.messages as ReadonlyArray<BaseMessage>
    : []
  const call = scenarioOf(messages).scenario?.calls.find((c) => c.tool === toolName)
  if (call === undefined) throw new Error(`no scripted ${toolName} call for this conversation`)
  return call
}

/** A tool's result as the scenario scripts it: its output, or the error it throws. */
const scripted = (call: ScenarioCall): unknown => {
  if (call.error !== undefined) throw new Error(call.error)
  return call.output
}

/** Where the app notes each tool it runs. */
type Ran = Array<{ readonly tool: string; readonly input: unknown }>

/** The agent's tools; `search_kb` is a retriever tool returning the documents' text and the documents. */
const tools = (ran: Ran) => [
  tool(
    (input: { query: string }, runtime: ToolRuntime): [string, Array<Document>] => {
      ran.push({ tool: "search_kb", input })
      // The scenarios script a retriever's documents: `{pageContent, metadata: {source}}`.
      const found = scripted(callFor("search_kb", runtime.state)) as ReadonlyArray<DocumentInput>
      const documents = found.map((d) => new Document(d))
      // As LangChain's retrieval tutorial formats them for the model; the documents go in the artifact.
      const text = documents.map((d) => `Source: ${String(d.metadata["source"])}\nContent: ${d.pageContent}`).join(
        "\n\n"
      )
      return [text, documents]
    },
    {
      name: "search_kb",
      description: "Search the knowledge base",
      schema: z.object({ query: z.string() }),
      responseFormat: "content_and_artifact"
    }
  ),
  tool(
    (input: { orderId: string }, runtime: ToolRuntime) => {
      ran.push({ tool: "lookup_order", input })
      return JSON.stringify(scripted(callFor("lookup_order", runtime.state)))
    },
    { name: "lookup_order", description: "Look up an order", schema: z.object({ orderId: z.string() }) }
  ),
  tool(
    (input: { orderId: string }, runtime: ToolRuntime) => {
      ran.push({ tool: "issue_refund", input })
      return JSON.stringify(scripted(callFor("issue_refund", runtime.state)))
    },
    { name: "issue_refund", description: "Refund an order", schema: z.object({ orderId: z.string() }) }
  )
]

/**
 * `humanInTheLoopMiddleware` as its documentation types it: langchain's own types for it collapse to
 * `never` under `exactOptionalPropertyTypes` (its zod context schema's optional fields).
 */
const humanInTheLoop = humanInTheLoopMiddleware as unknown as (options: {
  interruptOn: Readonly<Record<string, InterruptOnConfig>>
}) => AgentMiddleware

/** Refunds wait for a person's approval. */
const approval = humanInTheLoop({ interruptOn: { issue_refund: { allowedDecisions: ["approve", "reject"] } } })

/**
 * The `support` graph, made afresh for each run (a graph factory, as `langgraph.json` allows), so each
 * run's fake model starts at the first of its queued steps.
 */
const supportGraph = (usage: boolean, ran: Ran) => () => {
  let model = fakeModel()
  for (let i = 0; i < maxSteps; i++) model = model.respond(nextStep(usage))
  return createAgent({
    model,
    tools: tools(ran),
    name: "support",
    middleware: [approval]
  })
}

/**
 * The `interrupts` graph: one node that calls LangGraph's `interrupt` with the value its question names,
 * as a graph of an app's own interrupts for a person's review; resumed, it answers with what it was
 * resumed with.
 */
const interruptsGraph = (values: Readonly<Record<string, unknown>>) => () =>
  new StateGraph(MessagesAnnotation)
    .addNode("review", (state) => {
      const resumed: unknown = interrupt(values[state.messages.at(-1)?.text ?? ""] ?? null)
      return { messages: [new AIMessage(`resumed with ${JSON.stringify(resumed)}`)] }
    })
    .addEdge(START, "review")
    .addEdge("review", END)
    .compile()

/** What each start hands the modules it writes. */
interface Handoff {
  readonly support: ReturnType<typeof supportGraph>
  readonly interrupts: ReturnType<typeof interruptsGraph>
  readonly app: Hono
}

declare global {
  var turnEvalLangGraphApps: Map<string, Handoff> | undefined
}

let starts = 0

/** A one-line module that exports a value of this start's handoff, for the server to import by path. */
const handoffModule = (key: string, name: keyof Handoff): string =>
  `export const ${name} = globalThis.turnEvalLangGraphApps.get(${JSON.stringify(key)}).${name}\n`

/** The header of the app's own look-ups (`threads()`), which are not recorded. */
const inspecting = "x-turn-eval-test-app"

/** The custom HTTP app in front of the server's routes: it records each request and checks `auth`. */
const frontApp = (requests: Array<RecordedRequest>, auth: LangGraphAppOptions["auth"]): Hono => {
  const app = new Hono()
  app.use(async (c, next) => {
    if (c.req.header(inspecting) === undefined) {
      const body = await c.req.raw.clone().text()
      requests.push({ method: c.req.method, url: c.req.url, headers: Object.fromEntries(c.req.raw.headers), body })
    }
    if (auth !== undefined && c.req.header(auth.header) !== auth.value) return c.text("Unauthorized", 401)
    await next()
  })
  return app
}

/** Starts the real LangGraph server on 127.0.0.1, a free port, serving the `support` graph. */
export const startLangGraphApp = async (options: LangGraphAppOptions = {}): Promise<LangGraphApp> => {
  // The server logs every request, and every failed run with its stack, unless told otherwise: it reads
  // LOG_LEVEL once, on import, and hands its logger to graphs under a global symbol. Tests that set
  // LOG_LEVEL see its logs; others see none.
  const quiet = process.env["LOG_LEVEL"] === undefined
  process.env["LOG_LEVEL"] ??= "error"
  const { startServer } = await import("@langchain/langgraph-api/server")
  const key = `${process.pid}-${++starts}`
  const dir = await mkdtemp(join(tmpdir(), "turn-eval-langgraph-"))
  const requests: Array<RecordedRequest> = []
  const ran: Ran = []
  const handoffs = (globalThis.turnEvalLangGraphApps ??= new Map())
  handoffs.set(key, {
    support: supportGraph(options.usage === true, ran),
    interrupts: interruptsGraph(options.interrupts ?? {}),
    app: frontApp(requests, options.auth)
  })
  await writeFile(join(dir, "graph.mjs"), handoffModule(key, "support"))
  await writeFile(join(dir, "interrupts.mjs"), handoffModule(key, "interrupts"))
  await writeFile(join(dir, "app.mjs"), handoffModule(key, "app"))
  const { cleanup, host } = await startServer({
    port: 0,
    nWorkers: 4,
    host: "127.0.0.1",
    cwd: dir,
    graphs: { support: "./graph.mjs:support", interrupts: "./interrupts.mjs:interrupts" },
    http: {
      app: "./app.mjs:app",
      disable_assistants: false,
      disable_threads: false,
      disable_runs: false,
      disable_store: false,
      disable_meta: false
    }
  })
  if (quiet) {
    const logger: unknown = Reflect.get(globalThis, Symbol.for("langgraph.api.sdk-logger"))
    if (typeof logger === "object" && logger !== null) Reflect.set(logger, "silent", true)
  }
  const url = `http://${host}`
  return {
    url,
    requests,
    ran,
    threads: async () => {
      const response = await fetch(`${url}/threads/search`, {
        method: "POST",
        headers: {
          "content-type": "application/json",
          [inspecting]: "threads",
          ...(options.auth === undefined ? {} : { [options.auth.header]: options.auth.value })
        },
        body: JSON.stringify({ limit: 1000 })
      })
      if (!response.ok) throw new Error(`POST /threads/search: ${response.status} ${await response.text()}`)
      const found = await response.json() as ReadonlyArray<{ thread_id: string }>
      return found.map((t) => t.thread_id)
    },
    close: async () => {
      // Stops listening and flushes storage; the server's run workers poll on (they have no stop), idle.
      await cleanup()
      handoffs.delete(key)
      await rm(dir, { recursive: true, force: true })
    }
  }
}
