/**
 * `eval cleanup`: deletes the conversations that earlier live runs against an app left in the journal
 * (a run killed with kill -9, quit with a second Ctrl-C, or whose deletes failed), signed in as the same
 * session, and reports each id. Conversations a run was opening when it ended, their ids never learned
 * (LangGraph threads), are found by searching the app for threads tagged with that run's key, and
 * deleted too. Conversations of a run still going are left to it.
 */
import { Console, Duration, Effect, Either } from "effect"
import { parseBaseUrl, sessionAuth } from "../Application/Session.js"
import { programName } from "../ProgramName.js"
import { adoptFound, type Leftover, markGone, type Opening, readJournal } from "../Runner/Journal.js"
import { type Live, makeLive } from "../Runner/LiveClient.js"
import { findRunThreads } from "../Runner/Protocols/LangGraph.js"
import { quoteId, sessionOf } from "../Runner/Transport.js"
import { GateFailed } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import { placeRoute, resolveRoutes, routeBaseOf } from "../Schema/Protocol.js"
import type { CleanupArgs } from "./Options.js"

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`

/** What searching for one earlier run's threads found: the leftovers to delete, or why it could not search. */
interface Searched {
  readonly openings: ReadonlyArray<Opening>
  readonly url: string
  readonly outcome: Either.Either<ReadonlyArray<Leftover>, string>
}

/**
 * Searches the app for the threads each earlier run was opening (one search per run and route), and
 * journals what it finds as that run's, so a delete that fails leaves it for the next cleanup. Threads
 * the journal already names are deleted through it, not twice.
 */
const searchOpenings = (live: Live, baseUrl: URL, openings: ReadonlyArray<Opening>, known: ReadonlySet<string>) => {
  const groups = new Map<string, Array<Opening>>()
  for (const o of openings) {
    const key = JSON.stringify([o.file, o.run, o.searchRoute, o.deleteRoute])
    groups.set(key, [...(groups.get(key) ?? []), o])
  }
  return Effect.forEach([...groups.values()], (group): Effect.Effect<Searched> => {
    const { run, searchRoute } = group[0]!
    // A route that would leave the app is named as the journal gives it: no request goes where it points.
    const placed = placeRoute(routeBaseOf(baseUrl), searchRoute)
    const url = typeof placed === "string" ? quoteId(searchRoute) : placed.href
    return findRunThreads((path, body) => live.post("thread", path, body), searchRoute, run).pipe(
      Effect.flatMap((threads) => adoptFound(group, threads.filter((t) => !known.has(t.conversationId)))),
      Effect.map((adopted) => ({ openings: group, url, outcome: Either.right(adopted) })),
      Effect.catchAll((error) =>
        Effect.succeed({
          openings: group,
          url,
          outcome: Either.left(error._tag === "TurnError" ? error.reason : error.message)
        })
      )
    )
  }, { concurrency: 4 })
}

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
      `${l.caseId === "" ? "" : `${inert(l.caseId)} `}(${
        found.has(l) ? "found by search, opened" : "left"
      } by process ${l.pid}${l.started === "" ? "" : ` started ${inert(l.started)}`})`
    const searchLines = searched.map(({ openings: group, outcome, url: searchUrl }) => {
      const { pid } = group[0]!
      const cut = `${plural(group.length, "thread")} process ${pid} was opening`
      return Either.match(outcome, {
        onRight: (adopted) => `searched POST ${inert(searchUrl)} for the ${cut}: found ${adopted.length}`,
        onLeft: (why) =>
          `${"not searched".padEnd(13)} POST ${inert(searchUrl)} for the ${cut}: ${inert(why)}; they may remain`
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
    const remain = outcomes.length - gone.length
    const unsearched = searched.filter((s) => Either.isLeft(s.outcome)).reduce((n, s) => n + s.openings.length, 0)
    const foundGone = gone.filter((l) => found.has(l)).length
    yield* Console.log(
      `\n${plural(gone.length, "conversation")} cleaned up at ${url}${
        found.size === 0 ? "" : ` (${foundGone} of the ${found.size} found by search)`
      }${
        remain === 0 && unsearched === 0
          ? "; the journal holds none of this session now"
          : `;${remain === 0 ? "" : ` ${remain} could not be deleted and stay in the journal`}${
            remain > 0 && unsearched > 0 ? ", and" : ""
          }${
            unsearched === 0 ? "" : ` ${plural(unsearched, "thread")} being opened could not be searched for`
          } (run ${programName} cleanup again)`
      }`
    )
    if (remain > 0 || unsearched > 0) return yield* new GateFailed({ reason: "conversations-remain" })
  })
