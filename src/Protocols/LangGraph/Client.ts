/**
 * The `langgraph` protocol: a LangGraph Server (the Agent Protocol, as LangGraph Platform and
 * `langgraph dev` serve it). A turn is one run on a new thread: `POST /threads`, then
 * `POST /threads/{thread_id}/runs/wait` (or `/runs/stream`, read until it closes), then
 * `GET /threads/{thread_id}` and `GET /threads/{thread_id}/state`; `DELETE /threads/{thread_id}` ends it.
 * This module builds the run's body and reads the turn from what those requests answered; it makes no
 * request itself. docs/protocol.md shows each request and its answer.
 */
import { Effect, Either, Option, Ref, Schema } from "effect"
import { identifiersIn, matchCitations } from "../../Evidence/Derive.js"
import {
  type Answered,
  type Failure,
  failure,
  httpStatus,
  isWebPage,
  notJson,
  type RouteName,
  unreachable,
  webPage
} from "../../Runner/Transport.js"
import { isRecord } from "../../Schema/Decode.js"
import { cannotTakeStep, TurnError } from "../../Schema/Errors.js"
import { inert } from "../../Schema/Inert.js"
import { quoted } from "../../Schema/Shown.js"
import type { Surface } from "../../Schema/Surface.js"
import { type Proposal, summedUsage, type ToolExecution, type Usage } from "../../Schema/Trace.js"
import {
  type Asking,
  type AskTurn,
  type Converse,
  type NextStep,
  type Ongoing,
  type ProtocolClient,
  type Read,
  type ReadContext,
  type RunThread
} from "../Protocol.js"
import { fillTemplate, resumeTemplate, toolErrorText } from "../Reading.js"

/** One server-sent event of `POST /threads/{thread_id}/runs/stream`, its data parsed. */
export interface LangGraphEvent {
  readonly event: string
  readonly data: unknown
}

/** What a LangGraph server answered for one turn, each body parsed from its JSON. */
export interface LangGraphWire {
  /** The question, as the run's input asked it. */
  readonly question: string
  /** The run's id: the last segment of the run's `Content-Location`, or the stream's `metadata` event. */
  readonly runId: string | undefined
  /** The body of `POST /threads/{thread_id}/runs/wait` (the run's last values, or `{"__error__"}`); none for a stream. */
  readonly run: unknown
  /** The run's `status` (`GET /threads/{thread_id}/runs/{run_id}`), when it was asked for. */
  readonly runStatus?: string
  /** The body of `GET /threads/{thread_id}`: its `status` and `interrupts`. */
  readonly thread?: unknown
  /** The body of `GET /threads/{thread_id}/state`: the thread's `values.messages`, its `tasks`. */
  readonly state: unknown
  /** The events of `POST /threads/{thread_id}/runs/stream`, when the run was streamed. */
  readonly events?: ReadonlyArray<LangGraphEvent>
  /**
   * How many messages the thread held before the run, for a run that asks no question (one that
   * resumes an interrupt): its turn is the messages after them. Without it, the turn starts at the question.
   */
  readonly known?: number
  /**
   * The tool calls a person denied before the run: an error tool message answering one is the denial's,
   * as LangChain's human-in-the-loop middleware writes it (`status: "error"`), not an execution; a
   * result is (the call ran although it was denied).
   */
  readonly denied?: ReadonlyArray<string>
}

/** A catalog surface's assistant: its `assistantId`, else its name (a graph's name is an assistant id). */
export const langGraphAssistantId = (surfaceName: string, surface: { readonly assistantId?: string }): string =>
  surface.assistantId ?? surfaceName

/** The ids a run's input template may name besides the question. */
export interface RunIds {
  readonly conversationId?: string
  readonly messageId?: string
}

/**
 * The body of `POST /threads/{thread_id}/runs/wait` (or `/runs/stream`) asking `question`: the question as
 * one user message, or the surface's `request.input` template filled with `{question}`,
 * `{conversationId}` (the thread id) and `{messageId}`.
 */
