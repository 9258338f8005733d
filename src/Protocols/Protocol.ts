/**
 * What every live protocol shares: a protocol asks a surface's question over its own wire format and
 * reads the turn — the answer and its `TurnTrace` — from what that wire carries, by the surface's
 * evidence rules. Reading is pure: a protocol's reader takes what the wire carried, already parsed,
 * and gives the turn or why the wire cannot be read as one.
 */
import type { HttpClientResponse } from "@effect/platform"
import type { Effect, Either, Option, Ref } from "effect"
import type { ResolvedEvidence } from "../Evidence/Rules.js"
import type { Failure, RouteName, SendOptions, Sent, Transport } from "../Runner/Transport.js"
import type { Case } from "../Schema/Case.js"
import type { TurnError } from "../Schema/Errors.js"
import type { Route } from "../Schema/Protocol.js"
import type { Routes, Surface } from "../Schema/Surface.js"
import type { Proposal, Turn } from "../Schema/Trace.js"
import type { AskFault } from "../StandIn/Faults.js"
import type { MakeWire } from "../StandIn/Wire.js"

/** What reading a turn from a wire needs to know besides the wire itself. */
export interface ReadContext {
  /** The surface's name: the trace's `surface`. */
  readonly surface: string
  /** The conversation (chat, thread) the turn was asked in. */
  readonly conversationId: string
  /** The surface's gated tools. */
  readonly gatedTools: ReadonlyArray<string>
  /** The surface's evidence rules, defaults filled in. */
  readonly evidence: ResolvedEvidence
}

/** A turn read from a wire, or why the wire cannot be read as one (in words a case's failure uses). */
export type Read = Either.Either<Turn, string>

/**
 * A request that opens a conversation the app names (this product's ask, a LangGraph thread): the live
 * client journals and deletes what the answer names, and knows, when the request is cut short or fails,
 * whether the app may hold a conversation the run cannot name.
 */
export interface Opening<A> {
  readonly route: RouteName
  readonly path: string
  readonly options: SendOptions
  /**
   * The route that finds the run's conversations by its key (the request tags what it opens with
   * `Asking.run`): journalled before the request, so a run killed before the answer leaves the
   * conversation to `eval cleanup`'s search.
   */
  readonly search?: string
  /** The conversation ids an answer other than 2xx names: each is deleted all the same. */
  readonly namedInFailure?: (sent: Sent) => ReadonlyArray<string | undefined>
  /** Reads a 2xx answer, naming its conversation through `Asking.named`, into what the turn goes on with. */
  readonly read: (sent: Sent, response: HttpClientResponse.HttpClientResponse) => Effect.Effect<A, Failure>
}

/**
 * Everything a protocol needs to ask one case's question and obtain its turn. The live client keeps
 * every piece of cleanup state: a protocol says which requests it makes and what their answers name.
 */
export interface Asking {
  readonly testCase: Case
  /** The question the turn asks: the case's, or its step's. */
  readonly question: string
  readonly surface: Surface
  /** The surface's routes: its own over the catalog's, over the defaults. */
  readonly routes: Required<Routes>
  /** The surface's name, gated tools and evidence rules; `conversationId` is the protocol's to fill. */
  readonly context: Omit<ReadContext, "conversationId">
  readonly transport: Transport
  /** What the case's reads are retrying, for a timeout's message. */
  readonly retrying: Ref.Ref<Option.Option<string>>
  /**
   * Posts a question in a conversation that exists (or is the run's own): retried on 429 and 503 only,
   * honouring `Retry-After`, never after a connection that may have reached the app — that could ask
   * twice. An app that cannot be reached at all, before anything of the run was answered, stops the run.
   */
  readonly ask: (route: RouteName, path: string, options: SendOptions) => Effect.Effect<Sent, Failure>
  /** Makes a request that opens a conversation the app names, and reads its answer. */
  readonly open: <A>(opening: Opening<A>) => Effect.Effect<A, Failure>
  /**
   * Takes note of a conversation the app named (`where` says how): a safe id is journalled and will be
   * deleted with the case; another is refused, reported as not deleted, and fails.
   */
  readonly named: (id: string, where: string) => Effect.Effect<void, TurnError>
  /** The run's random key, which the app is asked to tag a conversation with (never the session). */
  readonly run: string
  /**
   * Says which request the case is making: every failure from now names it (method and URL), and a
   * timeout what `retrying` (default the case's own) says that request was retrying.
   */
  readonly at: (
    route: RouteName,
    method: string,
    path: string,
    retrying?: Ref.Ref<Option.Option<string>>
  ) => Effect.Effect<void>
  /** A fresh random id (a UUID), for protocols whose client names the conversation. */
  readonly newId: () => string
}

/** A field of a surface that a protocol may read, as a catalog spells its path. */
export type SurfaceField =
  | "endpoint"
  | "assistantId"
  | "request.body"
  | "request.input"
  | "resume"
  | "routes.conversation"
  | "routes.trace"
  | "routes.delete"

/** What a surface's `protocol` reads of it, and what it cannot do without. */
export interface SurfaceFields {
  /** The fields it reads; a catalog that sets another of the optional fields is refused. */
  readonly reads: ReadonlyArray<SurfaceField>
  /**
   * The fields it needs: `true` for the endpoint (the path it is asked at), else what the surface must
   * say, as the problem of a catalog that leaves it out words it ("must say how its chats are deleted…").
   */
  readonly requires: { readonly [F in SurfaceField]?: F extends "endpoint" ? true : string }
}

