/**
 * What every live protocol shares: a protocol asks a surface's question over its own wire format and
 * reads the turn — the answer and its `TurnTrace` — from what that wire carries, by the surface's
 * evidence rules. Reading is pure: a protocol's reader takes what the wire carried, already parsed,
 * and gives the turn or why the wire cannot be read as one.
 */
import { type Deferred, Effect, type Either, Option, Ref } from "effect"
import type { ResolvedEvidence } from "../../Evidence/Rules.js"
import type { Case } from "../../Schema/Case.js"
import { isRecord } from "../../Schema/Decode.js"
import { RunStopped, type TurnError } from "../../Schema/Errors.js"
import type { Routes, Surface } from "../../Schema/Surface.js"
import type { Turn } from "../../Schema/Trace.js"
import type { AskPhase, Failure, RouteName, SendOptions, Sent, Transport, TransportFailure } from "../Transport.js"

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

/** Conversation ids the app named that cannot be put in a route, with why. */
export interface RefusedId {
  readonly id: string
  readonly why: string
}

/** What one case's ask has learned and done so far. */
export interface AskState {
  /** Conversations named (by the app, or by the run before asking), safe to put in a route, in order (each journalled). */
  readonly opened: Ref.Ref<ReadonlyArray<string>>
  /** Conversation ids the app named that cannot be put in a route, with why. */
  readonly refused: Ref.Ref<ReadonlyArray<RefusedId>>
  readonly phase: Ref.Ref<AskPhase>
  /** Set when the ask ended in a way that may have opened a conversation it did not name. */
  readonly unsure: Ref.Ref<Option.Option<string>>
  /** What is being retried, for a timeout's message. */
  readonly retrying: Ref.Ref<Option.Option<string>>
  /** Completed when the case is cut short: a retry still sleeping then stops at once. */
  readonly stopping: Deferred.Deferred<void>
  /** Whether the ask's request reached the app: it answered, or broke off once connected. */
  readonly reached: Ref.Ref<boolean>
  /** The journal's intent of the conversation being opened, whose id the app's answer will tell. */
  readonly intent: Ref.Ref<Option.Option<string>>
}

