/**
 * What every live protocol shares: a protocol asks a surface's question over its own wire format and
 * reads the turn — the answer and its `TurnTrace` — from what that wire carries, by the surface's
 * evidence rules. Reading is pure: a protocol's reader takes what the wire carried, already parsed,
 * and gives the turn or why the wire cannot be read as one.
 */
import type { HttpClientResponse } from "@effect/platform"
import type { Effect, Either, Option, Ref } from "effect"
import type { ResolvedEvidence } from "../../Evidence/Rules.js"
import type { Case } from "../../Schema/Case.js"
import { isRecord } from "../../Schema/Decode.js"
import type { TurnError } from "../../Schema/Errors.js"
import type { Routes, Surface } from "../../Schema/Surface.js"
import type { Turn } from "../../Schema/Trace.js"
import type { Failure, RouteName, SendOptions, Sent, Transport } from "../Transport.js"

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
   * Runs `ask` in a conversation the run names itself (`what` it is: "chat id"): the id is journalled
   * before the question is sent, so it is deleted whatever happens next — unless the app rejected the
   * session or the request never reached it, when it opened nothing and the id is taken back.
   */
  readonly inConversation: <A>(id: string, what: string, ask: Effect.Effect<A, Failure>) => Effect.Effect<A, Failure>
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
