/**
 * Obtaining turns from a live app over HTTP, as a signed-in user, whichever wire format each surface
 * speaks: its protocol (`Protocols/*.ts`) asks the question and reads the turn through the transport
 * (`Transport.ts`), and every conversation it opens is deleted as the case ends — after grading, after a
 * failure, or when the run is interrupted. Deletes run in the background, so a case's delete never holds
 * the next case back; `leftBehind` and the client's layer wait for every one, so none is left unsaid.
 *
 * The session is sent only to the app's own origin: a redirect elsewhere is not followed. An id the
 * app answers with is put in a route only when it is safe there (`idProblem`): `.` or `..` would send
 * the read or the delete to another resource. Every conversation named is deleted, even from an answer
 * that failed; one whose id is refused, or an ask cut short before it named one, is reported, so
 * nothing is left without a word.
 */
import { type HttpClient } from "@effect/platform"
import { Deferred, Duration, Effect, Either, Exit, Fiber, Option, type Redacted, Ref } from "effect"
import { resolveEvidence } from "../Evidence/Rules.js"
import type {
  Asking,
  AskingIn,
  AskTurn,
  Converse,
  NextStep,
  Ongoing,
  Opening,
  ProtocolClient
} from "../Protocols/Protocol.js"
import { defaultProtocol, loadClients, type LoadedProtocol, protocolNames } from "../Protocols/Registry.js"
import type { Case, ConversationCase, QuestionCase } from "../Schema/Case.js"
import { cannotTakeStep, FailedRequest, RunStopped, TurnError } from "../Schema/Errors.js"
import { fillRoute, idProblem, placeRoute, type Route, routeBaseOf } from "../Schema/Protocol.js"
import { quoted } from "../Schema/Shown.js"
import type { Routes, Surface } from "../Schema/Surface.js"
import type { Turn } from "../Schema/Trace.js"
import type { Journal } from "./Journal.js"
import type { Conversing } from "./SurfaceClient.js"
import {
  type AskPhase,
  type Auth,
  cookieAuth,
  type Deleted,
  type Failure,
  httpStatus,
  isPlainHttp,
  makeTransport,
  refusedId,
  refusedPath,
  type RouteName,
  type SendOptions,
  type Sent,
  showLimit,
  timedOut,
  type TransportFailure
} from "./Transport.js"

export { type Deleted, retryAfter, showLimit } from "./Transport.js"

/** How to reach the app and how patient to be with it. */
export interface LiveConfig {
  /** The app's base URL; a path in it prefixes every route. */
  readonly baseUrl: URL
  /** The session: a cookie or an auth header (`auth` wins when both are given). */
  readonly auth?: Auth | undefined
  /** The session cookie, `name=value` (the same as `auth: cookieAuth(cookie)`). */
  readonly cookie?: Redacted.Redacted<string> | undefined
  /** Route templates (the catalog's, over the defaults); a surface's own `routes` override them. */
  readonly routes: Required<Routes>
  /** Bounds obtaining one turn: the ask and the reads, retries included. */
  readonly timeout: Duration.Duration
  /** Bounds deleting one conversation, retries included. */
  readonly deleteTimeout: Duration.Duration
  /** Leave conversations in the account instead of deleting them. */
  readonly keep: boolean
  /** Retries of a retryable answer (default 4). */
  readonly retries?: number | undefined
  /** The first retry's delay, doubled for each further retry (default 250 ms). */
  readonly retryDelay?: Duration.Duration | undefined
  /** The largest body read from any route (default 32 MiB). */
  readonly maxBodyBytes?: number | undefined
  /**
   * How long an ask cut short may still take to say which conversation it opened (default 5 s), within
   * what is left of the case's timeout; an ask sleeping before a retry has opened nothing and stops at once.
   */
  readonly askGrace?: Duration.Duration | undefined
  /** The longest line of an event stream (default 8 MiB). */
  readonly maxLineBytes?: number | undefined
  /** Where conversations are recorded until deleted, so that a run that cannot delete them leaves a trace. */
  readonly journal?: Journal | undefined
  /**
   * The most cases whose deletes may be under way at once, in the background (default 16); a case
   * past it waits for the oldest. The run passes its concurrency.
   */
  readonly maxDeleting?: number | undefined
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
  /** The journal holds its intent, tagged with the run's key: `eval cleanup` searches the app for it. */
  readonly findable?: boolean
}

