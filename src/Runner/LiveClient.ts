/**
 * Obtaining turns from a live app over HTTP, as a signed-in user, whichever wire format each surface
 * speaks: its protocol (`Protocols/*.ts`) asks the question and reads the turn through the transport
 * (`Transport.ts`), and every conversation it opens is deleted when the case's scope closes — after
 * grading, after a failure, or when the run is interrupted.
 *
 * The session is sent only to the app's own origin: a redirect elsewhere is not followed. An id the
 * app answers with is put in a route only when it is safe there (`idProblem`): `.` or `..` would send
 * the read or the delete to another resource. Every conversation named is deleted, even from an answer
 * that failed; one whose id is refused, or an ask cut short before it named one, is reported, so
 * nothing is left without a word.
 */
import { type HttpClient } from "@effect/platform"
import { Clock, Deferred, Duration, Effect, Either, Exit, Fiber, Option, type Redacted, Ref, type Scope } from "effect"
import { resolveEvidence } from "../Evidence/Rules.js"
import type { Case } from "../Schema/Case.js"
import { type RunStopped, TurnError } from "../Schema/Errors.js"
import { fillRoute, idProblem, type Route } from "../Schema/Protocol.js"
import { protocolOf, type ProtocolName, type Routes, type Surface } from "../Schema/Surface.js"
import type { Turn } from "../Schema/Trace.js"
import type { Journal } from "./Journal.js"
import { agUiProtocol } from "./Protocols/AgUi.js"
import { aiSdkProtocol } from "./Protocols/AiSdk.js"
import { langGraphProtocol } from "./Protocols/LangGraph.js"
import type { Asking, AskState, LiveProtocol, RefusedId } from "./Protocols/Protocol.js"
import { turnEvalProtocol } from "./Protocols/TurnEval.js"
import {
  type AskPhase,
  type Auth,
  cookieAuth,
  type Deleted,
  detached,
  type Failure,
  makeTransport,
  quoteId,
  type RouteName,
  showDuration,
  timedOut
} from "./Transport.js"

export { type Deleted, retryAfter, showDuration } from "./Transport.js"

/** How to reach the app and how patient to be with it. */
export interface LiveConfig {
  /** The app's base URL; a path in it prefixes every route. */
  readonly baseUrl: URL
  /** The session: a cookie or an auth header (`auth` wins when both are given). */
  readonly auth?: Auth
  /** The session cookie, `name=value` (the same as `auth: cookieAuth(cookie)`). */
  readonly cookie?: Redacted.Redacted<string>
  /** Route templates (the catalog's, over the defaults); a surface's own `routes` override them. */
  readonly routes: Required<Routes>
  /** Bounds obtaining one turn: the ask and the reads, retries included. */
  readonly timeout: Duration.Duration
  /** Bounds deleting one conversation, retries included. */
  readonly deleteTimeout: Duration.Duration
  /** Leave conversations in the account instead of deleting them. */
  readonly keep: boolean
  /** Retries of a retryable answer (default 4). */
  readonly retries?: number
  /** The first retry's delay, doubled for each further retry (default 250 ms). */
  readonly retryDelay?: Duration.Duration
  /** The largest body read from any route (default 32 MiB). */
  readonly maxBodyBytes?: number
  /**
   * How long an ask cut short may still take to say which conversation it opened (default 5 s), within
   * what is left of the case's timeout; an ask sleeping before a retry has opened nothing and stops at once.
   */
  readonly askGrace?: Duration.Duration
  /** The longest line of an event stream (default 8 MiB). */
  readonly maxLineBytes?: number
  /** Where conversations are recorded until deleted, so that a run that cannot delete them leaves a trace. */
  readonly journal?: Journal
}

/** A conversation left in the account: kept on request, or one whose delete failed (with why). */
export interface LeftConversation {
  readonly caseId: string
  readonly conversationId: string
  readonly reason?: string
}

/** A case whose ask may have opened a conversation the run never learned of (with why). */
export interface MaybeLeft {
  readonly caseId: string
  readonly reason: string
}

/** The conversations a live run left behind, and the cases that may have left one it cannot name. */
export interface LeftBehind {
  readonly kept: ReadonlyArray<LeftConversation>
  readonly undeleted: ReadonlyArray<LeftConversation>
  readonly unknown: ReadonlyArray<MaybeLeft>
}

/** The protocols, by the name a surface gives. */
export const liveProtocols: Record<ProtocolName, LiveProtocol> = {
  "turn-eval": turnEvalProtocol,
  "ai-sdk": aiSdkProtocol,
  langgraph: langGraphProtocol,
  "ag-ui": agUiProtocol
}

/** The auth a config names. */
const authOf = (config: Pick<LiveConfig, "auth" | "cookie">): Auth => {
  if (config.auth !== undefined) return config.auth
  if (config.cookie !== undefined) return cookieAuth(config.cookie)
  throw new Error("a live client needs auth or a cookie")
}

