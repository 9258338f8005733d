/**
 * `eval cleanup`: deletes the conversations that earlier live runs against an app left in the journal
 * (a run killed with kill -9, quit with a second Ctrl-C, or whose deletes failed), signed in as the same
 * session, and reports each id. Conversations a run was opening when it ended, their ids never learned
 * (LangGraph threads), are found by searching the app for threads tagged with that run's key, and
 * deleted too; an app without a thread search is said to be one, with the metadata that finds them by
 * hand. `--forget` drops from the journal what could not be cleaned up, once the user has seen to it, so
 * that no later run warns of it again. Conversations of a run still going are left to it.
 */
import { Array as Arr, Console, Duration, Effect, Either } from "effect"
import { parseBaseUrl, sessionAuth } from "../Application/Session.js"
import { programName } from "../ProgramName.js"
import type { RunSearch } from "../Protocols/Protocol.js"
import { protocolNamed } from "../Protocols/Registry.js"
import { adoptFound, forget, type Leftover, markGone, type Opening, readJournal } from "../Runner/Journal.js"
import { type Live, makeLive } from "../Runner/LiveClient.js"
import { type Failure, quoteId, sessionOf } from "../Runner/Transport.js"
import { GateFailed } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import { placeRoute, resolveRoutes, routeBaseOf } from "../Schema/Protocol.js"
import { quoted } from "../Schema/Shown.js"
import { plural, them } from "../Words.js"
import type { CleanupArgs } from "./Options.js"

/** Why a search for an earlier run's threads did not happen, and whether the app has no search to ask. */
interface NotSearched {
  readonly why: string
  /** The app answered that it has no such route: asking again cannot help. */
  readonly noSearch: boolean
}

/** What searching for one earlier run's threads found: the leftovers to delete, or why it could not search. */
interface Searched {
  readonly openings: ReadonlyArray<Opening>
  readonly url: string
  /** What the search looks for (`metadata turn_eval_run: KEY`), or none when its protocol has no search. */
  readonly lookingFor: string | undefined
  readonly outcome: Either.Either<ReadonlyArray<Leftover>, NotSearched>
}

/**
 * The answers of an app without a thread search: Not Found, Method Not Allowed (the path serves only
 * other methods), Not Implemented. LangGraph-compatible servers that keep no metadata answer so.
 */
const noSearchStatuses: ReadonlySet<number> = new Set([404, 405, 501])

/** Why a search failed; an answer that the app has no thread search says so, not which request failed. */
const notSearched = (error: Failure): NotSearched =>
  error._tag === "RunStopped"
    ? { why: error.message, noSearch: false }
    : error.reason === "status" && error.status !== undefined && noSearchStatuses.has(error.status)
    ? { why: `the app has no thread search (HTTP ${error.status})`, noSearch: true }
    : { why: error.message, noSearch: false }

/**
 * Searches the app for the threads each earlier run was opening (one search per run and route), and
 * journals what it finds as that run's, so a delete that fails leaves it for the next cleanup. Threads
 * the journal already names are deleted through it, not twice.
 */
const searchOpenings = (live: Live, baseUrl: URL, openings: ReadonlyArray<Opening>, known: ReadonlySet<string>) => {
  const groups = Arr.groupBy(
    openings,
    (o) => JSON.stringify([o.file, o.run, o.protocol, o.searchRoute, o.deleteRoute])
  )
  return Effect.forEach(Object.values(groups), (group): Effect.Effect<Searched> =>
    Effect.gen(function*() {
      const { protocol, run, searchRoute } = group[0]
      // A route that would leave the app is named as the journal gives it: no request goes where it points.
      const placed = placeRoute(routeBaseOf(baseUrl), searchRoute)
      const url = typeof placed === "string" ? quoteId(searchRoute) : placed.href
      const search = yield* searchOf(protocol)
      if (search === undefined) {
        const why = `the journal names protocol ${quoted(protocol)}, which has no search`
        return { openings: group, url, lookingFor: undefined, outcome: Either.left({ why, noSearch: true }) }
      }
      const lookingFor = search.describe(run)
      return yield* search.find((path, body) => live.post("thread", path, body), searchRoute, run).pipe(
        Effect.flatMap((threads) => adoptFound(group, threads.filter((t) => !known.has(t.conversationId)))),
        Effect.map((adopted) => ({ openings: group, url, lookingFor, outcome: Either.right(adopted) })),
        Effect.catchAll((error) =>
          Effect.succeed({ openings: group, url, lookingFor, outcome: Either.left(notSearched(error)) })
        )
      )
    }), { concurrency: 4 })
}

