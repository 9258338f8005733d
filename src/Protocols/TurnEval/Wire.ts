/**
 * The stand-in's own protocol (docs/protocol.md): the ask answers the new conversation's ids as JSON,
 * an event stream or headers; the conversation and trace routes read it back; the delete route
 * deletes it; users rate turns and the ratings route lists them. The delete route also deletes AI SDK
 * chats, which are named by an id as these conversations are.
 */
import { isRecord } from "../../Schema/Decode.js"
import type { Route } from "../../Schema/Protocol.js"
import type { Decision } from "../../StandIn/Assistant.js"
import {
  deletesAnyway,
  injure,
  padding,
  sendJson,
  sseFrame,
  type Target,
  type TemplateMatcher,
  templateMatcher,
  type WireRequest,
  type WireResponse
} from "../../StandIn/Http.js"
import type { AnswerMode, FaultKind, StoredConversation, StoredRating } from "../../StandIn/Server.js"
import type { Store } from "../../StandIn/Store.js"
import {
  deltas,
  type Handler,
  type Incoming,
  type MakeWire,
  type ServedSurface,
  surfacesOf,
  type WireContext
} from "../../StandIn/Wire.js"

/** The route a turn is rated on; the stand-in's own, not one the catalog sets. */
const rateTemplate = "/api/ai/turns/{turnId}/rating"

/** One route template and the surfaces that use it. */
interface Served {
  readonly template: string
  readonly match: TemplateMatcher
  readonly surfaces: ReadonlySet<string>
}

/** The distinct templates of one route across surfaces. */
const templatesOf = (
  context: WireContext,
  surfaces: ReadonlyArray<ServedSurface>,
  route: "conversation" | "trace" | "delete"
) => {
  const byTemplate = new Map<string, Set<string>>()
  for (const s of surfaces) {
    const template = s.routes[route]
    if (template === null) continue
    byTemplate.set(template, (byTemplate.get(template) ?? new Set()).add(s.name))
  }
  return [...byTemplate].map(([template, names]): Served => ({
    template,
    match: templateMatcher(context.prefix, template),
    surfaces: names
  }))
}

const matchAny = (served: ReadonlyArray<Served>, target: Target) => {
  for (const s of served) {
    const found = s.match(target)
    if (found !== undefined) return { served: s, found }
  }
  return undefined
}

