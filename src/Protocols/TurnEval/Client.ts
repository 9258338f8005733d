/**
 * This product's own protocol (`"protocol": "turn-eval"`, the default): ask the question in a new
 * conversation (`POST endpoint` with `{"message"}`; the answer names `conversationId` and `turnId` in
 * headers, a JSON body or any event of a stream), read the conversation and the turn's trace, delete
 * the conversation. Route templates come from the catalog (docs/contract.md).
 */
import type { HttpClientResponse } from "@effect/platform"
import { Effect, Either } from "effect"
import { giveUp } from "../../Runner/Body.js"
import {
  type Failure,
  failure,
  headerText,
  httpStatus,
  isEventStream,
  isWebPage,
  notJson,
  quoteId,
  refusedId,
  type RouteName,
  type Sent,
  unreachable,
  webPage
} from "../../Runner/Transport.js"
import { decodeValue, isRecord, tooDeep } from "../../Schema/Decode.js"
import type { TurnError } from "../../Schema/Errors.js"
import { AskIds, Conversation, fillRoute, idProblem } from "../../Schema/Protocol.js"
import { fastTurnTrace, TurnTrace } from "../../Schema/Trace.js"
import type { Turn } from "../../Schema/Trace.js"
import type { Asking, AskTurn, Converse, Ongoing, ProtocolClient } from "../Protocol.js"

/**
 * `AskIds` checked without the schema, giving what `decodeValue` would (an event of a stream is read
 * this way, a dozen times an ask): an object, not nested too deep, whose ids are strings where present.
 * Anything else is left to the schema.
 */
export const fastAskIds = (value: unknown): typeof AskIds.Type | undefined => {
  if (!isRecord(value) || tooDeep(value) !== undefined) return undefined
  const hasConversation = Object.hasOwn(value, "conversationId")
  const hasTurn = Object.hasOwn(value, "turnId")
  const conversationId = value["conversationId"]
  const turnId = value["turnId"]
  if ((hasConversation && typeof conversationId !== "string") || (hasTurn && typeof turnId !== "string")) {
    return undefined
  }
  return {
    ...(hasConversation ? { conversationId: conversationId as string } : {}),
    ...(hasTurn ? { turnId: turnId as string } : {})
  }
}

/**
 * An object whose own keys include `__proto__` (JSON can name it) is left to the schema: decoding
 * gives such an object another prototype in place of the key, and the fast path must give what it gives.
 */
const isPlain = (value: unknown): value is Record<string, unknown> =>
  isRecord(value) && !Object.hasOwn(value, "__proto__")

const isDecision = (value: unknown): boolean =>
  isPlain(value) && typeof value["approved"] === "boolean" &&
  (!Object.hasOwn(value, "reason") || typeof value["reason"] === "string")

const isMessage = (value: unknown): boolean =>
  isPlain(value) && typeof value["role"] === "string" && typeof value["content"] === "string" &&
  (!Object.hasOwn(value, "turnId") || value["turnId"] === null || typeof value["turnId"] === "string") &&
  (!Object.hasOwn(value, "decision") || isDecision(value["decision"]))

/** `Conversation` checked without the schema, as `fastTurnTrace` checks a trace: a conversation is used as it is. */
export const fastConversation = (value: unknown): Conversation | undefined =>
  isPlain(value) && typeof value["id"] === "string" && Array.isArray(value["messages"]) &&
    value["messages"].every(isMessage)
    ? value as unknown as Conversation
    : undefined

/** The ids in a JSON text, if it is JSON of that shape. */
const idsIn = (text: string): typeof AskIds.Type | undefined => {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    return undefined
  }
  return fastAskIds(value) ?? Either.getOrUndefined(decodeValue(AskIds, "ask", value, "lenient"))
}

/** The ids a turn's answer names: its conversation and its turn. */
interface TurnIds {
  readonly conversationId: string
  readonly turnId: string
}

/**
 * Reads the ids of an ask's (or a decision's) 2xx answer, from its headers, a JSON body or any event of
 * a stream; every conversation the answer names is noted the moment it is known. `path` is the request's.
 */
