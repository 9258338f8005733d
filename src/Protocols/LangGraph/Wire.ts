/**
 * LangGraph Server's own routes (the Agent Protocol), with the shapes `@langchain/langgraph-api`
 * answers: a thread is created (`POST /threads`), a run waited on (`POST /threads/{id}/runs/wait`,
 * its final values), the thread and its state read back, the thread deleted (204, 404 once gone). The
 * routes are at the root of the base URL, as one server serves every graph: a surface is the
 * assistant (graph) its `assistantId` names, its own name when it names none; its `endpoint` is not used.
 *
 * A stand-in turn maps onto a `createAgent` graph's messages, LangChain-serialised: the human
 * question; per tool execution an AI message calling the tool and a tool message with its result
 * (the output as JSON text) or its error (`status: "error"`, the error as the content); then an AI
 * message with the answer. The turn's usage is the `usage_metadata` of its last AI message, as
 * LangChain's chat models report a call's (the stand-in counts its turn's tokens, not each call's: the
 * sum over the turn's AI messages is the turn's). A pending proposal stops the run as
 * `humanInTheLoopMiddleware` does: the last AI message calls the gated tools, the thread is
 * `interrupted`, and the run's values are the interrupt alone (`{"__interrupt__": [{id, value:
 * {actionRequests, reviewConfigs}}]}`, the proposal's id as the interrupt's, its summary as each
 * action's description). A turn that ended in an error leaves the thread in `error` and the run's
 * values `{"__error__": …}`, as the server reports a graph that threw.
 */
import { createHash, randomUUID } from "node:crypto"
import { isRecord } from "../../Schema/Decode.js"
import type { Route } from "../../Schema/Protocol.js"
import type { ToolExecution, Usage } from "../../Schema/Trace.js"
import type { Decision } from "../../StandIn/Assistant.js"
import type { AssistantTurn } from "../../StandIn/Assistant.js"
import {
  deletesAnyway,
  injure,
  readJson,
  sendJson,
  sendText,
  type Target,
  templateMatcher,
  type WireRequest,
  type WireResponse
} from "../../StandIn/Http.js"
import type { StoredConversation, StoredExchange } from "../../StandIn/Server.js"
import type { Store } from "../../StandIn/Store.js"
import {
  answeredBy,
  type Handler,
  type Incoming,
  type MakeWire,
  pendingActions,
  type ServedSurface,
  surfacesOf
} from "../../StandIn/Wire.js"

/** The namespace LangGraph Server names a graph's assistant in (`uuid5(graphId, NAMESPACE_GRAPH)`). */
const graphNamespace = "6ba7b821-9dad-11d1-80b4-00c04fd430c8"