/** The stand-in's own protocol. */
export const make: MakeWire = (context) => {
  const { prefix, store } = context
  const own = surfacesOf(context, "turn-eval")
  const endpoints = new Map(own.map((s) => [prefix + (s.surface.endpoint ?? ""), s] as const))
  const conversationRoutes = templatesOf(context, own, "conversation")
  const traceRoutes = templatesOf(context, own, "trace")
  const deleteRoutes = templatesOf(context, [...own, ...surfacesOf(context, "ai-sdk")], "delete")
  const rateRoute = templateMatcher(prefix, rateTemplate)
  // Each surface decides on its proposals through its own decide route; the conversation is found by the proposal.
  const decideRoutes = [...new Set(own.map((s) => s.routes.decide))].map((template) => ({
    template,
    match: templateMatcher(prefix, template),
    surfaces: new Set(own.filter((s) => s.routes.decide === template).map((s) => s.name))
  }))
  // The ratings route's template may carry a query (`?rating=down`); the path alone selects the route.
  const ratingsPath = prefix + (context.catalogRoutes.ratings.split("?")[0] ?? "")

  const modeOf = (s: ServedSurface): AnswerMode =>
    store.options.answerModes?.[s.name] ?? ((s.surface.gatedTools ?? []).length > 0 ? "json" : "stream")

  const route = ({ method, request, response, target }: Incoming): Handler | undefined => {
    const surface = endpoints.get(target.path)
    if (surface !== undefined && method === "POST") {
      const mode = modeOf(surface)
      return () =>
        store.guard(request, response, "ask", (account) => handleAsk(store, request, response, account, surface, mode))
    }
    const decision = method === "POST" ? matchAny(decideRoutes, target) : undefined
    if (decision !== undefined) {
      const proposalId = decodeURIComponent(decision.found.proposalId ?? "")
      return () =>
        store.guard(request, response, "ask", (account) => {
          const held = store.conversationsOf(account).find((c) =>
            c.protocol === "turn-eval" && decision.served.surfaces.has(c.surface) &&
            store.turnOf(c).proposal?.id === proposalId
          )
          const surface = held === undefined ? undefined : own.find((s) => s.name === held.surface)
          if (held === undefined || surface === undefined) return sendJson(response, 404, { error: "no such proposal" })
          return handleDecision(store, request, response, held, modeOf(surface))
        })
    }
    const rate = method === "POST" ? rateRoute(target) : undefined
    if (rate !== undefined) {
      return () =>
        store.guard(
          request,
          response,
          undefined,
          (account) => handleRate(store, request, response, account, rate.turnId ?? "")
        )
    }
    if (method === "GET" && target.path === ratingsPath) {
      return () =>
        store.guard(request, response, "ratings", (account) => {
          const body = listRatings(store, target, account)
          const fault = store.faultFor("ratings", "")
          return fault === undefined
            ? sendJson(response, 200, body)
            : injure(response, "ratings", fault, target.path, body)
        })
    }
    const matched = method === "GET"
      ? readRoute(traceRoutes, conversationRoutes, target)
      : method === "DELETE"
      ? withRoute("delete", matchAny(deleteRoutes, target))
      : undefined
    if (matched === undefined) return undefined
    return () =>
      store.guard(request, response, matched.route, (account) => {
        const { found, served } = matched.match
        const held = matched.route === "trace"
          ? store.conversationOfTurn(account, decodeURIComponent(found.turnId ?? ""))
          : store.conversation(account, decodeURIComponent(found.conversationId ?? ""))
        // A conversation is reached only through the routes of its own surface.
        const conversation = held !== undefined && served.surfaces.has(held.surface) ? held : undefined
        if (conversation === undefined) return sendJson(response, 404, { error: "not found" })
        return answerRead(
          store,
          response,
          matched.route,
          conversation,
          target.path,
          decodeURIComponent(found.turnId ?? "")
        )
      })
  }

  return {
    route,
    serves: [
      ...own.map((s) =>
        `POST ${prefix}${s.surface.endpoint ?? ""}  ask ${s.name} (this product's protocol, answering ${modeOf(s)})`
      ),
      ...decideRoutes.map((r) => `POST ${prefix}${r.template}  approve or deny a proposal`),
      ...conversationRoutes.map((r) => `GET ${prefix}${r.template}  a conversation`),
      ...traceRoutes.map((r) => `GET ${prefix}${r.template}  a turn's trace`),
      ...deleteRoutes.map((r) =>
        `DELETE ${prefix}${r.template}  delete a conversation (${[...r.surfaces].join(", ")})`
      ),
      ...(own.length === 0
        ? []
        : [`GET ${ratingsPath}  the thumbs-down ratings`, `POST ${prefix}${rateTemplate}  rate a turn`])
    ]
  }
}

const withRoute = (route: Route, match: ReturnType<typeof matchAny>) =>
  match === undefined ? undefined : { route, match }

// The trace route is tried first: its template is the more specific where the two share a prefix.
const readRoute = (traceRoutes: ReadonlyArray<Served>, conversationRoutes: ReadonlyArray<Served>, target: Target) =>
  withRoute("trace", matchAny(traceRoutes, target)) ?? withRoute("conversation", matchAny(conversationRoutes, target))

/** A user message of a conversation: one that answered a proposal carries the decision. */
const userMessage = (content: string, decision: Decision | undefined) =>
  decision === undefined
    ? { role: "user", content }
    : { role: "user", content, decision }