/** The search of the protocol a journal names, loaded; none for a protocol without one (or of another version). */
const searchOf = (protocol: string): Effect.Effect<RunSearch | undefined> => {
  const definition = protocolNamed(protocol)
  return definition === undefined
    ? Effect.succeed(undefined)
    : Effect.map(Effect.promise(() => definition.client()), (client) => client.search)
}

/** What finds a thread by hand, after the line that names it: ` (metadata turn_eval_run: KEY)`, if anything does. */
const findBy = (lookingFor: string | undefined): string => lookingFor === undefined ? "" : ` (${inert(lookingFor)})`

/** The run that journalled an entry: `by process 4242 started 2026-12-02T…` (its start when the journal has it). */
const byProcess = (entry: { readonly pid: number; readonly started: string }): string =>
  `by process ${entry.pid}${entry.started === "" ? "" : ` started ${inert(entry.started)}`}`

/** `eval cleanup`. */
export const cleanupHandler = (args: CleanupArgs) =>
  Effect.gen(function*() {
    const baseUrl = yield* parseBaseUrl(args.baseUrl)
    const auth = yield* sessionAuth(args.cookie)
    const url = inert(baseUrl.href)
    const { inUse, leftovers: journalled, openings, otherSessions } = yield* readJournal(baseUrl, sessionOf(auth))
    if (inUse.count > 0) {
      yield* Console.log(
        `${plural(inUse.count, "conversation")} at ${url} belong to a run still going (process ${
          inUse.pids.join(", ")
        }): left to it`
      )
    }
    if (otherSessions > 0) {
      yield* Console.log(
        `${
          plural(otherSessions, "conversation")
        } at ${url} were left by another session: run ${programName} cleanup signed in as it`
      )
    }
    if (journalled.length === 0 && openings.length === 0) {
      return yield* Console.log(
        `nothing to clean up at ${url}: the journal holds no conversation of this session left by an earlier run`
      )
    }
    const { HttpLive } = yield* Effect.promise(() => import("../Runner/Http.js"))
    const { outcomes, searched } = yield* Effect.gen(function*() {
      const live = yield* makeLive({
        baseUrl,
        auth,
        routes: resolveRoutes(undefined),
        timeout: Duration.seconds(args.timeout),
        deleteTimeout: Duration.seconds(args.timeout),
        keep: false
      })
      const searched = yield* searchOpenings(live, baseUrl, openings, new Set(journalled.map((l) => l.conversationId)))
      const leftovers = [...journalled, ...searched.flatMap((s) => Either.getOrElse(s.outcome, () => []))]
      const outcomes = yield* Effect.forEach(
        leftovers,
        (leftover) =>
          Effect.map(
            live.deleteConversation(leftover.deleteRoute, leftover.conversationId),
            (outcome) => ({ leftover, outcome })
          ),
        { concurrency: 4 }
      )
      return { outcomes, searched }
    }).pipe(Effect.provide(HttpLive))
    // The journal's own leftovers come first; those after them were found by search.
    const found = new Set(outcomes.slice(journalled.length).map((o) => o.leftover))
    const width = Math.min(64, Math.max(0, ...outcomes.map((o) => inert(o.leftover.conversationId).length)))
    const where = (l: Leftover) =>
      `${l.caseId === "" ? "" : `${inert(l.caseId)} `}(${found.has(l) ? "found by search, opened" : "left"} ${
        byProcess(l)
      })`
    const searchLines = searched.map(({ lookingFor, openings: group, outcome, url: searchUrl }) => {
      const { pid } = group[0]!
      const cut = `${plural(group.length, "thread")} process ${pid} was opening`
      return Either.match(outcome, {
        onRight: (adopted) => `searched POST ${inert(searchUrl)} for the ${cut}: found ${adopted.length}`,
        onLeft: ({ noSearch, why }) =>
          noSearch
            ? `${"cannot search".padEnd(13)} POST ${inert(searchUrl)} for the ${cut}${findBy(lookingFor)}: ${
              inert(why)
            }; they may remain`
            : `${"not searched".padEnd(13)} POST ${inert(searchUrl)} for the ${cut}: ${inert(why)}; they may remain`
      })
    })
    if (searchLines.length > 0) yield* Console.log(searchLines.join("\n"))
    const lines = outcomes.map(({ leftover, outcome }) =>
      Either.match(outcome, {
        onRight: (how) => `${how.padEnd(13)} ${inert(leftover.conversationId).padEnd(width)}  ${where(leftover)}`,
        onLeft: (why) =>
          `${"not deleted".padEnd(13)} ${inert(leftover.conversationId).padEnd(width)}  ${where(leftover)}: ${
            inert(why)
          }`
      })
    )
    if (lines.length > 0) yield* Console.log(lines.join("\n"))
    const gone = outcomes.filter((o) => Either.isRight(o.outcome)).map((o) => o.leftover)
    yield* markGone(gone)
    const undeleted = outcomes.filter((o) => Either.isLeft(o.outcome)).map((o) => o.leftover)
    const notSearched = searched.flatMap((s) =>
      Either.match(s.outcome, {
        onRight: () => [],
        onLeft: ({ noSearch }) => s.openings.map((opening) => ({ opening, noSearch, lookingFor: s.lookingFor }))
      })
    )
    const forgotten = args.forget
      ? yield* forgetUnresolved(
        notSearched,
        undeleted,
        (l) => `${inert(l.conversationId).padEnd(width)}  ${where(l)}`
      )
      : new Set<string>()
    const remain = undeleted.filter((l) => !forgotten.has(l.file)).length
    const unsearched = notSearched.filter((n) => !forgotten.has(n.opening.file))
    const foundGone = gone.filter((l) => found.has(l)).length
    yield* Console.log(
      `\n${plural(gone.length, "conversation")} cleaned up at ${url}${
        found.size === 0 ? "" : ` (${foundGone} of the ${found.size} found by search)`
      }${
        summaryTail({
          url,
          remain,
          retry: unsearched.filter((n) => !n.noSearch).length,
          noSearch: unsearched.filter((n) => n.noSearch).length,
          forgotten: undeleted.length + notSearched.length - remain - unsearched.length
        })
      }`
    )
    if (remain > 0 || unsearched.length > 0) return yield* new GateFailed({ reason: "conversations-remain" })
  })

