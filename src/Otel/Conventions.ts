/**
 * The three conventions an instrumented assistant's spans follow, read into one shape: a turn's agent
 * name, question, answer, tool executions and retrieved documents, whether it failed, the case id it
 * carries and the tokens its model calls used (Usage.ts). A turn is the root span of an agent run:
 *
 * - OpenTelemetry GenAI semantic conventions (the AI SDK's `OpenTelemetry` integration): a span with
 *   `gen_ai.operation.name` `invoke_agent`; its tools are `execute_tool` spans.
 * - The AI SDK's `ai.*` spans (built into AI SDK 6, `LegacyOpenTelemetry` in 7): `ai.generateText` or
 *   `ai.streamText` (`ai.operationId`); its tools are `ai.toolCall` spans.
 * - OpenInference (Arize's instrumentations): the top-most `CHAIN` or `AGENT` span
 *   (`openinference.span.kind`); its tools are `TOOL` spans, its retrievals `RETRIEVER` spans.
 *
 * docs/otel.md names every attribute read here.
 */
import { isRecord } from "../Schema/Decode.js"
import type { Problem } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import type { Usage } from "../Schema/Trace.js"
import { attributeText, firstLine, parseMaybeJson } from "./Attributes.js"
import type { Span, Trace } from "./Otlp.js"
import { runEndOf, type WaitingCall } from "./RunEnd.js"
import { usageOf } from "./Usage.js"

/** Which convention a turn's spans follow. */
export type Convention = "gen-ai" | "ai-sdk" | "openinference"

/** One execution of a tool, as its span recorded it. */
export interface ToolCall {
  readonly tool: string
  readonly input?: unknown
  readonly output?: unknown
  /** The first line of the error message when the span failed, else null. */
  readonly error: string | null
  readonly durationMs?: number
  /** The tool call's id (`gen_ai.tool.call.id`, `ai.toolCall.id`), else its span's id. */
  readonly callId: string
  readonly start: bigint
}

/** A document a retriever returned: its id and metadata. */
export interface RetrievedDocument {
  readonly id?: string
  readonly metadata?: unknown
}

/** A turn as read from its span tree, before a surface's rules give it citations and an outcome. */
export interface ReadTurn {
  readonly file: string
  readonly traceId: string
  readonly spanId: string
  readonly convention: Convention
  readonly start: bigint
  /** The agent name the telemetry gives (`gen_ai.agent.name`, `ai.telemetry.functionId`, `agent.name` or the span name). */
  readonly agentName: string | undefined
  /** The case id the telemetry carries, and the attribute it came from. */
  readonly caseId: { readonly value: string; readonly attribute: string } | undefined
  /** The conversation the run is a turn of, and the attribute it came from (`conversationIdOn`). */
  readonly conversationId?: { readonly value: string; readonly attribute: string } | undefined
  readonly question: string
  /** The answer; undefined when the span tree records none (a failed turn, or one that ended on a tool). */
  readonly answer: string | undefined
  /** The attribute the answer is read from, to name when it is missing. */
  readonly answerAttribute: string
  /** The root span's status is ERROR. */
  readonly failed: boolean
  /** False when the run ended before it finished, as an aborted stream does (see RunEnd.ts). */
  readonly finished: boolean
  readonly toolCalls: ReadonlyArray<ToolCall>
  /** The calls the run left waiting for approval (the AI SDK's `needsApproval` / `toolApproval`); they did not run. */
  readonly waiting: ReadonlyArray<WaitingCall>
  readonly retrieved: ReadonlyArray<RetrievedDocument>
  /** The tokens the turn's model calls used (Usage.ts), when its spans count them. */
  readonly usage?: Usage
}

const text = (span: Span, key: string): string | undefined => attributeText(span.attributes.get(key))

/** The convention a span follows, by the attribute only that convention writes. */
const conventionOf = (span: Span): Convention | undefined =>
  span.attributes.has("ai.operationId")
    ? "ai-sdk"
    : span.attributes.has("gen_ai.operation.name")
    ? "gen-ai"
    : span.attributes.has("openinference.span.kind")
    ? "openinference"
    : undefined

const openInferenceKind = (span: Span): string | undefined => text(span, "openinference.span.kind")?.toUpperCase()

