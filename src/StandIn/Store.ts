/**
 * What the stand-in holds, whichever wire a request came in on: the accounts and their sessions, the
 * conversations (threads, chats) with the turn each holds, the ratings, the faults in force and the
 * counters a test reads. Every wire asks through it, so the cap, the flaky questions and the stats
 * count alike for every protocol.
 */
import { randomBytes } from "node:crypto"
import { fnv1a } from "../Hash.js"
import type { ProtocolName } from "../Protocols/Registry.js"
import type { Route } from "../Schema/Protocol.js"
import type { Proposal } from "../Schema/Trace.js"
import type { AssistantTurn, Decision } from "./Assistant.js"
import { decideWithFlaws, recallsFromMemory, respondWithFlaws } from "./Flaws.js"
import { sendJson, type WireRequest, type WireResponse } from "./Http.js"
import type {
  Fault,
  FaultKind,
  StandInOptions,
  StandInStats,
  StoredConversation,
  StoredExchange,
  StoredRating
} from "./Server.js"

/** A stable fraction in [0, 1) for a string (FNV-1a), so a rate selects the same questions every run. */
export const stableFraction = (text: string): number => fnv1a(text) / 0x1_0000_0000

/** The name of the stand-in's session cookie. */
export const cookieName = "standin_session"

/** The stand-in's state and the checks every request goes through. */
export interface Store {
  readonly options: StandInOptions
  /** The first account: the one the stand-in prints, and that seeded ratings go to. */
  readonly first: string
  /** Open conversations an account may hold. */
  readonly maxConversations: number
  /** The session token of an account. */
  readonly tokenOf: (account: string) => string | undefined
  /** Counters since start. */
  readonly stats: () => StandInStats
  /** Settles once `count` requests of `route` have come since start. */
  readonly whenRequests: (route: Route, count: number) => Promise<void>
  /** Counts a request in flight until its answer closes. */
  readonly track: (response: WireResponse) => void
  /** Replaces the faults. */
  readonly setFaults: (faults: ReadonlyArray<Fault>) => void
  /**
   * The fault a request of `route` about `question` gets, if any. A request that carries no question
   * (`undefined`: a LangGraph thread being created) is hit by every fault of its route without a
   * `match`, whatever the rate; `times` then counts that route's requests. `takes` limits the faults
   * to those this request can take (a LangGraph thread's creation takes only `id`).
   */
  readonly faultFor: (
    route: Route,
    question: string | undefined,
    takes?: (fault: FaultKind) => boolean
  ) => FaultKind | undefined
  /**
   * Counts the request, waits the route's latency and checks its session: `work` runs for a
   * signed-in account; without one the answer is 401.
   */
  readonly guard: (
    request: WireRequest,
    response: WireResponse,
    route: Route | undefined,
    work: (account: string) => Promise<void> | void
  ) => Promise<void>
  /** Whether the account holds its cap of conversations; a hit is counted. */
  readonly atCap: (account: string) => boolean
  /** Opens a conversation of the stand-in's own protocol, with its ids made here. */
  readonly open: (account: string, surface: string, question: string) => StoredConversation
  /** Opens a conversation under an id chosen elsewhere (an AI SDK chat id, a LangGraph thread id), asked or not yet. */
  readonly openAs: (
    account: string,
    protocol: ProtocolName,
    id: string,
    asked?: { readonly surface: string; readonly question: string; readonly turnId: string }
  ) => StoredConversation
  /** Asks a question in a conversation that is open already: it holds this turn from now on. */
  readonly ask: (
    conversation: StoredConversation,
    surface: string,
    question: string,
    turnId: string
  ) => StoredConversation
  /**
   * Asks a follow-up in a conversation: answered in view of the questions asked before it, the
   * conversation's turn so far kept as an earlier exchange.
   */
  readonly followUp: (conversation: StoredConversation, question: string) => StoredConversation
  /**
   * Answers the pending proposal of a conversation's turn: the decision carried out (with the stand-in's
   * flaws, and its miscarriage if one is set), the turn so far kept as an earlier exchange. None when the
   * turn left no pending proposal.
   */
  readonly decide: (conversation: StoredConversation, decision: Decision) => StoredConversation | undefined
  /** Whether the next ask of `question` is the worse answer of a flaky question, counting the ask. */
  readonly nextAsk: (question: string) => boolean
  /** A turn id, unique in this run. */
  readonly newTurnId: () => string
  /** The conversation with this id, when the account holds it. */
  readonly conversation: (account: string, id: string) => StoredConversation | undefined
  /** Whether any account holds a conversation by this id. */
  readonly isTaken: (id: string) => boolean
  /** The conversation holding this turn, when the account holds it. */
  readonly conversationOfTurn: (account: string, turnId: string) => StoredConversation | undefined
  /** The conversations an account holds. */
  readonly conversationsOf: (account: string) => ReadonlyArray<StoredConversation>
  /** Deletes a conversation and its rating. */
  readonly remove: (conversation: StoredConversation) => void
  /** The turn a conversation holds: the flawed assistant's, or the worse one of a flaky question. */
  readonly turnOf: (conversation: StoredConversation) => AssistantTurn
  /** The turn for a question asked without a conversation (a stateless protocol's). */
  readonly answer: (surface: string, question: string, worse: boolean) => AssistantTurn
  /** Stores a rating of a turn, replacing any earlier one. */
  readonly rate: (rating: StoredRating) => void
  /** The ratings of an account's turns. */
  readonly ratingsOf: (account: string) => ReadonlyArray<StoredRating>
}