/** Everything a protocol needs to ask one case's question and obtain its turn. */
export interface Asking {
  readonly testCase: Case
  readonly surface: Surface
  /** The surface's routes: its own over the catalog's, over the defaults. */
  readonly routes: Required<Routes>
  /** The surface's name, gated tools and evidence rules; `conversationId` is the protocol's to fill. */
  readonly context: Omit<ReadContext, "conversationId">
  readonly transport: Transport
  readonly state: AskState
  /**
   * Takes note of a conversation named by the app or by the run (`where` says how): a safe id is
   * journalled and will be deleted with the case; another is refused, reported as not deleted, and fails.
   */
  readonly named: (id: string, where: string) => Effect.Effect<void, TurnError>
  /**
   * Takes back a conversation the run named itself before asking, once the app's answer shows it never
   * opened it (the session was rejected, or the app was never reached): nothing is left to delete.
   */
  readonly forget: (id: string) => Effect.Effect<void>
  /** The run's random key, which the app is asked to tag a conversation with (never the session). */
  readonly run: string
  /**
   * Journals, before the request that opens a conversation the app will name, the intent to open one
   * and the route that finds the run's conversations: a run killed before the answer leaves it to
   * `eval cleanup`'s search. `named` resolves it; `settle` when the answer shows nothing was opened.
   */
  readonly opening: (searchRoute: string) => Effect.Effect<void>
  /** Resolves the intent with nothing opened. */
  readonly settle: Effect.Effect<void>
  /**
   * Says which request the case is making: every failure from now names it (method and URL), and a
   * timeout what `retrying` (default `state.retrying`) says that request was retrying.
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

/** A wire format a live run speaks. */
export interface LiveProtocol {
  /**
   * Asks the case's question and obtains its turn. It runs in a fiber of its own: cut short, it gets a
   * short grace to name what it opened when it is sending or reading (`state.phase`) and has named nothing.
   */
  readonly turn: (asking: Asking) => Effect.Effect<Turn, Failure>
  /**
   * The delete route template of a surface's conversations, or null when there is nothing to delete;
   * `routes` are the surface's own over the catalog's, over the defaults.
   */
  readonly deleteRoute: (surface: Surface, routes: Required<Routes>) => string | null
}

/** Where a serialised error object keeps its message, in the order they are tried. */
const messagePaths: ReadonlyArray<ReadonlyArray<string>> = [["message"], ["cause", "message"], [
  "details",
  "errorMessage"
]]

/** The message of an error text that is a serialised error object (Mastra's `errorText`), if it holds one. */
const jsonMessage = (text: string): string | undefined => {
  const trimmed = text.trim()
  if (!trimmed.startsWith("{")) return undefined
  let value: unknown
  try {
    value = JSON.parse(trimmed)
  } catch {
    return undefined
  }
  for (const path of messagePaths) {
    const found = path.reduce<unknown>((at, key) => isRecord(at) ? at[key] : undefined, value)
    if (typeof found === "string" && found.trim() !== "") return found
  }
  return undefined
}

/**
 * A tool's error as a fact shows it: the first line of the text a wire carries, without the `Error: `
 * that stringifying a JavaScript error puts before its message (the AI SDK 7's default and LangChain's
 * tool messages write it; the AI SDK 6 and AG-UI adapters send the message alone), so one failure reads
 * alike on every protocol. An error text that is a serialised error object (Mastra sends one) is read
 * for its message: `message`, else `cause.message`, else `details.errorMessage`. An error with no text
 * is still an error.
 */
export const toolErrorText = (text: string): string => {
  const line = (jsonMessage(text) ?? text).split(/\r?\n/).map((l) => l.trim()).find((l) => l !== "") ?? ""
  const message = line.replace(/^Error:\s*/, "")
  return message === "" ? "(no error text)" : message
}

/**
 * Posts a question (or a request that opens a conversation) of the app: retried on 429 and 503 only
 * (honouring `Retry-After`; a sleep stops at once when the case is cut short), never after a connection
 * that may have reached the app — that could ask twice. A connection that broke off leaves the ask
 * unsure of what the app opened; an app that cannot be reached at all, before anything of the run was
 * answered, stops the run. `answered` sees an answer other than 2xx before it fails the case.
 */
export const postQuestion = (
  asking: Asking,
  route: RouteName,
  path: string,
  options: SendOptions,
  answered: (sent: Sent) => Effect.Effect<void> = () => Effect.void
): Effect.Effect<Sent, Failure> => {
  const { state, transport } = asking
  const attempt = Effect.zipRight(Ref.set(state.phase, "sending"), transport.send(route, "POST", path, options)).pipe(
    Effect.tap((sent) =>
      Effect.zipRight(Ref.set(state.reached, true), sent.response === undefined ? answered(sent) : Effect.void)
    ),
    Effect.tapError((error) =>
      error._tag === "TransportFailure" && error.reached
        ? Effect.zipRight(
          Ref.set(state.reached, true),
          Ref.set(state.unsure, Option.some(`broke off (${error.reason})`))
        )
        : Effect.void
    ),
    Effect.catchTag(
      "TransportFailure",
      (error): Effect.Effect<never, RunStopped | TransportFailure> =>
        !error.reached && !transport.connected()
          ? Effect.fail(new RunStopped({ reason: "unreachable", url: transport.urlOf(path).href, why: error.reason }))
          : Effect.fail(error)
    )
  )
  return transport.withRetries(route, [429, 503], attempt, false, state.retrying, {
    stopping: state.stopping,
    phase: state.phase
  })
}

/**
 * A request template with its placeholders filled: a string value that is exactly `{name}` becomes the
 * value; inside a longer string each `{name}` is replaced by the value's text. Only names in `values`
 * are replaced, in one pass, so a value that itself holds `{question}` stays as it is; keys are kept,
 * nothing is evaluated. Every protocol whose surface has a `request` template fills it here.
 */
export const fillTemplate = (template: unknown, values: Readonly<Record<string, string>>, depth = 0): unknown => {
  if (typeof template === "string") {
    return template.replace(
      /\{([A-Za-z][A-Za-z0-9]*)\}/g,
      (whole, name: string) => Object.hasOwn(values, name) ? values[name]! : whole
    )
  }
  // A template is the catalog's own JSON; the bound only keeps a pathological one from overflowing the stack.
  if (depth > 64) return template
  if (Array.isArray(template)) return template.map((item) => fillTemplate(item, values, depth + 1))
  if (typeof template === "object" && template !== null) {
    return Object.fromEntries(
      Object.entries(template).map(([key, item]) => [key, fillTemplate(item, values, depth + 1)])
    )
  }
  return template
}