const readIds = (
  asking: Asking,
  route: RouteName,
  path: string,
  sent: Sent,
  response: HttpClientResponse.HttpClientResponse
): Effect.Effect<TurnIds, Failure> =>
  Effect.gen(function*() {
    const { named, transport } = asking
    const { headers } = sent
    let turnId = headerText(headers["x-turn-id"])
    // The conversations this answer names: one, in its headers, body or events (earlier answers that
    // failed may have named others, which are deleted all the same).
    const answerIds: Array<string> = []
    const learnConversation = (id: string, where: string) =>
      Effect.zipRight(named(id, where), Effect.sync(() => answerIds.includes(id) || answerIds.push(id)))
    const headerId = headerText(headers["x-conversation-id"])
    // A conversation id refused here fails the ask before its body is read: the body is given up.
    if (headerId !== undefined) {
      yield* Effect.tapError(
        learnConversation(headerId, "x-conversation-id"),
        () => Effect.sync(() => giveUp(response))
      )
    }
    /** Takes the turn id at once, and gives the effect that notes the conversation, if the ids name one. */
    const learn = (ids: typeof AskIds.Type, where: string): Effect.Effect<void, TurnError> => {
      if (turnId === undefined && ids.turnId !== undefined && ids.turnId !== "") turnId = ids.turnId
      return ids.conversationId === undefined ? Effect.void : learnConversation(ids.conversationId, where)
    }
    // The question is not re-asked when its answer breaks off: that would open a second conversation.
    // Only an event that names the conversation costs an effect, and the journal is written before the
    // next event is read.
    const body = isEventStream(sent)
      ? transport.forEachEventData(route, response, (data) => {
        const ids = idsIn(data)
        if (ids === undefined) return undefined
        const noting = learn(ids, "the event stream")
        return noting === Effect.void ? undefined : noting
      })
      : Effect.flatMap(transport.readText(route, response), (text) => {
        const ids = idsIn(text)
        if (ids !== undefined) return learn(ids, "the body")
        // Ids in headers make any body acceptable (plain text, say); without them it had to be JSON.
        if (headerId !== undefined) return Effect.void
        return Effect.fail(
          isWebPage(headers["content-type"] ?? "")
            ? webPage(route, response.status, transport.urlOf(path).href)
            : notJson(route)
        )
      })
    yield* body.pipe(Effect.catchTag("TransportFailure", (error) => unreachable(route, error)))
    const conversationId = answerIds[0]
    if (conversationId === undefined) return yield* failure(route, "the answer carries no conversationId")
    if (answerIds.length > 1) {
      return yield* failure(
        route,
        `named ${answerIds.length} conversations (${answerIds.map(quoteId).join(", ")}); each is deleted`
      )
    }
    if (turnId === undefined) return yield* failure(route, "the answer carries no turnId")
    const turnProblem = idProblem(turnId)
    if (turnProblem !== undefined) {
      return yield* refusedId("turn", turnId, turnProblem)
    }
    return { conversationId, turnId }
  })

/** What an ask and a decision accept: JSON or an event stream, an error's body kept for its ids. */
const answerKinds = { accept: "application/json, text/event-stream", keepErrorBody: true } as const

/** Asks the question in a new conversation; every conversation the app names is noted the moment it is known. */
const ask = (asking: Asking): Effect.Effect<TurnIds, Failure> => {
  const endpoint = asking.surface.endpoint ?? ""
  return asking.open({
    route: "ask",
    path: endpoint,
    options: { body: { message: asking.question }, ...answerKinds },
    namedInFailure: (sent) => [headerText(sent.headers["x-conversation-id"]), idsIn(sent.text ?? "")?.conversationId],
    read: (sent, response) => readIds(asking, "ask", endpoint, sent, response)
  })
}