/** The stand-in's state for these options. */
export const makeStore = (options: StandInOptions): Store => {
  const accounts = options.accounts ?? ["demo", "other"]
  const first = accounts[0] ?? "demo"
  const maxConversations = options.maxConversations ?? 16
  const tokens = new Map(accounts.map((account) => [randomBytes(16).toString("hex"), account] as const))
  const tokenOf = new Map([...tokens].map(([token, account]) => [account, token] as const))
  const runId = randomBytes(3).toString("hex")
  let faults = options.faults ?? []
  const attempts = new Map<string, number>()
  const conversations = new Map<string, StoredConversation>()
  const byTurn = new Map<string, StoredConversation>()
  const ratings = new Map<string, StoredRating>()
  const asks = new Map<string, number>()
  let counter = 0
  let inFlight = 0
  const stats = {
    requests: { ask: 0, conversation: 0, trace: 0, delete: 0, ratings: 0 } as Record<Route, number>,
    peakInFlight: 0,
    created: 0,
    deleted: 0,
    capHits: 0,
    unauthorized: 0
  }
  const waiting = new Set<{ readonly route: Route; readonly count: number; readonly wake: () => void }>()

  // A session is the cookie, or the same token as a bearer token or an API key, as header-signed apps take it.
  const accountOf = (request: WireRequest): string | undefined => {
    for (const part of (request.headers.cookie ?? "").split(";")) {
      const [name, ...value] = part.trim().split("=")
      if (name === cookieName) return tokens.get(value.join("="))
    }
    const bearer = /^Bearer\s+(\S+)\s*$/i.exec(request.headers.authorization ?? "")
    if (bearer !== null) return tokens.get(bearer[1]!)
    const apiKey = request.headers["x-api-key"]
    return typeof apiKey === "string" ? tokens.get(apiKey.trim()) : undefined
  }

  const faultFor = (
    route: Route,
    question: string | undefined,
    takes?: (fault: FaultKind) => boolean
  ): FaultKind | undefined => {
    for (const fault of faults) {
      if (fault.route !== route || (takes !== undefined && !takes(fault))) continue
      if (fault.match !== undefined && (question === undefined || !question.includes(fault.match))) continue
      if (
        question !== undefined && fault.rate !== undefined && stableFraction(`${route}\u0000${question}`) >= fault.rate
      ) continue
      if (fault.times !== undefined) {
        const key = `${route}\u0000${question ?? ""}`
        const seen = attempts.get(key) ?? 0
        attempts.set(key, seen + 1)
        if (seen >= fault.times) continue
      }
      return fault
    }
    return undefined
  }

  const store = (conversation: StoredConversation): StoredConversation => {
    const earlier = conversations.get(conversation.id)
    // A turn the conversation keeps as an earlier exchange stays readable, and rated; one asked over is gone.
    const kept = new Set((conversation.earlier ?? []).map((e) => e.turnId))
    if (earlier !== undefined && earlier.turnId !== conversation.turnId && !kept.has(earlier.turnId)) {
      byTurn.delete(earlier.turnId)
      ratings.delete(earlier.turnId)
    }
    conversations.set(conversation.id, conversation)
    for (const turnId of kept) byTurn.set(turnId, conversation)
    if (conversation.turnId !== "") byTurn.set(conversation.turnId, conversation)
    return conversation
  }

  const isFlaky = (question: string): boolean =>
    typeof options.flaky === "number"
      ? stableFraction(`flaky\u0000${question}`) < options.flaky
      : (options.flaky ?? []).includes(question)
  const nextAsk = (question: string): boolean => {
    const asked = (asks.get(question) ?? 0) + 1
    asks.set(question, asked)
    return asked % 2 === 0 && isFlaky(question)
  }
  const answer = (surface: string, question: string, worse: boolean): AssistantTurn => {
    const turn = respondWithFlaws(surface, question)
    return worse ? recallsFromMemory(turn) : turn
  }
  const turnOf = (conversation: StoredConversation): AssistantTurn =>
    conversation.held ?? answer(conversation.surface, conversation.question, conversation.worse)
  const newTurnId = () => {
    counter++
    return `turn_${runId}${counter.toString(36)}`
  }
  /** A conversation's turn so far, as an earlier exchange of it. */
  const exchangeOf = (conversation: StoredConversation): StoredExchange => ({
    turnId: conversation.turnId,
    said: conversation.question,
    ...(conversation.decision === undefined ? {} : { decision: conversation.decision }),
    turn: turnOf(conversation)
  })
  /** The conversation gone on to its next turn: its turn so far kept as an earlier exchange. */
  const goOn = (conversation: StoredConversation, said: string, turn: AssistantTurn, decision?: Decision) =>
    store({
      ...conversation,
      earlier: [...(conversation.earlier ?? []), exchangeOf(conversation)],
      question: said,
      turnId: newTurnId(),
      worse: false,
      held: turn,
      decision
    })
  /** The proposal a conversation's turn left pending, if it left one. */
  const pendingProposal = (conversation: StoredConversation): Proposal | undefined => {
    const { outcome, proposal } = turnOf(conversation)
    return proposal !== null && outcome === "awaiting-approval" && (proposal.status ?? "pending") === "pending"
      ? proposal
      : undefined
  }
  const owned = (account: string, conversation: StoredConversation | undefined) =>
    conversation !== undefined && conversation.account === account ? conversation : undefined
  const conversationsOf = (account: string) => [...conversations.values()].filter((c) => c.account === account)

  return {
    options,
    first,
    maxConversations,
    tokenOf: (account) => tokenOf.get(account),
    stats: () => ({ ...stats, requests: { ...stats.requests } }),
    whenRequests: (route, count) =>
      stats.requests[route] >= count
        ? Promise.resolve()
        : new Promise((wake) => void waiting.add({ route, count, wake: () => wake() })),
    track: (response) => {
      inFlight++
      stats.peakInFlight = Math.max(stats.peakInFlight, inFlight)
      response.onClose(() => inFlight--)
    },
    setFaults: (next) => {
      faults = next
      attempts.clear()
    },
    faultFor,
    guard: async (request, response, route, work) => {
      if (route !== undefined) {
        stats.requests[route]++
        for (const waiter of waiting) {
          if (waiter.route === route && stats.requests[route] >= waiter.count) {
            waiting.delete(waiter)
            waiter.wake()
          }
        }
      }
      const wait = route === undefined ? 0 : options.latency?.[route] ?? 0
      if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
      const account = accountOf(request)
      if (account === undefined) {
        stats.unauthorized++
        return sendJson(response, 401, { error: "sign in first" })
      }
      return work(account)
    },
    atCap: (account) => {
      if (conversationsOf(account).length < maxConversations) return false
      stats.capHits++
      return true
    },
    open: (account, surface, question) => {
      counter++
      const conversation: StoredConversation = {
        id: `conv_${runId}${counter.toString(36)}`,
        protocol: "turn-eval",
        account,
        surface,
        question,
        turnId: `turn_${runId}${counter.toString(36)}`,
        worse: nextAsk(question)
      }
      stats.created++
      return store(conversation)
    },
    openAs: (account, protocol, id, asked) => {
      stats.created++
      return store({
        id,
        protocol,
        account,
        surface: asked?.surface ?? "",
        question: asked?.question ?? "",
        turnId: asked?.turnId ?? "",
        worse: asked === undefined ? false : nextAsk(asked.question)
      })
    },
    ask: (conversation, surface, question, turnId) =>
      store({ ...conversation, surface, question, turnId, worse: nextAsk(question) }),
    followUp: (conversation, question) => {
      const asked = [...(conversation.earlier ?? []), exchangeOf(conversation)].filter((e) => e.decision === undefined)
      return goOn(conversation, question, respondWithFlaws(conversation.surface, question, asked.map((e) => e.said)))
    },
    decide: (conversation, decision) => {
      const proposal = pendingProposal(conversation)
      if (proposal === undefined) return undefined
      const said = decision.approved ? "approved" : `denied: ${decision.reason}`
      return goOn(conversation, said, decideWithFlaws(proposal, decision, options.miscarriage), decision)
    },
    nextAsk,
    newTurnId,
    conversation: (account, id) => owned(account, conversations.get(id)),
    isTaken: (id) => conversations.has(id),
    conversationOfTurn: (account, turnId) => owned(account, byTurn.get(turnId)),
    conversationsOf,
    remove: (conversation) => {
      conversations.delete(conversation.id)
      for (const turnId of [conversation.turnId, ...(conversation.earlier ?? []).map((e) => e.turnId)]) {
        byTurn.delete(turnId)
        ratings.delete(turnId)
      }
      stats.deleted++
    },
    turnOf,
    answer,
    rate: (rating) => void ratings.set(rating.turnId, rating),
    ratingsOf: (account) =>
      [...ratings.values()].filter((r) => conversations.get(r.conversationId)?.account === account)
  }
}