/** Answers a read or a delete of a conversation the account holds. */
const answerRead = (
  store: Store,
  response: WireResponse,
  route: Route,
  conversation: StoredConversation,
  path: string,
  turnId: string
) => {
  const turn = store.turnOf(conversation)
  // The trace of an earlier turn of the conversation is that exchange's.
  const exchange = (conversation.earlier ?? []).find((e) => e.turnId === turnId)
  const body = route === "trace"
    ? exchange === undefined
      ? { turnId: conversation.turnId, surface: conversation.surface, ...turn }
      : { turnId: exchange.turnId, surface: conversation.surface, ...exchange.turn }
    : route === "conversation"
    ? {
      id: conversation.id,
      messages: [
        ...(conversation.earlier ?? []).flatMap((e) => [
          userMessage(e.said, e.decision),
          { role: "assistant", content: e.turn.answer, turnId: e.turnId }
        ]),
        userMessage(conversation.question, conversation.decision),
        { role: "assistant", content: turn.answer, turnId: conversation.turnId }
      ]
    }
    : { deleted: conversation.id }
  const fault = store.faultFor(route, conversation.question)
  if (fault !== undefined) {
    if (route === "delete" && deletesAnyway(fault)) store.remove(conversation)
    return injure(response, route, fault, path, body)
  }
  if (route === "delete") store.remove(conversation)
  return sendJson(response, 200, body)
}

const handleAsk = async (
  store: Store,
  request: WireRequest,
  response: WireResponse,
  account: string,
  surface: ServedSurface,
  mode: AnswerMode
) => {
  const body = jsonBody(await request.text())
  const question = body?.["message"]
  const inConversation = body?.["conversationId"]
  if (
    typeof question !== "string" || question.trim() === "" ||
    (inConversation !== undefined && typeof inConversation !== "string")
  ) {
    return sendJson(response, 400, { error: "expected a JSON body {\"message\": QUESTION, \"conversationId\"?: ID}" })
  }
  if (typeof inConversation === "string") {
    // A follow-up: asked in a conversation of the account's on this surface, answered in view of it.
    const held = store.conversation(account, inConversation)
    if (held === undefined || held.protocol !== "turn-eval" || held.surface !== surface.name) {
      return sendJson(response, 404, { error: "no such conversation" })
    }
    return answerTurn(store, response, store.followUp(held, question), mode)
  }
  const fault = store.faultFor("ask", question)
  if (
    fault !== undefined && fault.kind !== "reset" && fault.kind !== "huge" && fault.kind !== "opened" &&
    fault.kind !== "id"
  ) {
    return injure(response, "ask", fault, request.url, { error: "fault" })
  }
  if (store.atCap(account)) {
    return sendJson(response, 429, { error: `conversation cap reached (${store.maxConversations} open)` })
  }
  const conversation = store.open(account, surface.name, question)
  if (fault?.kind === "opened") {
    const named = { conversationId: conversation.id, turnId: conversation.turnId }
    return sendJson(response, fault.status, { error: `injected HTTP ${fault.status}`, ...named }, {
      "x-conversation-id": conversation.id
    })
  }
  return answerTurn(store, response, conversation, mode, fault, request.url)
}

/** A JSON body's object, if it is one. */
const jsonBody = (raw: string | undefined): Record<string, unknown> | undefined => {
  try {
    const parsed: unknown = raw === undefined ? undefined : JSON.parse(raw)
    return isRecord(parsed) ? parsed : undefined
  } catch {
    return undefined
  }
}

/**
 * A decision on the proposal a conversation's turn left: `{"approved": true}` or `{"approved": false,
 * "reason": …}`, carried out and answered as an ask is, in the same conversation.
 */
