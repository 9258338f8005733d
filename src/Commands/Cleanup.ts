/**
 * `eval cleanup`: deletes the conversations that earlier live runs against an app left in the journal
 * (a run killed with kill -9, quit with a second Ctrl-C, or whose deletes failed), signed in as the same
 * session, and reports each id. Conversations of a run still going are left to it.
 */
import { Console, Duration, Effect, Either } from "effect"
import { parseBaseUrl, sessionAuth } from "../Application/Session.js"
import { programName } from "../ProgramName.js"
import { type Leftover, markGone, readJournal } from "../Runner/Journal.js"
import { makeLive } from "../Runner/LiveClient.js"
import { sessionOf } from "../Runner/Transport.js"
import { GateFailed } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import { resolveRoutes } from "../Schema/Protocol.js"
import type { CleanupArgs } from "./Options.js"

const plural = (n: number, noun: string) => `${n} ${noun}${n === 1 ? "" : "s"}`

/** `eval cleanup`. */
export const cleanupHandler = (args: CleanupArgs) =>
  Effect.gen(function*() {
    const baseUrl = yield* parseBaseUrl(args.baseUrl)
    const auth = yield* sessionAuth(args.cookie)
    const url = inert(baseUrl.href)
    const { inUse, leftovers, otherSessions } = yield* readJournal(baseUrl, sessionOf(auth))
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
    if (leftovers.length === 0) {
      return yield* Console.log(
        `nothing to clean up at ${url}: the journal holds no conversation of this session left by an earlier run`
      )
    }
    const { HttpLive } = yield* Effect.promise(() => import("../Runner/Http.js"))
    const outcomes = yield* Effect.gen(function*() {
      const live = yield* makeLive({
        baseUrl,
        auth,
        routes: resolveRoutes(undefined),
        timeout: Duration.seconds(args.timeout),
        deleteTimeout: Duration.seconds(args.timeout),
        keep: false
      })
      return yield* Effect.forEach(
        leftovers,
        (leftover) =>
          Effect.map(
            live.deleteConversation(leftover.deleteRoute, leftover.conversationId),
            (outcome) => ({ leftover, outcome })
          ),
        { concurrency: 4 }
      )
    }).pipe(Effect.provide(HttpLive))
    const width = Math.min(64, Math.max(...leftovers.map((l) => inert(l.conversationId).length)))
    const where = (l: Leftover) =>
      `${l.caseId === "" ? "" : `${inert(l.caseId)} `}(left by process ${l.pid}${
        l.started === "" ? "" : ` started ${inert(l.started)}`
      })`
    const lines = outcomes.map(({ leftover, outcome }) =>
      Either.match(outcome, {
        onRight: (how) => `${how.padEnd(13)} ${inert(leftover.conversationId).padEnd(width)}  ${where(leftover)}`,
        onLeft: (why) =>
          `${"not deleted".padEnd(13)} ${inert(leftover.conversationId).padEnd(width)}  ${where(leftover)}: ${
            inert(why)
          }`
      })
    )
    yield* Console.log(lines.join("\n"))
    const gone = outcomes.filter((o) => Either.isRight(o.outcome)).map((o) => o.leftover)
    yield* markGone(gone)
    const remain = outcomes.length - gone.length
    yield* Console.log(
      `\n${plural(gone.length, "conversation")} cleaned up at ${url}${
        remain === 0
          ? "; the journal holds none of this session now"
          : `; ${remain} could not be deleted and stay in the journal (run ${programName} cleanup again)`
      }`
    )
    if (remain > 0) return yield* new GateFailed({ reason: "conversations-remain" })
  })