/** The conversations a live run left behind, and the cases that may have left one it cannot name. */
export interface LeftBehind {
  readonly kept: ReadonlyArray<LeftConversation>
  readonly undeleted: ReadonlyArray<LeftConversation>
  readonly unknown: ReadonlyArray<MaybeLeft>
}

/** Conversation ids the app named that cannot be put in a route, with why. */
interface RefusedId {
  readonly id: string
  readonly why: string
}

/** What one case's ask has learned and done so far: what the case's end needs to leave nothing unsaid. */
interface AskState {
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

/** The auth a config names. */
const authOf = (config: Pick<LiveConfig, "auth" | "cookie">): Auth => {
  if (config.auth !== undefined) return config.auth
  if (config.cookie !== undefined) return cookieAuth(config.cookie)
  throw new Error("a live client needs auth or a cookie")
}

/**
 * A fiber's exit, or none once `millis` have passed on the Clock (which a test's `TestClock` drives);
 * with no time left, the exit it already has. Only the wait ends: the fiber goes on until interrupted.
 */
const awaitWithin = <A, E>(
  fiber: Fiber.RuntimeFiber<A, E>,
  millis: number
): Effect.Effect<Option.Option<Exit.Exit<A, E>>> =>
  millis <= 0 ? Fiber.poll(fiber) : Effect.timeoutOption(Fiber.await(fiber), millis)

/** A case under way: its turns, and what ends it — deleting (or listing) what it opened. */
interface Started {
  /**
   * Obtains a turn of the case (its question, or a step of its conversation) through `turn`, in a fiber
   * of its own, within the case's timeout; a failure names the request it was making. The first turn
   * asks in a conversation the run names, for a protocol whose run names it.
   */
  readonly take: (turn: (asking: Asking) => Effect.Effect<Turn, Failure>) => Effect.Effect<Turn, Failure>
  /** Ends the case however it went: the ask cut short if still running, its conversations handed to deletion. */
  readonly finish: (exit: Exit.Exit<unknown, unknown>) => Effect.Effect<void>
}

/** Builds the live client's operations over an HttpClient. */
export const makeLive = (config: LiveConfig): Effect.Effect<Live, never, HttpClient.HttpClient> =>
  Effect.gen(function*() {
    const transport = yield* makeTransport({
      baseUrl: config.baseUrl,
      auth: authOf(config),
      retries: config.retries,
      retryDelay: config.retryDelay,
      maxBodyBytes: config.maxBodyBytes,
      maxLineBytes: config.maxLineBytes
    })
    const clients = yield* Effect.promise(loadClients)
    /** The protocol a surface speaks, loaded; none for a name no protocol has. */
    const protocolFor = (surface: Surface): LoadedProtocol | undefined =>
      clients.get(surface.protocol ?? defaultProtocol)
    const askGrace = config.askGrace ?? Duration.seconds(5)
    const timeoutMillis = Duration.toMillis(config.timeout)
    // Deadlines are read from the Clock, as the waits on them sleep on it.
    const clock = yield* Effect.clock
    const now = () => clock.unsafeCurrentTimeMillis()
    const maxDeleting = Math.max(1, config.maxDeleting ?? 16)
    // What the run leaves behind, appended as it happens; `leftBehind` hands out a copy.
    const kept: Array<LeftConversation> = []
    const undeleted: Array<LeftConversation> = []
    const unknown: Array<MaybeLeft> = []
    const journal = config.journal
    const base = routeBaseOf(config.baseUrl)
    const refusals = new WeakMap<Surface, TurnError | null>()
    // Set once an ask found the app unreachable (which stops the run): asks cut short then may have reached nothing.
    let unreachable = false
    // The run's key, which the app is asked to tag what it opens with: the journal's, so that a search finds it.
    const run = journal?.run ?? crypto.randomUUID().replaceAll("-", "")
    // The deletes under way. A case hands its conversations over and is done: its delete does not
    // hold the next case back. `settled` waits for every one, and `leftBehind` waits for it.
    const deleting = new Set<Fiber.RuntimeFiber<void>>()

    const settled: Effect.Effect<void> = Effect.suspend(() =>
      deleting.size === 0 ? Effect.void : Effect.zipRight(Fiber.awaitAll([...deleting]), settled)
    )

    /**
     * Runs deletes in a fiber of their own, tracked until they end. The case then yields once, so that
     * the delete is made before whatever the case's worker asks next: the app sees a conversation's
     * delete before the next question, and only the wait for its answer is dropped. When `maxDeleting`
     * are already under way (an app slow to delete), the case waits for the oldest to end, as it would
     * have waited for its own: the conversations open at once stay bounded.
     */
    const inBackground = (deletes: Effect.Effect<void>): Effect.Effect<void> =>
      Effect.suspend(() => {
        if (deleting.size >= maxDeleting) {
          return Effect.zipRight(Fiber.await(deleting.values().next().value!), inBackground(deletes))
        }
        return Effect.flatMap(Effect.forkDaemon(Effect.withTracerEnabled(deletes, false)), (fiber) =>
          Effect.zipRight(
            Effect.sync(() => {
              deleting.add(fiber)
              fiber.addObserver(() => deleting.delete(fiber))
            }),
            Effect.yieldNow()
          ))
      })

    /**
     * Deletes a conversation through a delete route template (which may carry a query); 2xx means
     * deleted, 404 already gone. Never fails: how it ended is the answer. The journal is told when it is gone.
     */
    const deleteConversation = (template: string, conversationId: string): Effect.Effect<Deleted, RunStopped> =>
      Effect.suspend(() => {
        const problem = idProblem(conversationId)
        if (problem !== undefined) return Effect.succeed(Either.left(`the id ${problem}; no request is made with it`))
        return Effect.tap(
          transport.deleteAt(fillRoute(template, { conversationId }), config.deleteTimeout),
          (outcome) => Either.isRight(outcome) && journal !== undefined ? journal.gone(conversationId) : Effect.void
        )
      })

    /** Deletes a case's conversation; one that cannot be deleted is recorded with why. */
    const remove = (testCase: Case, template: string, conversationId: string): Effect.Effect<void> =>
      deleteConversation(template, conversationId).pipe(
        Effect.catchTag(
          "RunStopped",
          (): Effect.Effect<Deleted> => Effect.succeed(Either.left("delete: HTTP 401 (session rejected)"))
        ),
        Effect.map((outcome) => {
          if (Either.isLeft(outcome)) undeleted.push({ caseId: testCase.id, conversationId, reason: outcome.left })
        })
      )

    /** Whether conversations are journalled: a journal is kept, and they are not kept in the account on request. */
    const journalling = journal !== undefined && !config.keep

    /**
     * Notes a conversation (`where` says how it was named): journalled when safe, refused otherwise. The
     * intent it resolves, if any, is resolved with it.
     */
    const named = (testCase: Case, state: AskState, deleteRoute: string | null, id: string, where: string) =>
      Effect.gen(function*() {
        const problem = idProblem(id)
        if (problem !== undefined) {
          const refused = yield* Ref.get(state.refused)
          if (!refused.some((r) => r.id === id)) yield* Ref.set(state.refused, [...refused, { id, why: problem }])
          return yield* refusedId("conversation", id, problem, where)
        }
        // An app that keeps no conversations leaves nothing to delete or to journal.
        if (deleteRoute === null) return
        const opened = yield* Ref.get(state.opened)
        if (opened.includes(id)) return
        const intent = Option.getOrUndefined(yield* Ref.get(state.intent))
        // Journalled and noted as one step: an interruption between the two would leave the id
        // journalled but never deleted.
        yield* Effect.uninterruptible(
          Effect.all([
            journalling ? journal.opened(testCase.id, id, deleteRoute, intent) : Effect.void,
            Ref.set(state.intent, Option.none()),
            Ref.update(state.opened, (all) => all.includes(id) ? all : [...all, id])
          ], { discard: true })
        )
      })

    /**
     * Takes back a conversation the run named itself before asking, once the app's answer shows it never
     * opened it (the session was rejected, or the app was never reached): nothing is left to delete.
     */
    const forgetting = (state: AskState, id: string): Effect.Effect<void> =>
      Effect.uninterruptible(
        Effect.zipRight(
          Ref.update(state.opened, (all) => all.filter((o) => o !== id)),
          journalling ? journal.gone(id) : Effect.void
        )
      )

    /**
     * Posts a question (or a request that opens a conversation) of the app: retried on 429 and 503 only
     * (honouring `Retry-After`; a sleep stops at once when the case is cut short), never after a connection
     * that may have reached the app — that could ask twice. A connection that broke off leaves the ask
     * unsure of what the app opened; an app that cannot be reached at all, before anything of the run was
     * answered, stops the run. `answered` sees an answer other than 2xx before it fails the case.
     */
    const postQuestion = (
      state: AskState,
      route: RouteName,
      path: string,
      options: SendOptions,
      answered: (sent: Sent) => Effect.Effect<void>
    ): Effect.Effect<Sent, Failure> => {
      const attempt = Effect.zipRight(Ref.set(state.phase, "sending"), transport.send(route, "POST", path, options))
        .pipe(
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
                ? Effect.fail(
                  new RunStopped({
                    reason: "unreachable",
                    url: transport.urlOf(path).href,
                    why: error.reason,
                    ...(isPlainHttp(error.code) ? { plainHttp: true } : {})
                  })
                )
                : Effect.fail(error)
          )
        )
      return transport.withRetries(attempt, {
        route,
        statuses: [429, 503],
        unanswered: false,
        retrying: state.retrying,
        sleeping: { stopping: state.stopping, phase: state.phase }
      })
    }

    /**
     * Why a surface's cases cannot be asked: a path its catalog gives (the endpoint, this product's read
     * routes, the delete route) would leave the app's origin or the base URL's path. Checked once per
     * surface, before anything is asked, so a case opens nothing it could not read back or delete; the
     * transport still checks every request.
     */
    const refusalOf = (surface: Surface): TurnError | null => {
      const known = refusals.get(surface)
      if (known !== undefined) return known
      const protocol = protocolFor(surface)
      if (protocol === undefined) {
        const refusal = new TurnError({
          reason: "unknown-protocol",
          what: quoted(surface.protocol ?? ""),
          detail: protocolNames.map((n) => quoted(n)).join(", ")
        })
        refusals.set(surface, refusal)
        return refusal
      }
      const routes: Required<Routes> = { ...config.routes, ...surface.routes }
      type Given = readonly [RouteName, string, string | null | undefined]
      const read = protocol.definition.surface.reads
      const reads: ReadonlyArray<Given> = [
        ...(read.includes("routes.conversation")
          ? [["conversation", "conversation route", routes.conversation] as const]
          : []),
        ...(read.includes("routes.trace") ? [["trace", "trace route", routes.trace] as const] : [])
      ]
      const paths: ReadonlyArray<Given> = [
        ["ask", "endpoint", surface.endpoint],
        ...reads,
        ["delete", "delete route", protocol.client.deleteRoute(surface, routes)]
      ]
      let refusal: TurnError | null = null
      for (const [route, what, path] of paths) {
        if (path === undefined || path === null) continue
        const placed = placeRoute(base, path)
        if (typeof placed === "string") {
          refusal = refusedPath(route, what, path, placed)
          break
        }
      }
      refusals.set(surface, refusal)
      return refusal
    }

    /**
     * Starts a case's turn in a fiber of its own. When the case is cut short mid-ask (a timeout, Ctrl-C,
     * a rejected session), the app may already have opened the conversation: an ask still sending or
     * reading gets a short grace, within the case's timeout, to say which, so that it can be deleted
     * too; one sleeping before a retry has opened nothing and stops at once. To be run uninterruptibly,
     * so that `finish` is always given what was started.
     */
    const start = (testCase: Case, surface: Surface): Effect.Effect<Started> =>
      Effect.withFiberRuntime((parent) => {
        // The surface's protocol is known: `refusalOf` refused it otherwise.
        const protocol = protocolFor(surface)!
        const routes: Required<Routes> = { ...config.routes, ...surface.routes }
        const deleteRoute = protocol.client.deleteRoute(surface, routes)
        let deadline = now() + timeoutMillis
        const state: AskState = {
          opened: Ref.unsafeMake<ReadonlyArray<string>>([]),
          refused: Ref.unsafeMake<ReadonlyArray<RefusedId>>([]),
          phase: Ref.unsafeMake<AskPhase>("waiting"),
          unsure: Ref.unsafeMake<Option.Option<string>>(Option.none()),
          retrying: Ref.unsafeMake<Option.Option<string>>(Option.none()),
          stopping: Deferred.unsafeMake<void>(parent.id()),
          reached: Ref.unsafeMake(false),
          intent: Ref.unsafeMake<Option.Option<string>>(Option.none())
        }
        // Where the case is: the route, and the request it is making, which every failure names; a request
        // read alongside another has retries of its own, and a timeout says what that one was retrying.
        // The request is kept as its method and path, and made a `FailedRequest` only when it failed.
        let stage: {
          readonly route: RouteName
          readonly method: string
          readonly path: string
          readonly retrying?: Ref.Ref<Option.Option<string>> | undefined
        } = { route: "ask", method: "POST", path: surface.endpoint ?? "" }
        const requestOf = (): FailedRequest =>
          new FailedRequest({ method: stage.method, url: transport.urlOf(stage.path).href })
        const settle = Effect.uninterruptible(
          Effect.flatMap(
            Ref.getAndSet(state.intent, Option.none()),
            (intent) => Option.isSome(intent) && journalling ? journal.settled(intent.value) : Effect.void
          )
        )
        const noteNamed = (id: string, where: string) =>
          // A refused id is reported as not deleted: the intent is resolved by that report.
          Effect.tapError(named(testCase, state, deleteRoute, id, where), () => settle)
        const ask = (
          route: RouteName,
          path: string,
          options: SendOptions,
          answered: (sent: Sent) => Effect.Effect<void> = () => Effect.void
        ) =>
          Effect.tap(
            postQuestion(state, route, path, options, answered),
            (sent) => sent.response === undefined ? Effect.void : Ref.set(state.phase, "reading")
          )
        const open = <A>(opening: Opening<A>): Effect.Effect<A, Failure> =>
          Effect.gen(function*() {
            const { path, route } = opening
            yield* asking.at(route, "POST", path)
            if (opening.search !== undefined && journalling && deleteRoute !== null) {
              const intent = yield* Effect.uninterruptible(journal.opening({
                caseId: testCase.id,
                protocol: protocol.definition.name,
                searchRoute: opening.search,
                deleteRoute
              }))
              yield* Ref.set(state.intent, Option.some(intent))
            }
            const sent = yield* ask(route, path, opening.options, (sent) =>
              Effect.gen(function*() {
                if (sent.status >= 500) yield* Ref.set(state.unsure, Option.some(`was answered HTTP ${sent.status}`))
                // An answer that failed may still name the conversation it opened: it is deleted all the same.
                for (const id of opening.namedInFailure?.(sent) ?? []) {
                  if (id !== undefined) yield* Effect.ignore(noteNamed(id, `in an HTTP ${sent.status} answer`))
                }
              })).pipe(
                // A request that never reached the app (or whose session it rejected) opened nothing.
                Effect.tapError(() =>
                  Effect.flatMap(Ref.get(state.unsure), (unsure) => Option.isNone(unsure) ? settle : Effect.void)
                )
              )
            if (sent.response === undefined) {
              if (sent.status < 500) yield* settle
              return yield* httpStatus(route, sent.status)
            }
            yield* Ref.set(state.unsure, Option.some("ended"))
            const read = yield* opening.read(sent, sent.response)
            yield* Ref.set(state.unsure, Option.none())
            return read
          }).pipe(Effect.ensuring(Ref.set(state.phase, "done")))
        const asking: Asking = {
          testCase,
          question: "",
          surface,
          routes,
          context: {
            surface: testCase.surface,
            gatedTools: surface.gatedTools ?? [],
            evidence: resolveEvidence(surface)
          },
          transport,
          retrying: state.retrying,
          ask: (route, path, options) => ask(route, path, options),
          open,
          named: noteNamed,
          run,
          at: (route, method, path, retrying) => Effect.sync(() => (stage = { route, method, path, retrying })),
          newId: () => crypto.randomUUID()
        }
        const naming = protocol.definition.conversation
        // The asking the turns after the first are given: in the conversation the run named, if it names one.
        let inConversation: Asking = asking
        // A conversation the run names is journalled before the question is sent, so it is deleted whatever
        // happens next — unless the app rejected the session or the request never reached it, when it opened
        // nothing and the id is taken back.
        const firstAsked = (turn: (asking: Asking) => Effect.Effect<Turn, Failure>): Effect.Effect<Turn, Failure> =>
          naming.by === "server" ? turn(asking) : Effect.gen(function*() {
            const conversationId = asking.newId()
            yield* named(testCase, state, deleteRoute, conversationId, `the ${naming.what} the run generated`)
            yield* Ref.set(state.unsure, Option.none())
            const given: AskingIn = { ...asking, conversationId }
            inConversation = given
            return yield* Effect.tapError(turn(given), (error) =>
              Effect.flatMap(
                Ref.get(state.reached),
                (reached) => error._tag === "RunStopped" || !reached ? forgetting(state, conversationId) : Effect.void
              ))
          })
        // The fiber of the turn under way (the case's last), which `finish` cuts short if it is still running.
        let fiber: Fiber.RuntimeFiber<Turn, Failure> | undefined
        const take = (turn: (asking: Asking) => Effect.Effect<Turn, Failure>): Effect.Effect<Turn, Failure> =>
          Effect.suspend(() => {
            const asked = fiber === undefined ? firstAsked(turn) : turn(inConversation)
            deadline = now() + timeoutMillis
            stage = { route: "ask", method: "POST", path: surface.endpoint ?? "" }
            // Tracing is off in the turn's fiber, once, rather than around each of its requests (`withoutSpans`).
            const running = Effect.withTracerEnabled(Effect.interruptible(asked), false)
            return Effect.flatMap(
              Effect.uninterruptible(Effect.tap(Effect.forkDaemon(running), (f) => Effect.sync(() => (fiber = f)))),
              (f) =>
                Effect.flatMap(awaitWithin(f, deadline - now()), (outcome): Effect.Effect<Turn, Failure> =>
                  Option.isSome(outcome)
                    ? outcome.value
                    : Effect.flatMap(Ref.get(stage.retrying ?? state.retrying), (why) =>
                      Effect.fail(timedOut(stage.route, config.timeout, why)))).pipe(
                    Effect.tapErrorTag("RunStopped", (error) =>
                      Effect.sync(() => {
                        if (error.reason === "unreachable") {
                          unreachable = true
                        }
                      })),
                    // Every route error names its request (method and URL, never the session).
                    Effect.catchTag("TurnError", (error) =>
                      Effect.fail(error.withRequest(requestOf())))
                  )
            )
          })
        return Effect.succeed<Started>({
          take,
          finish: (exit) =>
            Effect.gen(function*() {
              if (fiber !== undefined && fiber.unsafePoll() === null) {
                yield* Deferred.succeed(state.stopping, undefined)
                // Only an ask sending or reading may have opened something; a sleeping or waiting one has not.
                const phase = yield* Ref.get(state.phase)
                const inFlight = phase === "sending" || phase === "reading"
                const grace = Math.min(Duration.toMillis(askGrace), deadline - now())
                // An app that keeps no conversations (no delete route) can hold none: there is nothing to wait for.
                const mayOpen = inFlight && deleteRoute !== null
                // Before the run has reached the app, an ask still sending waits as well: its own failure
                // says whether it reached the app, and an app never reached (a TLS failure) opened nothing.
                const unproven = unreachable && !transport.connected() && !(yield* Ref.get(state.reached))
                if (((yield* Ref.get(state.opened)).length === 0 || unproven) && mayOpen) {
                  yield* awaitWithin(fiber, grace)
                }
                const cut = fiber.unsafePoll()
                yield* Fiber.interrupt(fiber)
                if (inFlight && cut === null) {
                  yield* Ref.set(
                    state.unsure,
                    Option.some(
                      Exit.isInterrupted(exit) ? "was interrupted" : `timed out after ${showLimit(config.timeout)}`
                    )
                  )
                }
              }
              const opened = yield* Ref.get(state.opened)
              const refused = yield* Ref.get(state.refused)
              for (const r of refused) {
                undeleted.push({
                  caseId: testCase.id,
                  conversationId: r.id,
                  reason: `the app named it, but the id ${r.why}: no request is made with it`
                })
              }
              const unsure = yield* Ref.get(state.unsure)
              if (deleteRoute !== null && opened.length === 0 && refused.length === 0 && Option.isSome(unsure)) {
                // The journal still holds the intent: a search by the run's key finds the conversation.
                const findable = journalling && Option.isSome(yield* Ref.get(state.intent))
                unknown.push({
                  caseId: testCase.id,
                  reason:
                    `the ask (${requestOf()}) ${unsure.value} before naming its conversation: the app may hold one`,
                  ...(findable ? { findable } : {})
                })
              }
              if (opened.length === 0) {
                return
              }
              if (config.keep || deleteRoute === null) {
                for (const id of opened) {
                  kept.push({ caseId: testCase.id, conversationId: id })
                }
                return
              }
              yield* inBackground(Effect.forEach(opened, (id) =>
                remove(testCase, deleteRoute, id), { discard: true }))
            })
        })
      })

    /**
     * The steps of a conversation case, taken through its protocol: the first asks in a new conversation
     * (`converse`, or the protocol's one turn when it carries no conversation on), each later one goes on
     * with it — a follow-up question, or the answer to the proposal the turn before left.
     */
    const conversing = (testCase: ConversationCase, surface: Surface, started: Started): Conversing => {
      const protocol = protocolFor(surface)!
      const client = protocol.client as ProtocolClient
      let conversation: Ongoing | undefined
      let previous: Turn | undefined
      const cannot = (detail: string) => Effect.fail(cannotTakeStep(detail))
      const taken = (index: number): Effect.Effect<Turn, Failure> => {
        const step = testCase.turns[index]!
        if (index === 0) {
          if (!("ask" in step)) return cannot("a conversation starts with an ask")
          const question = step.ask
          return started.take((asking) =>
            Effect.map((client.converse as Converse)({ ...asking, question }), ([turn, opened]) => {
              conversation = opened
              return turn
            })
          )
        }
        if (conversation === undefined || previous === undefined) {
          return cannot("the conversation's first step was not taken")
        }
        const from = previous
        const proposal = from.trace.proposal
        if (!("ask" in step) && proposal === null) return cannot("nothing to answer: the turn before left no proposal")
        const next: NextStep = "ask" in step
          ? { kind: "ask", question: step.ask }
          : {
            kind: "decide",
            approved: "approve" in step,
            reason: "deny" in step ? step.deny : undefined,
            proposal: proposal!
          }
        const going = conversation
        return started.take(() => going.next(next, from))
      }
      return { take: (index) => Effect.tap(taken(index), (turn) => Effect.sync(() => (previous = turn))) }
    }

    /** Runs `use` over a case's turns in the app, ending the case (its conversation handed to deletion) however it ends. */
    const withCase = <A>(
      testCase: Case,
      surface: Surface,
      use: (started: Started) => Effect.Effect<A, Failure>
    ): Effect.Effect<A, Failure> => {
      const refusal = refusalOf(surface)
      return refusal !== null ? Effect.fail(refusal) : Effect.uninterruptibleMask((restore) =>
        Effect.flatMap(
          start(testCase, surface),
          (started) => Effect.onExit(restore(use(started)), started.finish)
        )
      )
    }

    return {
      withTurn: (testCase, surface, use) =>
        withCase(
          testCase,
          surface,
          (started) =>
            Effect.map(
              started.take((asking) =>
                (protocolFor(surface)!.client.turn as AskTurn)({
                  ...asking,
                  question: testCase.question
                })
              ),
              use
            )
        ),
      withConversation: (testCase, surface, use) =>
        withCase(testCase, surface, (started) => use(conversing(testCase, surface, started))),
      get: (route: Route, path: string) => transport.get(route, path, config.timeout),
      post: (route, path, body) =>
        Effect.catchTag(
          transport.get(route, path, config.timeout, body),
          "TurnError",
          (error) =>
            Effect.fail(
              transport.naming(error, "POST", path)
            )
        ),
      deleteConversation,
      settled,
      leftBehind: Effect.zipRight(
        settled,
        Effect.sync(() => ({ kept: [...kept], undeleted: [...undeleted], unknown: [...unknown] }))
      )
    }
  })