/** Whether a span is the root of an agent run in its convention. */
const isAgentRun = (span: Span, convention: Convention): boolean => {
  switch (convention) {
    case "gen-ai":
      return text(span, "gen_ai.operation.name") === "invoke_agent"
    case "ai-sdk": {
      const operation = text(span, "ai.operationId")
      return operation === "ai.generateText" || operation === "ai.streamText"
    }
    case "openinference": {
      const kind = openInferenceKind(span)
      return kind === "CHAIN" || kind === "AGENT"
    }
  }
}

/** Whether a span is a tool execution in a convention. */
const isToolSpan = (span: Span, convention: Convention): boolean =>
  conventionOf(span) === convention && (
    convention === "gen-ai"
      ? text(span, "gen_ai.operation.name") === "execute_tool"
      : convention === "ai-sdk"
      ? text(span, "ai.operationId") === "ai.toolCall"
      : openInferenceKind(span) === "TOOL"
  )

/** Why a span failed: its `exception` event's `exception.message`, else the status message; null when it did not. */
const spanError = (span: Span): string | null => {
  if (span.status !== "error") return null
  const exception = span.events.find((e) => e.name === "exception")
  const message = attributeText(exception?.attributes.get("exception.message")) ?? span.statusMessage
  const line = message === undefined ? "" : firstLine(message)
  return line === "" ? "error" : line
}

// ---------------------------------------------------------------------------------------------------
// Messages, in the shapes the conventions record them

const langChainRoles: Record<string, string> = {
  HumanMessage: "user",
  HumanMessageChunk: "user",
  AIMessage: "assistant",
  AIMessageChunk: "assistant",
  ToolMessage: "tool",
  SystemMessage: "system"
}
const roleAliases: Record<string, string> = { human: "user", ai: "assistant", model: "assistant", bot: "assistant" }

/** A message's role: `role` or `type`, or the class of a serialised LangChain message. */
const roleOf = (message: unknown): string | undefined => {
  if (!isRecord(message)) return undefined
  const id = message["id"]
  if (message["lc"] !== undefined && Array.isArray(id)) {
    const last = id[id.length - 1]
    return typeof last === "string" ? langChainRoles[last] : undefined
  }
  const role = typeof message["role"] === "string"
    ? message["role"]
    : typeof message["type"] === "string"
    ? message["type"]
    : undefined
  return role === undefined ? undefined : roleAliases[role.toLowerCase()] ?? role.toLowerCase()
}

/** The text of message content: a string, or the text parts of a list (`{type: "text", text | content}`). */
const contentText = (content: unknown): string | undefined => {
  if (typeof content === "string") return content
  if (!Array.isArray(content)) return undefined
  const parts = content.flatMap((part) =>
    typeof part === "string"
      ? [part]
      : isRecord(part) && (part["type"] === "text" || part["type"] === undefined)
      ? [typeof part["text"] === "string" ? part["text"] : typeof part["content"] === "string" ? part["content"] : ""]
      : []
  )
  return parts.join("")
}

/** The text of a message: `parts` (GenAI), `content` (AI SDK, chat formats) or `kwargs.content` (LangChain). */
const messageText = (message: unknown): string | undefined => {
  if (!isRecord(message)) return undefined
  const kwargs = message["kwargs"]
  if (isRecord(kwargs) && "content" in kwargs) return contentText(kwargs["content"])
  if ("parts" in message) return contentText(message["parts"])
  if ("content" in message) return contentText(message["content"])
  return typeof message["text"] === "string" ? message["text"] : undefined
}

/** The text of the last message with `role` that has text, if any. */
const lastText = (messages: ReadonlyArray<unknown>, role: string, allowEmpty: boolean): string | undefined => {
  for (let i = messages.length - 1; i >= 0; i--) {
    if (roleOf(messages[i]) !== role) continue
    const t = messageText(messages[i])
    if (t !== undefined && (allowEmpty || t.trim() !== "")) return t
    if (allowEmpty) return ""
  }
  return undefined
}

/** The question in an input value: a string, `messages` (the last user message), or `input`/`question`/`query`/`prompt`. */
const questionIn = (value: unknown): string | undefined => {
  if (typeof value === "string") return value
  if (Array.isArray(value)) return lastText(value, "user", false)
  if (!isRecord(value)) return undefined
  if (Array.isArray(value["messages"])) return lastText(value["messages"], "user", false)
  for (const key of ["input", "question", "query", "prompt"]) {
    if (key in value) return questionIn(value[key])
  }
  return undefined
}