/**
 * `--forget`: drops from the journal the intents no search resolved and the conversations no delete
 * removed, listing each (an intent by its case and the metadata that finds its thread by hand). The
 * journal files written: what is in the others stays.
 */
const forgetUnresolved = (
  unsearched: ReadonlyArray<{ readonly opening: Opening; readonly lookingFor: string | undefined }>,
  undeleted: ReadonlyArray<Leftover>,
  named: (leftover: Leftover) => string
) =>
  Effect.gen(function*() {
    const written = yield* forget(unsearched.map((u) => u.opening), undeleted)
    const how = (file: string) => written.has(file) ? "forgotten".padEnd(13) : "not forgotten"
    const unwritten = (file: string) => written.has(file) ? "" : ": the journal could not be written"
    const lines = [
      ...unsearched.map(({ lookingFor, opening: o }) =>
        `${how(o.file)} a thread being opened for ${inert(o.caseId)} ${byProcess(o)}${findBy(lookingFor)}${
          unwritten(o.file)
        }`
      ),
      ...undeleted.map((l) => `${how(l.file)} ${named(l)}${unwritten(l.file)}`)
    ]
    if (lines.length > 0) yield* Console.log(lines.join("\n"))
    return written
  })

/**
 * The end of cleanup's last line: that the journal holds nothing now, or what stays and what to do about
 * it — run again for what may succeed next time; for threads an app cannot search, find them by hand and
 * then `--forget` them, so that no later run warns of them again.
 */
const summaryTail = (left: {
  readonly url: string
  readonly remain: number
  readonly retry: number
  readonly noSearch: number
  readonly forgotten: number
}): string => {
  const forgot = left.forgotten === 0
    ? ""
    : `; forgot ${plural(left.forgotten, "conversation")} it could not clean up (they may remain in the app)`
  if (left.remain === 0 && left.retry === 0 && left.noSearch === 0) {
    return `${forgot}; the journal holds none of this session now`
  }
  const again = [
    ...(left.remain === 0 ? [] : [`${left.remain} could not be deleted and stay in the journal`]),
    ...(left.retry === 0 ? [] : [`${plural(left.retry, "thread")} being opened could not be searched for`])
  ]
  const those = them(left.noSearch)
  return `${forgot}${again.length === 0 ? "" : `; ${again.join(", and ")} (run ${programName} cleanup again)`}${
    left.noSearch === 0 ? "" : `; ${plural(left.noSearch, "thread")} being opened may remain: the app cannot search ` +
      `its threads, so find ${those} in the app by the metadata above and delete ${those} there, then ` +
      `\`${programName} cleanup --base-url ${left.url} --forget\` drops ${those} from the journal`
  }`
}