/** The live client's operations. */
export interface Live {
  /**
   * Obtains a case's turn and runs `use` on it; its conversations are handed to deletion as the effect
   * ends, however it ends. No scope is opened: this is the run's hot path.
   */
  readonly withTurn: <A>(testCase: QuestionCase, surface: Surface, use: (turn: Turn) => A) => Effect.Effect<A, Failure>
  /** Runs `use` over a conversation case's steps; its conversation is handed to deletion once, as `use` ends. */
  readonly withConversation: <A>(
    testCase: ConversationCase,
    surface: Surface,
    use: (conversing: Conversing) => Effect.Effect<A, RunStopped>
  ) => Effect.Effect<A, Failure>
  /** Reads a route's body as text, bounded by the timeout: for commands that read without asking. */
  readonly get: (route: Route, path: string) => Effect.Effect<string, Failure>
  /**
   * Posts a JSON body to a route that only reads (a search) and gives the answer's body as text, retried
   * as a read is, bounded by the timeout; a failure names the request.
   */
  readonly post: (route: RouteName, path: string, body: unknown) => Effect.Effect<string, Failure>
  /** Deletes a conversation through a delete route template; never fails but for a rejected session. */
  readonly deleteConversation: (template: string, conversationId: string) => Effect.Effect<Deleted, RunStopped>
  /** Waits for every delete under way (each bounded by the delete timeout). */
  readonly settled: Effect.Effect<void>
  /** The conversations left in the account, once every delete under way has ended. */
  readonly leftBehind: Effect.Effect<LeftBehind>
}