/** A name-based UUID (version 5), as LangGraph Server derives an assistant's id from its graph's. */
export const uuid5 = (name: string, namespace: string = graphNamespace): string => {
  const hash = createHash("sha1").update(Buffer.from(namespace.replace(/-/g, ""), "hex")).update(name).digest()
  hash[6] = (hash[6]! & 0x0f) | 0x50
  hash[8] = (hash[8]! & 0x3f) | 0x80
  const hex = hash.subarray(0, 16).toString("hex")
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`
}

/** A LangChain message as the server serialises it (`toDict()`'s data with its type). */
export type LangChainMessage = { readonly type: "human" | "ai" | "tool" } & Readonly<Record<string, unknown>>

/** The node `humanInTheLoopMiddleware` interrupts in, and the one a failed model call leaves next. */
const approvalNode = "HumanInTheLoopMiddleware.after_model"
const modelNode = "model_request"

/** What a run that stopped for approval interrupted with: one interrupt holding every gated action. */
export const interruptOf = (turn: AssistantTurn): ReadonlyArray<unknown> => {
  const actions = pendingActions(turn)
  const [first] = actions
  if (first === undefined) return []
  const description = (tool: string, input: unknown) =>
    turn.proposal?.summary ??
      `Tool execution requires approval\n\nTool: ${tool}\nArgs: ${JSON.stringify(input, null, 2)}`
  return [{
    id: first.approvalId,
    value: {
      actionRequests: actions.map((a) => ({ name: a.tool, args: a.input, description: description(a.tool, a.input) })),
      reviewConfigs: actions.map((a) => ({ actionName: a.tool, allowedDecisions: ["approve", "edit", "reject"] }))
    }
  }]
}

const kwargs = { additional_kwargs: {}, response_metadata: {} }

const aiMessage = (
  id: string,
  content: string,
  calls: ReadonlyArray<{ name: string; args: unknown; id: string }>
): LangChainMessage => ({
  content,
  tool_calls: calls.map((c) => ({ name: c.name, args: c.args, id: c.id, type: "tool_call" })),
  invalid_tool_calls: [],
  ...kwargs,
  id,
  name: "model",
  type: "ai"
})

/** A message id derived from a run's, so that every read gives the same. */
const idIn = (runId: string) => (what: string) => uuid5(`${runId}/${what}`)

/** A tool call's id, as a provider makes one up. */
const callIdOf = (id: (what: string) => string, what: string) => `call_${id(what).replace(/-/g, "").slice(0, 24)}`

/** The tool message an execution leaves: its output as JSON text, or its error (`status: "error"`). */
const toolMessage = (id: string, callId: string, execution: ToolExecution): LangChainMessage => {
  const failed = typeof execution.error === "string" && execution.error !== ""
  return {
    status: failed ? "error" : "success",
    content: failed
      ? execution.error
      : typeof execution.output === "string"
      ? execution.output
      : JSON.stringify(execution.output ?? null),
    tool_call_id: callId,
    name: execution.tool,
    ...kwargs,
    id,
    type: "tool"
  }
}

/** The calls of the gated tools a turn's last AI message makes, waiting for approval. */
const gatedCalls = (turn: AssistantTurn, runId: string) => {
  const id = idIn(runId)
  return pendingActions(turn).map((a, i) => ({ name: a.tool, args: a.input, id: callIdOf(id, `gated-${i + 1}`) }))
}

/** A turn's executions and answer as messages after its question: an AI message and a tool message per execution. */
const turnMessages = (turn: AssistantTurn, runId: string, from = 0): ReadonlyArray<LangChainMessage> => {
  const id = idIn(runId)
  const calls = turn.toolExecutions.flatMap((execution, at): ReadonlyArray<LangChainMessage> => {
    const i = from + at
    const callId = callIdOf(id, `call-${i + 1}`)
    return [
      aiMessage(`run-${id(`ai-${i + 1}`)}`, "", [{ name: execution.tool, args: execution.input ?? {}, id: callId }]),
      toolMessage(id(`tool-${i + 1}`), callId, execution)
    ]
  })
  return turn.outcome === "error"
    ? calls
    : [...calls, aiMessage(`run-${id("answer")}`, turn.answer, gatedCalls(turn, runId))]
}

/** A stand-in turn as a thread's messages; ids are derived from the run's, so every read gives the same. */
export const threadMessages = (
  turn: AssistantTurn,
  question: string,
  runId: string
): ReadonlyArray<LangChainMessage> => {
  const human: LangChainMessage = { content: question, ...kwargs, id: idIn(runId)("human"), type: "human" }
  return withUsage([human, ...turnMessages(turn, runId)], turn.usage)
}

/**
 * The messages a run that resumes a proposal's interrupt adds, as `humanInTheLoopMiddleware` and the
 * agent's tool node write them: each waiting call's tool message when the decided turn ran it with the
 * proposed input (under the call's own id), the middleware's rejection (`status: "error"`, the reason
 * as its content) for a denied call that did not run; then what else ran, and the answer.
 */
export const resumedMessages = (
  turn: AssistantTurn,
  before: { readonly turn: AssistantTurn; readonly turnId: string },
  decision: Decision,
  runId: string
): ReadonlyArray<LangChainMessage> => {
  const id = idIn(runId)
  const calls = gatedCalls(before.turn, before.turnId).map((call) => ({ ...call, tool: call.name, input: call.args }))
  const { answered, left } = answeredBy(turn, calls)
  const results = answered.flatMap(([call, execution], i): ReadonlyArray<LangChainMessage> => {
    if (execution !== undefined) return [toolMessage(id(`resumed-${i + 1}`), call.id, execution)]
    if (decision.approved) return []
    const reason = decision.reason === ""
      ? `User rejected the tool call for \`${call.name}\` with id ${call.id}`
      : decision.reason
    return [toolMessage(id(`rejected-${i + 1}`), call.id, { tool: call.name, error: reason })]
  })
  return withUsage([...results, ...turnMessages({ ...turn, toolExecutions: left }, runId)], turn.usage)
}