const handleDecision = async (
  store: Store,
  request: WireRequest,
  response: WireResponse,
  conversation: StoredConversation,
  mode: AnswerMode
) => {
  const body = jsonBody(await request.text())
  const approved = body?.["approved"]
  const reason = body?.["reason"]
  if (typeof approved !== "boolean" || (reason !== undefined && typeof reason !== "string")) {
    return sendJson(response, 400, { error: "expected a JSON body {\"approved\": true | false, \"reason\"?: TEXT}" })
  }
  const decided = store.decide(
    conversation,
    approved ? { approved } : { approved, reason: typeof reason === "string" ? reason : "" }
  )
  if (decided === undefined) return sendJson(response, 409, { error: "the proposal is not pending" })
  return answerTurn(store, response, decided, mode)
}

/** Answers a conversation's turn as the surface answers: an event stream, headers or JSON; a fault injures it. */
const answerTurn = (
  store: Store,
  response: WireResponse,
  conversation: StoredConversation,
  mode: AnswerMode,
  fault?: FaultKind | undefined,
  url = ""
) => {
  const { answer } = store.turnOf(conversation)
  // Under an `id` fault the answer names the conversation by another id.
  const conversationId = fault?.kind === "id" ? fault.id : conversation.id
  const ids = { conversationId, turnId: conversation.turnId }
  if (mode === "stream") {
    response.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" })
    response.write(sseFrame({ type: "start", conversationId }))
    const chunks = deltas(answer)
    if (fault?.kind === "reset") {
      response.write(sseFrame({ type: "text-delta", delta: chunks[0] ?? "" }), () => response.drop())
      return
    }
    for (const delta of chunks) response.write(sseFrame({ type: "text-delta", delta }))
    if (fault?.kind === "huge") response.write(sseFrame({ type: "debug", padding: padding(fault) }))
    response.write(sseFrame({ type: "finish", turnId: conversation.turnId }))
    return void response.end("data: [DONE]\n\n")
  }
  const headers = { "x-conversation-id": conversationId, "x-turn-id": conversation.turnId }
  if (fault !== undefined && fault.kind !== "id") {
    for (const [name, value] of Object.entries(headers)) response.setHeader(name, value)
    return injure(response, "ask", fault, url, { ...ids, answer })
  }
  if (mode === "headers") {
    response.writeHead(200, { "content-type": "text/plain; charset=utf-8", ...headers })
    return void response.end(answer)
  }
  return sendJson(response, 200, { ...ids, answer }, headers)
}

/** Rates a turn of the account: `{"rating": "up" | "down", "comment"?: string}`. */
const handleRate = async (
  store: Store,
  request: WireRequest,
  response: WireResponse,
  account: string,
  rawTurnId: string
) => {
  const turnId = decodeURIComponent(rawTurnId)
  const conversation = store.conversationOfTurn(account, turnId)
  if (conversation === undefined) return sendJson(response, 404, { error: "not found" })
  const raw = await request.text()
  let body: Record<string, unknown> | undefined
  try {
    const parsed: unknown = raw === undefined ? undefined : JSON.parse(raw)
    body = isRecord(parsed) ? parsed : undefined
  } catch {
    body = undefined
  }
  const rating = body?.rating
  const comment = body?.comment
  if (
    (rating !== "up" && rating !== "down") || (comment !== undefined && comment !== null && typeof comment !== "string")
  ) {
    return sendJson(response, 400, {
      error: "expected a JSON body {\"rating\": \"up\" | \"down\", \"comment\"?: TEXT}"
    })
  }
  const stored: StoredRating = {
    turnId,
    conversationId: conversation.id,
    rating,
    ...(typeof comment === "string" && comment.trim() !== "" ? { comment } : {})
  }
  store.rate(stored)
  return sendJson(response, 200, stored)
}

/** The account's ratings with the asked rating (`?rating=`, thumbs-down when not given). */
const listRatings = (store: Store, target: Target, account: string) => {
  const asked = target.query.get("rating") ?? "down"
  return store.ratingsOf(account)
    .filter((r) => r.rating === asked)
    .map(({ comment, conversationId, turnId }) =>
      comment === undefined ? { turnId, conversationId } : { turnId, conversationId, comment }
    )
}