/** The answer in a conversation: the last message's text when the assistant wrote it; empty when a tool ended the turn. */
const finalAnswer = (messages: ReadonlyArray<unknown>): string | undefined => {
  for (let i = messages.length - 1; i >= 0; i--) {
    const role = roleOf(messages[i])
    if (role === "tool") return ""
    if (role === "assistant") return messageText(messages[i]) ?? ""
  }
  return undefined
}

/** The answer in an output value: a string, `messages` (see finalAnswer), or `output`/`answer`/`text`/`content`. */
const answerIn = (value: unknown): string | undefined => {
  if (typeof value === "string") return value
  if (Array.isArray(value)) return finalAnswer(value)
  if (!isRecord(value)) return undefined
  if (roleOf(value) === "assistant") return messageText(value) ?? ""
  if (Array.isArray(value["messages"])) return finalAnswer(value["messages"])
  for (const key of ["output", "answer", "text", "content", "result"]) {
    if (key in value) return answerIn(value[key])
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------------
// Reading a turn

type Reading = { readonly problems: Array<Problem>; readonly trace: Trace; readonly span: Span }

const problem = (r: Reading, span: Span, attribute: string, message: string) =>
  r.problems.push({
    path: `trace ${r.trace.traceId}`,
    message: `span ${span.spanId} ${JSON.stringify(inert(span.name.slice(0, 80)))}: ${attribute}: ${message}`
  })

/** A JSON attribute, parsed; a missing or broken one is a problem naming it. */
const jsonAttribute = (r: Reading, key: string, what: string): unknown => {
  const value = r.span.attributes.get(key)
  if (value === undefined) {
    problem(r, r.span, key, `missing: it records ${what}`)
    return undefined
  }
  if (typeof value !== "string") return value
  try {
    return JSON.parse(value)
  } catch (error) {
    problem(
      r,
      r.span,
      key,
      `not valid JSON (${error instanceof Error ? inert(error.message.slice(0, 120)) : "unreadable"})`
    )
    return undefined
  }
}

const noQuestion = (r: Reading, key: string, shape: string) =>
  problem(r, r.span, key, `no question in it: expected ${shape}`)

const readGenAi = (r: Reading) => {
  let question: string | undefined
  const input = jsonAttribute(r, "gen_ai.input.messages", "the question")
  if (input !== undefined) {
    question = Array.isArray(input) ? lastText(input, "user", false) : undefined
    if (question === undefined) noQuestion(r, "gen_ai.input.messages", "a user message with a text part")
  }
  let answer: string | undefined
  if (r.span.attributes.has("gen_ai.output.messages")) {
    const output = jsonAttribute(r, "gen_ai.output.messages", "the answer")
    if (Array.isArray(output)) answer = lastText(output, "assistant", true) ?? ""
    else if (output !== undefined) problem(r, r.span, "gen_ai.output.messages", "expected a list of messages")
  }
  return { agentName: text(r.span, "gen_ai.agent.name"), question, answer, answerAttribute: "gen_ai.output.messages" }
}

const readAiSdk = (r: Reading) => {
  let question: string | undefined
  const prompt = jsonAttribute(r, "ai.prompt", "the question")
  if (prompt !== undefined) {
    question = isRecord(prompt)
      ? typeof prompt["prompt"] === "string"
        ? prompt["prompt"]
        : lastText(
          Array.isArray(prompt["prompt"])
            ? prompt["prompt"]
            : Array.isArray(prompt["messages"])
            ? prompt["messages"]
            : [],
          "user",
          false
        )
      : undefined
    if (question === undefined) {
      noQuestion(r, "ai.prompt", "{\"prompt\": TEXT} or {\"messages\": [...]} with a user message")
    }
  }
  return {
    agentName: text(r.span, "ai.telemetry.functionId"),
    question,
    answer: text(r.span, "ai.response.text"),
    answerAttribute: "ai.response.text"
  }
}

const readOpenInference = (r: Reading) => {
  let question: string | undefined
  const input = r.span.attributes.get("input.value")
  if (input === undefined) problem(r, r.span, "input.value", "missing: it records the question")
  else {
    question = questionIn(parseMaybeJson(input))
    if (question === undefined) {
      noQuestion(
        r,
        "input.value",
        "text, or JSON with messages (a user message) or an input, question, query or prompt"
      )
    }
  }
  const output = r.span.attributes.get("output.value")
  let answer: string | undefined
  if (output !== undefined) {
    answer = answerIn(parseMaybeJson(output))
    if (answer === undefined) {
      problem(
        r,
        r.span,
        "output.value",
        "no answer in it: expected text, or JSON with messages or an output, answer, text or content"
      )
    }
  }
  return {
    agentName: text(r.span, "agent.name") ?? (r.span.name === "" ? undefined : r.span.name),
    question,
    answer,
    answerAttribute: "output.value"
  }
}

/**
 * The case id on a span: `eval.case_id`, the AI SDK's `ai.telemetry.metadata.caseId` (6) or
 * `ai.settings.context.caseId` (7, runtime context), or `eval.case_id` in OpenInference's `metadata` JSON.
 */
const caseIdOn = (span: Span): ReadTurn["caseId"] => {
  for (const attribute of ["eval.case_id", "ai.telemetry.metadata.caseId", "ai.settings.context.caseId"]) {
    const value = text(span, attribute)
    if (value !== undefined && value.trim() !== "") return { value, attribute }
  }
  const metadata = parseMaybeJson(span.attributes.get("metadata"))
  const value = isRecord(metadata) ? metadata["eval.case_id"] : undefined
  return typeof value === "string" && value.trim() !== ""
    ? { value, attribute: "metadata[\"eval.case_id\"]" }
    : undefined
}

/** The attributes a conversation's id is read from, in order. */
export const conversationAttributes: ReadonlyArray<string> = [
  "gen_ai.conversation.id",
  "session.id",
  "ai.telemetry.metadata.conversationId",
  "ai.settings.context.conversationId"
]

/**
 * The conversation id on a span: the GenAI conventions' `gen_ai.conversation.id`, OpenInference's
 * `session.id` (which its LangChain instrumentation sets from a run's `session_id`, `thread_id` or
 * `conversation_id` metadata), or the AI SDK's `ai.telemetry.metadata.conversationId` (6) or
 * `ai.settings.context.conversationId` (7, runtime context).
 */
const conversationIdOn = (span: Span): ReadTurn["conversationId"] => {
  for (const attribute of conversationAttributes) {
    const value = text(span, attribute)
    if (value !== undefined && value.trim() !== "") return { value, attribute }
  }
  return undefined
}

/**
 * A LangChain tool result as OpenInference records it — `{"output": ToolMessage}`, the message
 * serialised with its content as text — unwrapped to the content (parsed when it is JSON) and the call id.
 */
const unwrapLangChain = (value: unknown): { output: unknown; callId?: string } => {
  const message = isRecord(value) && Object.keys(value).length === 1 && "output" in value ? value["output"] : value
  if (!isRecord(message) || message["lc"] === undefined || !isRecord(message["kwargs"])) return { output: value }
  const kwargs = message["kwargs"]
  const content = typeof kwargs["content"] === "string" ? parseMaybeJson(kwargs["content"]) : kwargs["content"]
  return typeof kwargs["tool_call_id"] === "string"
    ? { output: content, callId: kwargs["tool_call_id"] }
    : { output: content }
}

const durationMs = (span: Span): number | undefined =>
  span.end === undefined || span.end < span.start ? undefined : Number(span.end - span.start) / 1e6

const readToolCall = (r: Reading, span: Span, convention: Convention): ToolCall | undefined => {
  const keys = convention === "gen-ai"
    ? {
      name: "gen_ai.tool.name",
      input: "gen_ai.tool.call.arguments",
      output: "gen_ai.tool.call.result",
      id: "gen_ai.tool.call.id"
    }
    : convention === "ai-sdk"
    ? { name: "ai.toolCall.name", input: "ai.toolCall.args", output: "ai.toolCall.result", id: "ai.toolCall.id" }
    : { name: "tool.name", input: "input.value", output: "output.value", id: "tool_call.id" }
  const tool = text(span, keys.name) ?? (convention === "openinference" && span.name !== "" ? span.name : undefined)
  if (tool === undefined) {
    problem(r, span, keys.name, "missing: it names the tool")
    return undefined
  }
  const error = spanError(span)
  const input = parseMaybeJson(span.attributes.get(keys.input))
  const recorded = error === null ? parseMaybeJson(span.attributes.get(keys.output)) : undefined
  const { callId, output } = convention === "openinference" && recorded !== undefined
    ? unwrapLangChain(recorded)
    : { output: recorded, callId: undefined }
  const duration = durationMs(span)
  return {
    tool,
    ...(input === undefined ? {} : { input }),
    ...(output === undefined ? {} : { output }),
    error,
    ...(duration === undefined ? {} : { durationMs: duration }),
    callId: text(span, keys.id) ?? callId ?? span.spanId,
    start: span.start
  }
}

const documentKey = /^retrieval\.documents\.(\d+)\.document\.(id|metadata)(?:\.(.+))?$/

/** The documents an OpenInference RETRIEVER span returned (`retrieval.documents.N.document.{id,metadata}`). */
const retrievedBy = (span: Span): ReadonlyArray<RetrievedDocument> => {
  const documents = new Map<number, { id?: string; metadata?: Record<string, unknown> }>()
  for (const [key, value] of span.attributes) {
    const m = documentKey.exec(key)
    if (m === null) continue
    const index = Number(m[1])
    const document = documents.get(index) ?? {}
    documents.set(index, document)
    if (m[2] === "id") {
      const id = attributeText(value)
      if (id !== undefined) document.id = id
    } else if (m[3] === undefined) {
      const metadata = parseMaybeJson(value)
      if (isRecord(metadata)) document.metadata = { ...document.metadata, ...metadata }
    } else {
      document.metadata = { ...document.metadata, [m[3]]: value }
    }
  }
  return [...documents.entries()].sort(([a], [b]) => a - b).map(([, d]) => d)
}

/** The root span of an agent run, and the spans below it (parent first). */
interface AgentRun {
  readonly span: Span
  readonly convention: Convention
  readonly below: Array<Span>
}

/**
 * The turns in a trace: every agent-run span with no agent run above it, read with the spans below it.
 * Problems name the trace, the span and the attribute.
 */
export const readTurnsOf = (trace: Trace, problems: Array<Problem>): ReadonlyArray<ReadTurn> => {
  // Spans come parent first, so a span's agent run is known by the time the span is reached.
  const runOf = new Map<string, AgentRun>()
  const roots: Array<AgentRun> = []
  for (const span of trace.spans) {
    const parentRun = span.parentSpanId === undefined ? undefined : runOf.get(span.parentSpanId)
    if (parentRun !== undefined) {
      runOf.set(span.spanId, parentRun)
      parentRun.below.push(span)
      continue
    }
    const convention = conventionOf(span)
    if (convention !== undefined && isAgentRun(span, convention)) {
      const run: AgentRun = { span, convention, below: [] }
      runOf.set(span.spanId, run)
      roots.push(run)
    }
  }
  return roots.flatMap(({ below, convention, span }) => {
    const r: Reading = { problems, trace, span }
    const before = problems.length
    const root = convention === "gen-ai" ? readGenAi(r) : convention === "ai-sdk" ? readAiSdk(r) : readOpenInference(r)
    const ran = below.filter((s) => isToolSpan(s, convention)).flatMap((s) => {
      const call = readToolCall(r, s, convention)
      return call === undefined ? [] : [call]
    })
    const end = runEndOf(span, convention, below, ran, (at, attribute, message) => problem(r, at, attribute, message))
    const retrieved = below
      .filter((s) =>
        conventionOf(s) === "openinference" && openInferenceKind(s) === "RETRIEVER" && s.status !== "error"
      )
      .flatMap(retrievedBy)
    let caseId: ReadTurn["caseId"]
    let conversationId: ReadTurn["conversationId"]
    for (let at: Span | undefined = span; at !== undefined && (caseId === undefined || conversationId === undefined);) {
      caseId ??= caseIdOn(at)
      conversationId ??= conversationIdOn(at)
      at = at.parentSpanId === undefined ? undefined : trace.byId.get(at.parentSpanId)
    }
    if (problems.length > before || root.question === undefined) return []
    const usage = usageOf(span, convention, below, trace)
    return [{
      file: span.file,
      traceId: trace.traceId,
      spanId: span.spanId,
      convention,
      start: span.start,
      agentName: root.agentName,
      caseId,
      ...(conversationId === undefined ? {} : { conversationId }),
      question: root.question,
      answer: root.answer,
      answerAttribute: root.answerAttribute,
      failed: span.status === "error",
      finished: end.finished,
      toolCalls: [...end.approved, ...ran],
      waiting: end.waiting,
      retrieved,
      ...(usage === undefined ? {} : { usage })
    }]
  })
}