/** Every message of a thread: each exchange's, oldest first, then its current turn's. */
export const conversationMessages = (store: Store, thread: StoredConversation): ReadonlyArray<LangChainMessage> => {
  const exchanges: ReadonlyArray<StoredExchange> = [
    ...(thread.earlier ?? []),
    { turnId: thread.turnId, said: thread.question, decision: thread.decision, turn: store.turnOf(thread) }
  ]
  return exchanges.flatMap((exchange, i) => {
    const before = exchanges[i - 1]
    return exchange.decision === undefined || before === undefined
      ? threadMessages(exchange.turn, exchange.said, exchange.turnId)
      : resumedMessages(exchange.turn, before, exchange.decision, exchange.turnId)
  })
}

/** The messages with the turn's usage as the `usage_metadata` of the last AI message, as LangChain's chat models report it. */
const withUsage = (
  messages: ReadonlyArray<LangChainMessage>,
  usage: Usage | undefined
): ReadonlyArray<LangChainMessage> => {
  const last = messages.map((m) => m.type).lastIndexOf("ai")
  if (usage === undefined || last < 0) return messages
  const metadata = {
    input_tokens: usage.inputTokens,
    output_tokens: usage.outputTokens,
    total_tokens: usage.inputTokens + usage.outputTokens
  }
  return messages.map((m, i) => i === last ? { ...m, usage_metadata: metadata } : m)
}

/** What `runs/wait` answers for a turn: the final values (the thread's messages), the interrupt alone, or the error. */
export const runValues = (turn: AssistantTurn, messages: ReadonlyArray<LangChainMessage>): unknown => {
  if (turn.outcome === "error") {
    // The server serialises the worker's already-serialised error once more: its message is JSON text.
    return { __error__: { error: "Error", message: JSON.stringify({ error: "Error", message: turn.answer }) } }
  }
  const interrupts = interruptOf(turn)
  return interrupts.length > 0 ? { __interrupt__: interrupts } : { messages }
}

/** A thread's status for the turn it holds. */
const statusOf = (turn: AssistantTurn | undefined): "idle" | "interrupted" | "error" =>
  turn === undefined
    ? "idle"
    : turn.outcome === "error"
    ? "error"
    : interruptOf(turn).length > 0
    ? "interrupted"
    : "idle"

/** When a thread was created and last ran, which assistant ran on it, and the metadata it was created with. */
interface ThreadTimes {
  readonly createdAt: string
  updatedAt: string
  assistantId?: string
  readonly metadata: Readonly<Record<string, unknown>>
}

/** Whether `subset`'s keys all hold the same values in `superset`, objects compared key by key, as the server's search does. */
const contains = (superset: unknown, subset: Readonly<Record<string, unknown>>): boolean =>
  isRecord(superset) &&
  Object.entries(subset).every(([key, value]) =>
    superset[key] !== undefined && superset[key] !== null &&
    (isRecord(value) && isRecord(superset[key]) ? contains(superset[key], value) : superset[key] === value)
  )

const assistantOf = (s: ServedSurface) => s.surface.assistantId ?? s.name