/** A turn's conversation and trace, read together once its answer named them. */
const readTurn = (asking: Asking, ids: TurnIds): Effect.Effect<Turn, Failure> =>
  Effect.gen(function*() {
    const { at, named, retrying, routes, transport } = asking
    const conversationPath = fillRoute(routes.conversation, ids)
    const tracePath = fillRoute(routes.trace, ids)
    // The two reads need nothing of each other: they run together. The request a failure or a timeout
    // names is the conversation's until it is read, then the trace's while that is still being read.
    let traceRead = false
    yield* at("conversation", "GET", conversationPath)
    const [conversation, trace] = yield* Effect.all([
      Effect.tap(
        transport.readJson("conversation", conversationPath, Conversation, retrying, fastConversation),
        () => traceRead ? Effect.void : at("trace", "GET", tracePath)
      ),
      transport.readJson("trace", tracePath, TurnTrace, retrying, fastTurnTrace).pipe(
        Effect.tap(() => Effect.sync(() => (traceRead = true))),
        Effect.tapError(() => at("trace", "GET", tracePath))
      )
    ], { concurrency: 2 })
    if (conversation.id !== ids.conversationId) {
      // The app answered with another conversation: it is deleted too, if its id can be.
      yield* Effect.ignore(named(conversation.id, "the conversation route"))
      return yield* failure(
        "conversation",
        `is conversation ${quoteId(conversation.id)}, not ${quoteId(ids.conversationId)}; each is deleted`
      )
    }
    yield* at("trace", "GET", tracePath)
    if (trace.turnId !== ids.turnId) {
      return yield* failure("trace", `is for turn ${quoteId(trace.turnId)}, not ${quoteId(ids.turnId)}`)
    }
    const assistant = conversation.messages.filter((m) => m.role === "assistant")
    const message = assistant.some((m) => m.turnId !== undefined && m.turnId !== null)
      ? assistant.find((m) => m.turnId === ids.turnId)
      : assistant[assistant.length - 1]
    if (message === undefined) {
      yield* at("conversation", "GET", conversationPath)
      return yield* failure("conversation", `no assistant message for turn ${quoteId(ids.turnId)}`)
    }
    return { answer: message.content, trace }
  })

/** A turn of this product's own protocol: the ask, then the conversation and the trace read together. */
export const turnEvalTurn: AskTurn = (asking) => Effect.flatMap(ask(asking), (ids) => readTurn(asking, ids))

/**
 * A conversation of this product's own protocol: the first question asked as a turn is; a follow-up is
 * an ask carrying the `conversationId`; a decision is `POST routes.decide` (the proposal's id in the
 * path) with `{"approved": true}` or `{"approved": false, "reason"}`, answered like an ask. Each later
 * turn must be in the same conversation, and is read as the first is.
 */
export const turnEvalConverse: Converse = (asking) =>
  Effect.gen(function*() {
    const ids = yield* ask(asking)
    const first = yield* readTurn(asking, ids)
    const endpoint = asking.surface.endpoint ?? ""
    const conversation: Ongoing = {
      next: (step) =>
        Effect.gen(function*() {
          const [route, path, body] = step.kind === "ask"
            ? ["ask" as const, endpoint, { message: step.question, conversationId: ids.conversationId }]
            : [
              "decide" as const,
              fillRoute(asking.routes.decide, { proposalId: step.proposal.id }),
              step.approved ? { approved: true } : { approved: false, reason: step.reason ?? "" }
            ]
          yield* asking.at(route, "POST", path)
          const sent = yield* asking.ask(route, path, { body, ...answerKinds })
          if (sent.response === undefined) return yield* httpStatus(route, sent.status)
          const next = yield* readIds(asking, route, path, sent, sent.response)
          if (next.conversationId !== ids.conversationId) {
            return yield* failure(
              route,
              `answered in conversation ${quoteId(next.conversationId)}, not ${
                quoteId(ids.conversationId)
              }; each is deleted`
            )
          }
          return yield* readTurn(asking, next)
        })
    }
    return [first, conversation] as const
  })

/** The client a live run asks this protocol's surfaces through. */
export const client: ProtocolClient<{ readonly by: "server" }> = {
  turn: turnEvalTurn,
  converse: turnEvalConverse,
  deleteRoute: (_, routes) => routes.delete
}