/** Builds the live client's operations over an HttpClient. */
export const makeLive = (config: LiveConfig): Effect.Effect<Live, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const transport = yield* makeTransport({
      baseUrl: config.baseUrl,
      auth: authOf(config),
      ...(config.retries === undefined ? {} : { retries: config.retries }),
      ...(config.retryDelay === undefined ? {} : { retryDelay: config.retryDelay }),
      ...(config.maxBodyBytes === undefined ? {} : { maxBodyBytes: config.maxBodyBytes }),
      ...(config.maxLineBytes === undefined ? {} : { maxLineBytes: config.maxLineBytes })
    })
    const askGrace = config.askGrace ?? Duration.seconds(5)
    const left = yield* Ref.make<LeftBehind>({ kept: [], undeleted: [], unknown: [] })
    const journal = config.journal

    /**
     * Deletes a conversation through a delete route template (which may carry a query); 2xx means
     * deleted, 404 already gone. Never fails: how it ended is the answer. The journal is told when it is gone.
     */
    const deleteConversation = (template: string, conversationId: string): Effect.Effect<Deleted, RunStopped> =>
      Effect.gen(function*() {
        const problem = idProblem(conversationId)
        if (problem !== undefined) return Either.left(`the id ${problem}; no request is made with it`)
        const outcome = yield* transport.deleteAt(fillRoute(template, { conversationId }), config.deleteTimeout)
        if (Either.isRight(outcome) && journal !== undefined) yield* journal.gone(conversationId)
        return outcome
      })

    /** Deletes a case's conversation; one that cannot be deleted is recorded with why. */
    const remove = (testCase: Case, template: string, conversationId: string): Effect.Effect<void> =>
      deleteConversation(template, conversationId).pipe(
        Effect.catchTag("RunStopped", (): Effect.Effect<Deleted> => Effect.succeed(Either.left("delete: HTTP 401 (session rejected)"))),
        Effect.flatMap(Either.match({
          onRight: () => Effect.void,
          onLeft: (reason) =>
            Ref.update(left, (l) => ({ ...l, undeleted: [...l.undeleted, { caseId: testCase.id, conversationId, reason }] }))
        }))
      )

    /** Notes a conversation (`where` says how it was named): journalled when safe, refused otherwise. */
    const named = (testCase: Case, state: AskState, deleteRoute: string | null, id: string, where: string) =>
      Effect.gen(function*() {
        const problem = idProblem(id)
        if (problem !== undefined) {
          const refused = yield* Ref.get(state.refused)
          if (!refused.some((r) => r.id === id)) yield* Ref.set(state.refused, [...refused, { id, why: problem }])
          return yield* new TurnError({
            reason: `ask: refused the conversation id ${quoteId(id)} (${where}): it ${problem}; no request is made with it`
          })
        }
        // An app that keeps no conversations leaves nothing to delete or to journal.
        if (deleteRoute === null) return
        const opened = yield* Ref.get(state.opened)
        if (opened.includes(id)) return
        // Journalled and noted as one step: an interruption between the two would leave the id
        // journalled but never deleted.
        yield* Effect.uninterruptible(
          Effect.zipRight(
            journal !== undefined && !config.keep ? journal.opened(testCase.id, id, deleteRoute) : Effect.void,
            Ref.update(state.opened, (all) => all.includes(id) ? all : [...all, id])
          )
        )
      })

    const obtain = (testCase: Case, surface: Surface): Effect.Effect<Turn, Failure, Scope.Scope> =>
      Effect.gen(function*() {
        const protocol = liveProtocols[protocolOf(surface)]
        const routes: Required<Routes> = { ...config.routes, ...surface.routes }
        const deleteRoute = protocol.deleteRoute(surface, routes)
        const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(config.timeout)
        const state: AskState = {
          opened: yield* Ref.make<ReadonlyArray<string>>([]),
          refused: yield* Ref.make<ReadonlyArray<RefusedId>>([]),
          phase: yield* Ref.make<AskPhase>("waiting"),
          unsure: yield* Ref.make<Option.Option<string>>(Option.none()),
          retrying: yield* Ref.make<Option.Option<string>>(Option.none()),
          stopping: yield* Deferred.make<void>()
        }
        const askUrl = transport.urlOf(surface.endpoint ?? "").href
        // Where the case is: the route, and the request it is making, which every failure names; a request
        // read alongside another has retries of its own, and a timeout says what that one was retrying.
        const stage = yield* Ref.make<{
          readonly route: RouteName
          readonly request: string
          readonly retrying?: Ref.Ref<Option.Option<string>>
        }>({ route: "ask", request: `POST ${askUrl}` })
        const asking: Asking = {
          testCase,
          surface,
          routes,
          context: {
            surface: testCase.surface,
            gatedTools: surface.gatedTools ?? [],
            evidence: resolveEvidence(surface)
          },
          transport,
          state,
          named: (id, where) => named(testCase, state, deleteRoute, id, where),
          forget: (id) =>
            Effect.uninterruptible(
              Effect.zipRight(
                Ref.update(state.opened, (all) => all.filter((o) => o !== id)),
                journal !== undefined && !config.keep ? journal.gone(id) : Effect.void
              )
            ),
          at: (route, method, path, retrying) =>
            Ref.set(stage, { route, request: `${method} ${transport.urlOf(path).href}`, ...(retrying === undefined ? {} : { retrying }) }),
          newId: () => crypto.randomUUID()
        }
        // The turn runs in a fiber of its own. When the case is cut short mid-ask (a timeout, Ctrl-C, a
        // rejected session), the app may already have opened the conversation: an ask still sending or
        // reading gets a short grace, within the case's timeout, to say which, so that it can be deleted
        // too; one sleeping before a retry has opened nothing and stops at once.
        const turning = yield* Effect.uninterruptible(
          Effect.gen(function*() {
            const fiber = yield* Effect.forkDaemon(Effect.interruptible(protocol.turn(asking)))
            yield* Effect.addFinalizer((exit) =>
              Effect.gen(function*() {
                if (Option.isNone(yield* Fiber.poll(fiber))) {
                  yield* Deferred.succeed(state.stopping, undefined)
                  // Only an ask sending or reading may have opened something; a sleeping or waiting one has not.
                  const phase = yield* Ref.get(state.phase)
                  const inFlight = phase === "sending" || phase === "reading"
                  const remaining = deadline - (yield* Clock.currentTimeMillis)
                  const grace = Duration.min(askGrace, Duration.millis(Math.max(0, remaining)))
                  // An app that keeps no conversations (no delete route) can hold none: there is nothing to wait for.
                  const mayOpen = inFlight && deleteRoute !== null
                  if ((yield* Ref.get(state.opened)).length === 0 && mayOpen) yield* detached(Fiber.await(fiber), grace)
                  const cut = yield* Fiber.poll(fiber)
                  yield* Fiber.interrupt(fiber)
                  if (inFlight && Option.isNone(cut)) {
                    yield* Ref.set(
                      state.unsure,
                      Option.some(Exit.isInterrupted(exit) ? "was interrupted" : `timed out after ${showDuration(config.timeout)}`)
                    )
                  }
                }
                const opened = yield* Ref.get(state.opened)
                const refused = yield* Ref.get(state.refused)
                for (const r of refused) {
                  yield* Ref.update(left, (l) => ({
                    ...l,
                    undeleted: [...l.undeleted, {
                      caseId: testCase.id,
                      conversationId: r.id,
                      reason: `the app named it, but the id ${r.why}: no request is made with it`
                    }]
                  }))
                }
                const unsure = yield* Ref.get(state.unsure)
                if (deleteRoute !== null && opened.length === 0 && refused.length === 0 && Option.isSome(unsure)) {
                  yield* Ref.update(left, (l) => ({
                    ...l,
                    unknown: [...l.unknown, {
                      caseId: testCase.id,
                      reason: `the ask (POST ${askUrl}) ${unsure.value} before naming its conversation: the app may hold one`
                    }]
                  }))
                }
                for (const id of opened) {
                  yield* config.keep || deleteRoute === null
                    ? Ref.update(left, (l) => ({ ...l, kept: [...l.kept, { caseId: testCase.id, conversationId: id }] }))
                    : remove(testCase, deleteRoute, id)
                }
              })
            )
            return fiber
          })
        )
        return yield* Fiber.join(turning).pipe(
          Effect.timeout(config.timeout),
          Effect.catchTag("TimeoutException", () =>
            Effect.flatMap(Ref.get(stage), ({ retrying, route }) =>
              Effect.flatMap(Ref.get(retrying ?? state.retrying), (why) => Effect.fail(timedOut(route, config.timeout, why))))),
          // Every route error names its request (method and URL, never the session).
          Effect.catchTag("TurnError", (error) =>
            Effect.flatMap(Ref.get(stage), ({ request }) =>
              Effect.fail(
                error.reason.includes(request.replace(/^\S+ /, "")) ? error : new TurnError({ reason: `${error.reason} — ${request}` })
              )))
        )
      })

    return {
      obtain,
      get: (route: Route, path: string) => transport.get(route, path, config.timeout),
      deleteConversation,
      leftBehind: Ref.get(left)
    }
  })

/** The live client's operations. */
export interface Live {
  /** Obtains a case's turn in the scope; its conversations are deleted when the scope closes. */
  readonly obtain: (testCase: Case, surface: Surface) => Effect.Effect<Turn, Failure, Scope.Scope>
  /** Reads a route's body as text, bounded by the timeout: for commands that read without asking. */
  readonly get: (route: Route, path: string) => Effect.Effect<string, Failure>
  /** Deletes a conversation through a delete route template; never fails but for a rejected session. */
  readonly deleteConversation: (template: string, conversationId: string) => Effect.Effect<Deleted, RunStopped>
  /** The conversations left in the account so far. */
  readonly leftBehind: Effect.Effect<LeftBehind>
}