/** LangGraph Server's thread and run routes. */
export const make: MakeWire = (context) => {
  const { store } = context
  const own = surfacesOf(context, "langgraph")
  const assistants: ReadonlyMap<string, ServedSurface> = new Map(own.map((s) => [assistantOf(s), s]))
  const times = new Map<string, ThreadTimes>()
  const root = context.prefix
  if (own.length === 0) return { route: () => undefined, serves: [] }
  const create = templateMatcher(root, "/threads")
  const search = templateMatcher(root, "/threads/search")
  const wait = templateMatcher(root, "/threads/{conversationId}/runs/wait")
  const thread = templateMatcher(root, "/threads/{conversationId}")
  const state = templateMatcher(root, "/threads/{conversationId}/state")

  const route = ({ method, request, response, target }: Incoming): Handler | undefined => {
    if (method === "POST" && create(target) !== undefined) {
      return () =>
        store.guard(request, response, "ask", (account) => createThread(store, times, request, response, account))
    }
    if (method === "POST" && search(target) !== undefined) {
      return () =>
        store.guard(
          request,
          response,
          "conversation",
          (account) => searchThreads(store, times, request, response, account)
        )
    }
    const waited = method === "POST" ? wait(target) : undefined
    if (waited !== undefined) {
      const threadId = waited.conversationId ?? ""
      return () =>
        store.guard(
          request,
          response,
          "ask",
          (account) => runWait(store, times, assistants, request, response, account, threadId)
        )
    }
    const read = method === "GET"
      ? withRoute("trace", state(target)) ?? withRoute("conversation", thread(target))
      : method === "DELETE"
      ? withRoute("delete", thread(target))
      : undefined
    if (read === undefined) return undefined
    return () =>
      store.guard(request, response, read.route, (account) => {
        const id = decodeURIComponent(read.id)
        const held = store.conversation(account, id)
        if (held?.protocol !== "langgraph") return sendText(response, 404, `Thread with ID ${id} not found`)
        return answerThread(store, times, response, read.route, held, target)
      })
  }

  return {
    route,
    serves: [
      `POST ${root}/threads, POST ${root}/threads/{thread_id}/runs/wait  ask the assistants ${
        [...assistants].map(([id, s]) => id === s.name ? s.name : `${id} (${s.name})`).join(", ")
      } (LangGraph Server)`,
      `GET ${root}/threads/{thread_id}, GET ${root}/threads/{thread_id}/state, DELETE ${root}/threads/{thread_id}  ` +
      "a thread, its state, delete it",
      `POST ${root}/threads/search  the account's threads whose metadata holds {"metadata": {…}}`
    ]
  }
}

const withRoute = (route: Route, found: { readonly conversationId?: string } | undefined) =>
  found === undefined ? undefined : { route, id: found.conversationId ?? "" }

const threadBody = (
  store: Store,
  times: ReadonlyMap<string, ThreadTimes>,
  thread: StoredConversation,
  threadId = thread.id
) => {
  const at = times.get(thread.id)
  const base = { thread_id: threadId, created_at: at?.createdAt, updated_at: at?.updatedAt }
  if (thread.turnId === "") return { ...base, metadata: { ...at?.metadata }, status: "idle", config: {} }
  const turn = store.turnOf(thread)
  const interrupts = interruptOf(turn)
  const taskId = uuid5(`${thread.turnId}/task`)
  return {
    ...base,
    // A run adds its graph and assistant to what the thread was created with, as the server does.
    metadata: { ...at?.metadata, graph_id: at?.assistantId, assistant_id: uuid5(at?.assistantId ?? "") },
    status: statusOf(turn),
    config: { configurable: {} },
    values: { messages: conversationMessages(store, thread) },
    interrupts: turn.outcome === "error" ? { [taskId]: [] } : interrupts.length > 0 ? { [taskId]: interrupts } : {}
  }
}

const stateBody = (store: Store, times: ReadonlyMap<string, ThreadTimes>, thread: StoredConversation) => {
  const checkpoint = (n: string) => ({
    thread_id: thread.id,
    checkpoint_id: uuid5(`${thread.turnId}/checkpoint-${n}`),
    checkpoint_ns: "",
    checkpoint_map: null
  })
  if (thread.turnId === "") {
    const none = { ...checkpoint("0"), checkpoint_id: null }
    return {
      values: {},
      next: [],
      tasks: [],
      metadata: {},
      created_at: null,
      checkpoint: none,
      parent_checkpoint: null
    }
  }
  const at = times.get(thread.id)
  const turn = store.turnOf(thread)
  const interrupts = interruptOf(turn)
  const task = (name: string, error: string | null, held: ReadonlyArray<unknown>) => ({
    id: uuid5(`${thread.turnId}/task`),
    name,
    error,
    interrupts: held,
    path: ["__pregel_pull", name],
    checkpoint: null,
    state: null,
    result: null
  })
  const tasks = turn.outcome === "error"
    ? [task(modelNode, JSON.stringify({ message: turn.answer, name: "Error" }), [])]
    : interrupts.length > 0
    ? [task(approvalNode, null, interrupts)]
    : []
  return {
    values: { messages: conversationMessages(store, thread) },
    next: tasks.map((t) => t.name),
    tasks,
    metadata: {
      graph_id: at?.assistantId,
      assistant_id: uuid5(at?.assistantId ?? ""),
      thread_id: thread.id,
      run_id: thread.turnId,
      source: "loop",
      step: 1 + 2 * turn.toolExecutions.length,
      parents: {}
    },
    created_at: at?.updatedAt ?? null,
    checkpoint: checkpoint("2"),
    parent_checkpoint: checkpoint("1")
  }
}