/** A turn, from the first request to what the wire carried read as the turn. */
export type AskTurn<A extends Asking = Asking> = (asking: A) => Effect.Effect<Turn, Failure>

/** What a turn of a protocol whose run names the conversation is given: the conversation's id besides. */
export interface AskingIn extends Asking {
  /** The conversation the run named and journalled before asking. */
  readonly conversationId: string
}

/** How a protocol's conversation is named. */
export type Naming =
  /** The app names it in its answer: the turn opens it (`Asking.open`), and the live client notes what it names. */
  | { readonly by: "server" }
  /**
   * The run names it before asking (`what` it is called: "chat id"): the live client generates the id,
   * journals it, and takes it back when the app was never reached; the turn asks in it.
   */
  | { readonly by: "suite"; readonly what: string }

/** The Asking a turn of a protocol named so is given. */
export type AskingOf<C extends Naming> = C extends { readonly by: "suite" } ? AskingIn : Asking

/** A conversation a search found tagged with a run's key: its id, and the case it was opened for. */
export interface RunThread {
  readonly conversationId: string
  readonly caseId: string
}

/**
 * How `eval cleanup` finds the conversations an earlier run was opening when it ended, their ids never
 * learned: a search of the app by the run's key, through the route the run journalled (`Opening.search`).
 */
export interface RunSearch {
  /** What the search looks for, in words a person can search by hand: `metadata turn_eval_run: KEY`. */
  readonly describe: (run: string) => string
  /** The run's conversations, through `post` (a JSON body posted, the answer's body as text). */
  readonly find: (
    post: (path: string, body: unknown) => Effect.Effect<string, Failure>,
    searchRoute: string,
    run: string
  ) => Effect.Effect<ReadonlyArray<RunThread>, Failure>
}

/** A step of a conversation after its first question, as a protocol takes it. */
export type NextStep =
  /** A follow-up question in the same conversation. */
  | { readonly kind: "ask"; readonly question: string }
  /** The answer to the proposal the turn before left: approved, or denied with the person's reason. */
  | {
    readonly kind: "decide"
    readonly approved: boolean
    readonly reason?: string | undefined
    readonly proposal: Proposal
  }

/**
 * A conversation under way, as its protocol carries it on: what the protocol must remember of it (its
 * ids, the messages so far) lives in the conversation, not in the runner, which knows nothing of wires.
 */
export interface Ongoing {
  /** The next turn of the conversation, read over the same wire as the first; `previous` is the turn before. */
  readonly next: (step: NextStep, previous: Turn) => Effect.Effect<Turn, Failure>
}

/** A conversation's first turn (the asking's question) and the conversation it opened, to go on with. */
export type Converse<A extends Asking = Asking> = (
  asking: A
) => Effect.Effect<readonly [Turn, Ongoing], Failure>

/** A protocol's client: the requests of a turn, and where its conversations are deleted. */
export interface ProtocolClient<C extends Naming = Naming> {
  /**
   * Asks the case's question and obtains its turn. It runs in a fiber of its own: cut short while a
   * request is under way, it gets a short grace to name what it opened.
   */
  readonly turn: AskTurn<AskingOf<C>>
  /**
   * Asks the first question of a conversation case and gives the conversation, to take its later steps
   * in (follow-ups, decisions). Each step runs in a fiber of its own, with the case's timeout, as a turn does.
   */
  readonly converse: Converse<AskingOf<C>>
  /**
   * The delete route template of a surface's conversations, or null when there is nothing to delete;
   * `routes` are the surface's own over the catalog's, over the defaults.
   */
  readonly deleteRoute: (surface: Surface, routes: Required<Routes>) => string | null
  /** How cleanup finds what a run was opening; a protocol whose openings journal a search has one. */
  readonly search?: RunSearch
}

/** How the docs' summary tables describe a protocol (cells are Markdown). */
export interface ProtocolDoc {
  /** What the app serves, with a link to the protocol's section. */
  readonly serves: string
  /** How its conversation comes to be. */
  readonly conversation: string
  /** What deletes it. */
  readonly deletedBy: string
  /** Where a turn's token `usage` is read from. */
  readonly usage: string
}

/** The faults the stand-in can inject into a protocol's wire. */
export interface ProtocolFaults {
  /** The routes a fault may name on it. */
  readonly routes: ReadonlyArray<Route>
  /** The ask faults it takes beyond those every route takes. */
  readonly ask: ReadonlyArray<AskFault>
}

/**
 * A wire format a live run speaks. One folder (`src/Protocols/NAME/`) holds its client (the requests of
 * a turn and the pure reader of what they carried), its stand-in wire and this definition, which says
 * what the rest of the product derives from it; the registry (`Registry.ts`) lists each protocol once.
 * The client and the wire are loaded when a run or the stand-in needs them, so that `--help` and
 * `validate` start without them.
 */
export interface ProtocolDefinition<N extends string = string, C extends Naming = Naming> {
  /** The name a surface's `protocol` gives. */
  readonly name: N
  readonly surface: SurfaceFields
  readonly conversation: C
  readonly client: () => Promise<ProtocolClient<C>>
  /** Makes the wire the stand-in serves the protocol's surfaces over. */
  readonly wire: () => Promise<MakeWire>
  readonly faults: ProtocolFaults
  readonly doc: ProtocolDoc
}

/** Defines a protocol; its name's literal type and its naming are inferred. */
export const defineProtocol = <const N extends string, const C extends Naming>(
  definition: ProtocolDefinition<N, C>
): ProtocolDefinition<N, C> => definition