export const langGraphRunBody = (
  assistantId: string,
  question: string,
  inputTemplate?: unknown,
  ids: RunIds = {}
): unknown => {
  const values: Record<string, string> = { question }
  if (ids.conversationId !== undefined) values["conversationId"] = ids.conversationId
  if (ids.messageId !== undefined) values["messageId"] = ids.messageId
  return {
    assistant_id: assistantId,
    input: inputTemplate === undefined
      ? { messages: [{ role: "user", content: question }] }
      : fillTemplate(inputTemplate, values)
  }
}

/** The run id in a run's `Content-Location` (`/threads/{thread_id}/runs/{run_id}`), if it names one. */
export const runIdFromLocation = (location: string | null | undefined): string | undefined => {
  const match = location?.match(/\/runs\/([^/?#]+)\/?(?:[?#].*)?$/)
  return match?.[1] === undefined ? undefined : decodeURIComponent(match[1])
}

// ---------------------------------------------------------------------------------------------------
// Messages, as the server serialises LangChain's: `{"type": "human" | "ai" | "tool", "content", …}`.

type Kind = "human" | "ai" | "tool" | "other"

const kinds: Readonly<Record<string, Kind>> = {
  human: "human",
  user: "human",
  HumanMessage: "human",
  HumanMessageChunk: "human",
  ai: "ai",
  assistant: "ai",
  AIMessage: "ai",
  AIMessageChunk: "ai",
  tool: "tool",
  ToolMessage: "tool",
  ToolMessageChunk: "tool"
}

/** A message's kind, from its `type` (LangChain's dict form) or its `role` (the OpenAI-style form). */
const kindOf = (message: Record<string, unknown>): Kind => {
  const type = typeof message["type"] === "string" ? message["type"] : message["role"]
  return typeof type === "string" ? kinds[type] ?? "other" : "other"
}

/** A content block's text: a string, or a block's `text` (tool-use and reasoning blocks have none). */
const blockText = (block: unknown): string =>
  typeof block === "string" ? block : isRecord(block) && typeof block["text"] === "string" ? block["text"] : ""

/** The text of a message's content: the string, or its text blocks joined. */
const textOf = (content: unknown): string =>
  typeof content === "string" ? content : Array.isArray(content) ? content.map(blockText).join("") : ""

/** A short, inert rendering of a value a reason quotes. */
const got = (value: unknown): string => {
  const text = JSON.stringify(value) ?? String(value)
  return inert(text.length > 60 ? `${text.slice(0, 60)}…` : text)
}

/** The thread's messages from its state, or why the state holds none. */
const messagesOf = (state: unknown): Either.Either<ReadonlyArray<Record<string, unknown>>, string> => {
  if (!isRecord(state)) return Either.left(`thread state: expected an object with "values", got ${got(state)}`)
  const values = state["values"]
  const messages = isRecord(values) ? values["messages"] : undefined
  if (!Array.isArray(messages)) {
    return Either.left(`thread state: values.messages: expected a list of messages, got ${got(messages)}`)
  }
  const bad = messages.findIndex((m) => !isRecord(m))
  if (bad >= 0) {
    return Either.left(`thread state: values.messages[${bad}]: expected a message object, got ${got(messages[bad])}`)
  }
  return Either.right(messages.filter(isRecord))
}

/**
 * Where the turn's messages start: the last human message whose text is the question, else (an input
 * template that wraps the question) the last human message whose text holds it.
 */
const questionAt = (messages: ReadonlyArray<Record<string, unknown>>, question: string): number => {
  const asked = question.trim()
  const human = (m: Record<string, unknown>) => kindOf(m) === "human"
  const lastWhere = (test: (text: string) => boolean) =>
    messages.map((m) => human(m) && test(textOf(m["content"]))).lastIndexOf(true)
  const exact = lastWhere((text) => text.trim() === asked)
  return exact >= 0 ? exact : lastWhere((text) => asked !== "" && text.includes(asked))
}

/** A tool call of an AI message: `{name, args, id}`. */
interface ToolCall {
  readonly name: string
  readonly args: unknown
  readonly id: string | undefined
}

/** The tool calls an AI message made, as LangChain records them in `tool_calls`. */
const toolCallsOf = (message: Record<string, unknown>): ReadonlyArray<ToolCall> => {
  const calls = message["tool_calls"]
  if (!Array.isArray(calls)) return []
  return calls.flatMap((call) =>
    isRecord(call) && typeof call["name"] === "string"
      ? [{ name: call["name"], args: call["args"], id: typeof call["id"] === "string" ? call["id"] : undefined }]
      : []
  )
}

/** A call's input, as an execution holds it: none when the call has no `args`. */
const inputOf = (call: ToolCall): { readonly input?: unknown } => call.args === undefined ? {} : { input: call.args }

/** What a tool message recorded: its content (with its artifact, when it has one) or its error. */
const executionOf = (call: ToolCall, result: Record<string, unknown>): ToolExecution => {
  const input = inputOf(call)
  if (result["status"] === "error") {
    const text = textOf(result["content"])
    return { tool: call.name, ...input, error: text === "" ? "status: error" : toolErrorText(text) }
  }
  const content = result["content"]
  const output = result["artifact"] === undefined ? content : { content, artifact: result["artifact"] }
  return { tool: call.name, ...input, ...(output === undefined ? {} : { output }), error: null }
}

/**
 * The tokens the turn's model calls used: the `usage_metadata` LangChain's chat models put on each AI
 * message (`{"input_tokens", "output_tokens", "total_tokens"}`), summed over the turn's AI messages.
 */
const usageOf = (ai: ReadonlyArray<Record<string, unknown>>): Usage | undefined =>
  summedUsage(ai.flatMap((message) => {
    const metadata = message["usage_metadata"]
    return isRecord(metadata) ? [[metadata["input_tokens"], metadata["output_tokens"]] as const] : []
  }))

// ---------------------------------------------------------------------------------------------------
// Interrupts: `[{"id", "value"}]` under `__interrupt__` (a run's values), `interrupts` (a thread, by task)
// and `tasks[].interrupts` (a state).

interface Interrupt {
  readonly id: string | undefined
  readonly value: unknown
}

const interruptsIn = (list: unknown): ReadonlyArray<Interrupt> =>
  Array.isArray(list)
    ? list.filter(isRecord).map((i) => {
      const id = i["id"] ?? i["interrupt_id"]
      return { id: typeof id === "string" && id !== "" ? id : undefined, value: i["value"] }
    })
    : []

/** Every interrupt the wire shows, the run's first, then the stream's, the thread's and the state's. */
const interruptsOf = (wire: LangGraphWire): ReadonlyArray<Interrupt> => {
  const found: Array<Interrupt> = []
  if (isRecord(wire.run)) found.push(...interruptsIn(wire.run["__interrupt__"]))
  for (const { data } of wire.events ?? []) if (isRecord(data)) found.push(...interruptsIn(data["__interrupt__"]))
  if (isRecord(wire.thread) && isRecord(wire.thread["interrupts"])) {
    for (const list of Object.values(wire.thread["interrupts"])) found.push(...interruptsIn(list))
  }
  if (isRecord(wire.state)) {
    const tasks = wire.state["tasks"]
    if (Array.isArray(tasks)) {
      for (const task of tasks) if (isRecord(task)) found.push(...interruptsIn(task["interrupts"]))
    }
    const own = wire.state["interrupts"]
    found.push(...interruptsIn(own))
    if (isRecord(own)) { for (const list of Object.values(own)) found.push(...interruptsIn(list)) }
  }
  return found
}

/** The tool an action of an interrupt names: an `ActionRequest`'s `action`, or a tool call's `name`. */
const actionName = (action: unknown): string | undefined =>
  !isRecord(action)
    ? undefined
    : typeof action["name"] === "string"
    ? action["name"]
    : typeof action["action"] === "string"
    ? action["action"]
    : undefined

/**
 * The actions one interrupt value asks a person to approve, in the shapes LangGraph's own code and
 * guides interrupt with: LangChain's human-in-the-loop middleware (`{"actionRequests": [{name, args}]}`);
 * LangGraph's `HumanInterrupt`, which Agent Inbox reads (`{"action_request": {action, args}}`); the
 * review-tool-calls guide's `{"tool_call": {name, args}}`; and a bare `ActionRequest` (`{action, args}`).
 */
const actionsIn = (value: Record<string, unknown>): ReadonlyArray<unknown> => {
  const requests = value["actionRequests"]
  if (Array.isArray(requests)) return requests
  for (const key of ["action_request", "tool_call"]) {
    if (actionName(value[key]) !== undefined) return [value[key]]
  }
  return typeof value["action"] === "string" && "args" in value ? [value] : []
}

/** The text an interrupt value shows the person it waits for: its `description`, `question` or `query`. */
const promptOf = (value: Record<string, unknown>): string | undefined =>
  ["description", "question", "query"].map((key) => value[key]).find((text): text is string =>
    typeof text === "string" && text.trim() !== ""
  )

/**
 * The proposal an interrupt leaves: its id; the actions its value asks to approve (`actionsIn`; a list
 * of values, as Agent Inbox's `interrupt([request])`, gives each one's), their tools' names as the
 * summary; with no action, the value's text, or its `description`, `question` or `query` (never blank).
 */
const proposalOf = (interrupt: Interrupt | undefined, turnId: string): Proposal => {
  const id = interrupt?.id ?? `${turnId}:interrupt`
  const value = interrupt?.value
  if (typeof value === "string") return value.trim() === "" ? { id } : { id, summary: value }
  const values = (Array.isArray(value) ? value : [value]).filter(isRecord)
  const actions = values.flatMap(actionsIn)
  const names = actions.flatMap((action) => actionName(action) ?? [])
  const prompt = values.map(promptOf).find((text) => text !== undefined)
  const summary = names.length > 0 ? names.join(", ") : prompt
  return { id, ...(summary === undefined ? {} : { summary }), ...(actions.length > 0 ? { actions } : {}) }
}

/** A thread's or run's `status`. */
const statusOf = (value: unknown): unknown => isRecord(value) ? value["status"] : undefined

/** Whether the run failed: an `error` event, a `{"__error__"}` body, or a run or thread in `error`. */
const failed = (wire: LangGraphWire): boolean =>
  (wire.events ?? []).some((e) => e.event === "error") ||
  (isRecord(wire.run) && wire.run["__error__"] !== undefined) ||
  wire.runStatus === "error" || wire.runStatus === "timeout" ||
  statusOf(wire.thread) === "error"

/**
 * The turn's id: the run id, else the `metadata` event's `run_id`, else the state's `metadata.run_id`
 * (the run that wrote the thread's last checkpoint), else `{thread_id}:{index of the question}`.
 */
const turnIdOf = (wire: LangGraphWire, conversationId: string, at: number): string => {
  const runIdIn = (value: unknown): string | undefined =>
    isRecord(value) && typeof value["run_id"] === "string" && value["run_id"] !== "" ? value["run_id"] : undefined
  return wire.runId ??
    (wire.events ?? []).filter((e) => e.event === "metadata").map((e) => runIdIn(e.data)).find((id) =>
      id !== undefined
    ) ??
    (isRecord(wire.state) ? runIdIn(wire.state["metadata"]) : undefined) ??
    `${conversationId}:${at}`
}

/**
 * The turn a LangGraph run made, read from the thread's messages after the question: the answer is the
 * last AI message's text; each AI tool call joined by `tool_call_id` to its tool message is a tool
 * execution (`status: "error"` makes it errored, its text the error; a call without a tool message —
 * one waiting for approval — is none); the successful tool messages' content and artifacts surface
 * items; the outcome is `error` when the run or thread failed, `awaiting-approval` when the thread is
 * interrupted, else `answered`; the usage is the turn's AI messages' `usage_metadata`, summed.
 */
export const readLangGraphTurn = (wire: LangGraphWire, context: ReadContext): Read =>
  Either.flatMap(messagesOf(wire.state), (messages) => {
    const at = wire.known === undefined ? questionAt(messages, wire.question) : wire.known - 1
    if (at < 0) return Either.left(`thread state: values.messages: no human message asks ${quoted(wire.question)}`)
    const after = messages.slice(at + 1)
    const denied = new Set(wire.denied ?? [])
    const results = new Map<string, Record<string, unknown>>()
    for (const m of after) {
      if (kindOf(m) !== "tool" || typeof m["tool_call_id"] !== "string") continue
      // A denied call's error is the denial's (the middleware's rejection); its result, a run all the same.
      if (denied.has(m["tool_call_id"]) && m["status"] === "error") continue
      results.set(m["tool_call_id"], m)
    }
    const ai = after.filter((m) => kindOf(m) === "ai")
    const interrupts = interruptsOf(wire)
    const waiting = statusOf(wire.thread) === "interrupted" || interrupts.length > 0
    // A call made before the run that this run answers (the call an approval let run) is this turn's:
    // joined to its result by id, as the calls the run makes are.
    const own = new Set(ai.flatMap(toolCallsOf).flatMap((call) => call.id ?? []))
    const earlier = messages.slice(0, at + 1).filter((m) => kindOf(m) === "ai").flatMap(toolCallsOf)
      .filter((call) => call.id !== undefined && !own.has(call.id) && results.has(call.id))
    // A call with no tool message is one an interrupt stops before (it has not run), or else an attempt:
    // a tool that threw with no tool node to catch it ends the run with its call and no result.
    const toolExecutions = [...earlier, ...ai.flatMap(toolCallsOf)].flatMap((call): ReadonlyArray<ToolExecution> => {
      const result = call.id === undefined ? undefined : results.get(call.id)
      if (result !== undefined) return [executionOf(call, result)]
      return waiting ? [] : [{ tool: call.name, ...inputOf(call), unresolved: true }]
    })
    const surfaced = new Set<string>()
    for (const m of results.values()) {
      if (m["status"] === "error") continue
      identifiersIn(m["content"], context.evidence.identifierFields, surfaced)
      identifiersIn(m["artifact"], context.evidence.identifierFields, surfaced)
    }
    const answer = textOf(ai.at(-1)?.["content"])
    const turnId = turnIdOf(wire, context.conversationId, at)
    const outcome = failed(wire) ? "error" : waiting ? "awaiting-approval" : "answered"
    const usage = usageOf(ai)
    return Either.right({
      answer,
      trace: {
        turnId,
        surface: context.surface,
        outcome,
        citations: matchCitations(answer, surfaced, context.evidence),
        toolExecutions,
        proposal: outcome === "awaiting-approval" ? proposalOf(interrupts[0], turnId) : null,
        ...(usage === undefined ? {} : { usage })
      }
    })
  })

// ---------------------------------------------------------------------------------------------------
// The live protocol

/** The thread's path prefix: the surface's `endpoint` (a server mounted under a path), else the root. */
const threadsOf = (surface: Surface): string => `${(surface.endpoint ?? "").replace(/\/+$/, "")}/threads`

/** `POST /threads`'s answer: the thread's id. */
const OpenedThread = Schema.Struct({ thread_id: Schema.String })

/** Parses a body the server answered as JSON (a run's body may start with keep-alive newlines). */
const parsedBody = (route: RouteName, text: string): Effect.Effect<unknown, TurnError> =>
  Effect.try({ try: (): unknown => JSON.parse(text.trimStart()), catch: () => notJson(route) })

/** Fails on a web page where JSON was expected, saying what that usually means, as every read does. */
const refuseWebPage = (
  asking: Asking,
  route: RouteName,
  path: string,
  answered: Answered,
  text: string
): Effect.Effect<void, TurnError> =>
  isWebPage(answered.headers["content-type"] ?? "") && !text.trimStart().startsWith("{")
    ? Effect.fail(webPage(route, answered.status, asking.transport.urlOf(path).href))
    : Effect.void

/** The metadata key naming the run a thread was opened by (its random key, never the session). */
export const runMetadataKey = "turn_eval_run"

/** The metadata key naming the case a thread was opened for. */
export const caseMetadataKey = "turn_eval_case"

/** The metadata a thread is opened with: the run's key and the case, so that a search finds it. */
export const threadMetadata = (run: string, caseId: string): Record<string, string> => ({
  [runMetadataKey]: run,
  [caseMetadataKey]: caseId
})

/** The route that searches a surface's threads (`POST /threads/search`). */
export const threadSearchRoute = (surface: Surface): string => `${threadsOf(surface)}/search`

/**
 * Opens the thread, tagged with the run's key; the thread id is noted the moment it is known. The
 * live client journals the intent before the request, so a run killed before the answer leaves the
 * thread findable by the search route. The request is not retried after a connection that may have
 * reached the server: that could open a second thread.
 */
const openThread = (asking: Asking) => {
  const { named, transport } = asking
  const path = threadsOf(asking.surface)
  return asking.open({
    route: "thread",
    path,
    options: { body: { metadata: threadMetadata(asking.run, asking.testCase.id) } },
    search: threadSearchRoute(asking.surface),
    read: (sent, response) =>
      Effect.gen(function*() {
        const text = yield* transport.readText("thread", response).pipe(
          Effect.catchTag("TransportFailure", (error) => Effect.fail(unreachable("thread", error)))
        )
        yield* refuseWebPage(asking, "thread", path, sent, text)
        const thread = yield* transport.decodeBody("thread", text, OpenedThread)
        yield* named(thread.thread_id, "POST /threads")
        return thread.thread_id
      })
  })
}

/** The delete route of a surface's threads: its own, else the server's `DELETE /threads/{thread_id}`. */
export const langGraphDeleteRoute = (surface: Surface): string =>
  surface.routes?.delete ?? `${threadsOf(surface)}/{conversationId}`

/** A run on a thread: what it posts, and what its turn is read with besides the wire. */
interface Run {
  readonly body: unknown
  /** The question it asks (none for a run that resumes an interrupt). */
  readonly question: string
  readonly known?: number
  readonly denied?: ReadonlyArray<string>
}

/** What a turn of a thread leaves for the next one: the messages so far, and what waits for a person. */
interface Left {
  readonly count: number
  /** The tool calls no tool message answers: those an interrupt stopped before. */
  readonly unanswered: ReadonlyArray<string>
  /** The interrupts the thread waits on. */
  readonly interrupts: ReadonlyArray<Interrupt>
}

/** What a thread's state and the run's wire leave for the next turn. */
const leftBy = (wire: LangGraphWire): Left => {
  const messages = Either.getOrElse(messagesOf(wire.state), () => [])
  const answered = new Set(messages.flatMap((m) => kindOf(m) === "tool" ? [m["tool_call_id"]] : []))
  const unanswered = messages.filter((m) => kindOf(m) === "ai").flatMap(toolCallsOf)
    .flatMap((call) => call.id !== undefined && !answered.has(call.id) ? [call.id] : [])
  return { count: messages.length, unanswered, interrupts: interruptsOf(wire) }
}

/** One run on a thread waited for, then the thread and its state read, and the turn read from them. */
const runOn = (asking: Asking, threadId: string, run: Run) =>
  Effect.gen(function*() {
    const { at, surface, transport } = asking
    const threadPath = `${threadsOf(surface)}/${encodeURIComponent(threadId)}`
    const runPath = `${threadPath}/runs/wait`
    yield* at("ask", "POST", runPath)
    // The run is not re-posted after a connection that may have reached the server: that would run it twice.
    const sent = yield* asking.ask("ask", runPath, { body: run.body })
    if (sent.response === undefined) return yield* httpStatus("ask", sent.status)
    const runText = yield* transport.readText("ask", sent.response).pipe(
      Effect.catchTag("TransportFailure", (error) => Effect.fail(unreachable("ask", error)))
    )
    yield* refuseWebPage(asking, "ask", runPath, sent, runText)
    const answered = yield* parsedBody("ask", runText)
    const runId = runIdFromLocation(sent.headers["content-location"])
    // The thread and its state need nothing of each other: they are read together, each retrying on its
    // own. The stage names the thread until it is read, then the state if that is still awaited, so a
    // failure or a timeout names the request it came from and what that request was retrying.
    const statePath = `${threadPath}/state`
    const retrying = { thread: yield* Ref.make(Option.none<string>()), state: yield* Ref.make(Option.none<string>()) }
    const stateRead = yield* Ref.make(false)
    const atState = at("state", "GET", statePath, retrying.state)
    yield* at("thread", "GET", threadPath, retrying.thread)
    const [thread, threadState] = yield* Effect.all([
      Effect.tap(
        transport.readJson("thread", threadPath, Schema.Unknown, retrying.thread),
        () => Effect.unlessEffect(atState, Ref.get(stateRead))
      ),
      transport.readJson("state", statePath, Schema.Unknown, retrying.state).pipe(
        Effect.tap(() => Ref.set(stateRead, true)),
        Effect.tapError(() => atState)
      )
    ], { concurrency: 2 })
    const wire: LangGraphWire = {
      question: run.question,
      runId,
      run: answered,
      thread,
      state: threadState,
      ...(run.known === undefined ? {} : { known: run.known }),
      ...(run.denied === undefined ? {} : { denied: run.denied })
    }
    const turn = yield* Either.match(readLangGraphTurn(wire, { ...asking.context, conversationId: threadId }), {
      // What the turn lacks is read from the state: the failure names that request.
      onLeft: (why) => Effect.zipRight(atState, Effect.fail(failure("state", why))),
      onRight: Effect.succeed
    })
    return [turn, leftBy(wire)] as const
  })

/** The run that asks a question on a thread: the question as the run's input. */
const askRun = (asking: Asking, threadId: string, question: string): Run => ({
  question,
  body: langGraphRunBody(
    langGraphAssistantId(asking.testCase.surface, asking.surface),
    question,
    asking.surface.request?.input,
    { conversationId: threadId, messageId: asking.newId() }
  )
})

/** A turn on a LangGraph server: a thread opened, one run waited for, the thread and its state read. */
export const langGraphTurn: AskTurn = (asking) =>
  Effect.flatMap(
    openThread(asking),
    (threadId) => Effect.map(runOn(asking, threadId, askRun(asking, threadId, asking.question)), ([turn]) => turn)
  )

/** Whether an interrupt is LangChain's human-in-the-loop middleware's: `{"actionRequests": [...]}`. */
const isHumanInTheLoop = (interrupt: Interrupt | undefined): interrupt is Interrupt & {
  readonly value: { readonly actionRequests: ReadonlyArray<unknown> }
} => isRecord(interrupt?.value) && Array.isArray(interrupt.value["actionRequests"])

/**
 * The value a decision resumes the thread's interrupt with: the surface's `resume` template for it
 * (`{reason}` and `{proposalId}` filled in), else, for LangChain's human-in-the-loop middleware, one
 * decision per action it asked about (`{"type": "approve"}`, or `{"type": "reject", "message": REASON}`);
 * for any other interrupt, why the surface must say.
 */
export const resumeValue = (
  surface: Surface,
  interrupt: Interrupt | undefined,
  decision: Extract<NextStep, { readonly kind: "decide" }>
): Either.Either<unknown, string> => {
  const templated = resumeTemplate(surface, decision)
  if (templated !== undefined) return Either.right(templated)
  if (isHumanInTheLoop(interrupt)) {
    const one = decision.approved ? { type: "approve" } : { type: "reject", message: decision.reason ?? "" }
    return Either.right({ decisions: interrupt.value.actionRequests.map(() => one) })
  }
  return Either.left(
    "the thread's interrupt is not LangChain's human-in-the-loop middleware's: the surface says what a " +
      `decision resumes it with, "resume": {"approve": VALUE, "deny": VALUE} ({reason}, {proposalId} filled in)`
  )
}

/**
 * A conversation on a LangGraph server is one thread: a follow-up is a new run on it asking the
 * question; a decision is a run that resumes the thread's interrupt, `{"command": {"resume": VALUE}}`
 * (`resumeValue`), read as the messages after those the thread held before it, the call it let run
 * joined to its result by id and a call it denied no execution.
 */
export const langGraphConverse: Converse = (asking) =>
  Effect.gen(function*() {
    const threadId = yield* openThread(asking)
    const [first, opened] = yield* runOn(asking, threadId, askRun(asking, threadId, asking.question))
    let left = opened
    const assistantId = langGraphAssistantId(asking.testCase.surface, asking.surface)
    const conversation: Ongoing = {
      next: (step) =>
        Effect.gen(function*() {
          let run: Run
          if (step.kind === "ask") run = askRun(asking, threadId, step.question)
          else {
            const resume = resumeValue(asking.surface, left.interrupts[0], step)
            if (Either.isLeft(resume)) {
              return yield* Effect.fail(cannotTakeStep(resume.left))
            }
            run = {
              question: "",
              body: { assistant_id: assistantId, command: { resume: resume.right } },
              known: left.count,
              ...(step.approved ? {} : { denied: left.unanswered })
            }
          }
          const [turn, now] = yield* runOn(asking, threadId, run)
          left = now
          return turn
        })
    }
    return [first, conversation] as const
  })

const searchPage = 100
const maxSearchPages = 50

/**
 * The threads tagged with a run's key, found through `POST /threads/search` with `{"metadata": {…}}`,
 * page by page. A thread is taken only when its own metadata names the run: a server that ignored the
 * filter answers other threads of the account, and those are never the run's to delete.
 */
export const findRunThreads = (
  post: (path: string, body: unknown) => Effect.Effect<string, Failure>,
  searchRoute: string,
  run: string
): Effect.Effect<ReadonlyArray<RunThread>, Failure> => {
  const found = new Map<string, RunThread>()
  const page = (n: number): Effect.Effect<ReadonlyArray<RunThread>, Failure> =>
    Effect.flatMap(
      post(searchRoute, { metadata: { [runMetadataKey]: run }, limit: searchPage, offset: n * searchPage }),
      (text) => {
        let threads: unknown
        try {
          threads = JSON.parse(text)
        } catch {
          return Effect.fail(notJson("thread", "search"))
        }
        if (!Array.isArray(threads)) return Effect.fail(failure("thread", "search: expected a list of threads"))
        for (const thread of threads) {
          if (!isRecord(thread) || typeof thread["thread_id"] !== "string") continue
          const metadata = thread["metadata"]
          if (!isRecord(metadata) || metadata[runMetadataKey] !== run) continue
          const caseId = metadata[caseMetadataKey]
          found.set(thread["thread_id"], {
            conversationId: thread["thread_id"],
            caseId: typeof caseId === "string" ? caseId : ""
          })
        }
        return threads.length < searchPage || n + 1 >= maxSearchPages
          ? Effect.succeed([...found.values()])
          : page(n + 1)
      }
    )
  return Effect.suspend(() => page(0))
}

/** The client a live run asks this protocol's surfaces through. */
export const client: ProtocolClient<{ readonly by: "server" }> = {
  turn: langGraphTurn,
  converse: langGraphConverse,
  deleteRoute: langGraphDeleteRoute,
  search: { describe: (run) => `metadata ${runMetadataKey}: ${run}`, find: findRunThreads }
}