/** Answers a read or a delete of a thread the account holds. */
const answerThread = (
  store: Store,
  times: Map<string, ThreadTimes>,
  response: WireResponse,
  route: Route,
  thread: StoredConversation,
  target: Target
) => {
  const body = route === "trace"
    ? stateBody(store, times, thread)
    : route === "conversation"
    ? threadBody(store, times, thread)
    : {}
  const fault = store.faultFor(route, thread.question)
  const remove = () => {
    store.remove(thread)
    times.delete(thread.id)
  }
  if (fault !== undefined) {
    if (route === "delete" && deletesAnyway(fault)) remove()
    return injure(response, route, fault, target.path, body)
  }
  if (route !== "delete") return sendJson(response, 200, body)
  remove()
  response.writeHead(204)
  return void response.end()
}

const createThread = async (
  store: Store,
  times: Map<string, ThreadTimes>,
  request: WireRequest,
  response: WireResponse,
  account: string
) => {
  const body = await readJson(request)
  const asked = isRecord(body) && typeof body["thread_id"] === "string" && body["thread_id"] !== ""
    ? body["thread_id"]
    : undefined
  if (asked !== undefined && store.isTaken(asked)) {
    const mine = store.conversation(account, asked)
    const keep = mine !== undefined && isRecord(body) && body["if_exists"] === "do_nothing"
    if (keep) return sendJson(response, 200, threadBody(store, times, mine))
    return sendText(response, 409, "Thread already exists")
  }
  const metadata = isRecord(body) ? body["metadata"] : undefined
  if (metadata !== undefined && metadata !== null && !isRecord(metadata)) {
    return sendJson(response, 422, { error: "metadata: expected an object" })
  }
  // A thread's creation carries no question: of the ask's faults it takes only `id`, the thread named by another id.
  const fault = store.faultFor("ask", undefined, (f) => f.kind === "id")
  if (store.atCap(account)) {
    return sendJson(response, 429, { error: `conversation cap reached (${store.maxConversations} open)` })
  }
  const thread = store.openAs(account, "langgraph", asked ?? randomUUID())
  const now = new Date().toISOString()
  times.set(thread.id, { createdAt: now, updatedAt: now, metadata: isRecord(metadata) ? metadata : {} })
  return sendJson(response, 200, threadBody(store, times, thread, fault?.kind === "id" ? fault.id : thread.id))
}

/**
 * `POST /threads/search`: the account's threads whose metadata holds the body's `metadata`, newest
 * first, `limit` (default 10, at most 1000) from `offset`, as the server answers them.
 */
const searchThreads = async (
  store: Store,
  times: ReadonlyMap<string, ThreadTimes>,
  request: WireRequest,
  response: WireResponse,
  account: string
) => {
  const body = await readJson(request)
  const query = isRecord(body) ? body : {}
  const metadata = query["metadata"]
  const limit = query["limit"] ?? 10
  const offset = query["offset"] ?? 0
  if (
    (metadata !== undefined && !isRecord(metadata)) || !Number.isInteger(limit) || (limit as number) < 1 ||
    (limit as number) > 1000 || !Number.isInteger(offset) || (offset as number) < 0
  ) {
    return sendJson(response, 422, { error: "expected {\"metadata\"?: {…}, \"limit\"?: 1–1000, \"offset\"?: n}" })
  }
  const threads = store.conversationsOf(account).filter((c) => c.protocol === "langgraph")
    .map((c) => threadBody(store, times, c))
    .filter((t) => metadata === undefined || contains(t.metadata, metadata))
    .sort((a, b) => (b.created_at ?? "").localeCompare(a.created_at ?? ""))
  return sendJson(response, 200, threads.slice(offset as number, (offset as number) + (limit as number)))
}

/** The question a run's input asks: its last human message's text. */
export const runQuestionOf = (input: unknown): string | undefined => {
  if (!isRecord(input) || !Array.isArray(input["messages"])) return undefined
  const human = (m: unknown) => isRecord(m) && (m["role"] === "user" || m["role"] === "human" || m["type"] === "human")
  const last = [...input["messages"]].reverse().find(human)
  const content = isRecord(last) ? last["content"] : undefined
  return typeof content === "string"
    ? content
    : Array.isArray(content)
    ? content.flatMap((p) => isRecord(p) && p["type"] === "text" && typeof p["text"] === "string" ? [p["text"]] : [])
      .join("")
    : undefined
}

const usage = "expected a JSON body {\"assistant_id\", \"input\": {\"messages\": [{\"role\": \"user\", " +
  "\"content\": QUESTION}]}}, or {\"assistant_id\", \"command\": {\"resume\": {\"decisions\": [...]}}}"

/**
 * The decision a run's `command.resume` carries, as `humanInTheLoopMiddleware` takes one: a decision
 * per action, `{"type": "approve"}` or `{"type": "reject", "message"?}`; the thread's proposal is
 * approved when every action is. Anything else is none.
 */
export const resumedDecision = (command: unknown): Decision | undefined => {
  const resume = isRecord(command) ? command["resume"] : undefined
  const decisions = isRecord(resume) ? resume["decisions"] : undefined
  if (!Array.isArray(decisions) || decisions.length === 0 || !decisions.every(isRecord)) return undefined
  const rejected = decisions.find((d) => d["type"] === "reject")
  if (rejected === undefined) return decisions.every((d) => d["type"] === "approve") ? { approved: true } : undefined
  const message = rejected["message"]
  return { approved: false, reason: typeof message === "string" ? message : "" }
}

const runWait = async (
  store: Store,
  times: Map<string, ThreadTimes>,
  assistants: ReadonlyMap<string, ServedSurface>,
  request: WireRequest,
  response: WireResponse,
  account: string,
  rawThreadId: string
) => {
  const threadId = decodeURIComponent(rawThreadId)
  const body = await readJson(request)
  const assistantId = isRecord(body) ? body["assistant_id"] : undefined
  const command = isRecord(body) ? body["command"] : undefined
  const decision = command === undefined ? undefined : resumedDecision(command)
  const question = isRecord(body) && command === undefined ? runQuestionOf(body["input"]) : undefined
  if (
    typeof assistantId !== "string" ||
    (command === undefined ? question === undefined || question.trim() === "" : decision === undefined)
  ) {
    return sendJson(response, 400, { error: usage })
  }
  const thread = store.conversation(account, threadId)
  if (thread?.protocol !== "langgraph") return sendText(response, 404, `Thread with ID ${threadId} not found`)
  const surface = assistants.get(assistantId) ??
    [...assistants.values()].find((s) => uuid5(assistantOf(s)) === assistantId)
  if (surface === undefined) return sendText(response, 404, `Assistant "${assistantId}" not found`)
  const fault = store.faultFor("ask", question ?? thread.question, (f) => f.kind !== "id")
  if (fault !== undefined && fault.kind !== "reset" && fault.kind !== "huge" && fault.kind !== "opened") {
    return injure(response, "ask", fault, request.url, {})
  }
  // A question on a thread that holds a turn is a follow-up, answered in view of the thread so far; a
  // resume is the decision on the proposal the thread's interrupt holds.
  const ran = decision !== undefined
    ? store.decide(thread, decision)
    : thread.turnId === ""
    ? store.ask(thread, surface.name, question!, randomUUID())
    : store.followUp(thread, question!)
  if (ran === undefined) return sendText(response, 409, `Thread ${threadId} has no interrupt to resume`)
  const runId = ran.turnId
  const at = times.get(thread.id)
  if (at !== undefined) {
    at.updatedAt = new Date().toISOString()
    at.assistantId = assistantOf(surface)
  }
  const headers = { "content-location": `/threads/${thread.id}/runs/${runId}` }
  if (fault?.kind === "opened") {
    return sendJson(response, fault.status, { error: `injected HTTP ${fault.status}`, thread_id: thread.id }, headers)
  }
  const values = runValues(store.turnOf(ran), conversationMessages(store, ran))
  if (fault !== undefined) {
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value)
    return injure(response, "ask", fault, request.url, values)
  }
  // The server streams a run's final values (keep-alive newlines first), so it answers plain text, not JSON.
  const text = JSON.stringify(values)
  response.writeHead(200, {
    "content-type": "text/plain; charset=UTF-8",
    "content-length": Buffer.byteLength(text),
    ...headers
  })
  return void response.end(text)
}
