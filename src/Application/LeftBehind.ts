/**
 * The conversations a live run leaves in the app's account: those earlier runs left (told before a
 * run starts) and those this run left (told as it ends) — kept on request, not deleted, or possibly
 * opened and never named — with the command that deletes them.
 */
import { Console, Effect } from "effect"
import { programName } from "../ProgramName.js"
import { readJournal } from "../Runner/Journal.js"
import { SurfaceClient } from "../Runner/SurfaceClient.js"
import { type Auth, sessionOf } from "../Runner/Transport.js"
import { inert } from "../Schema/Inert.js"
import { idProblem } from "../Schema/Protocol.js"
import { shown } from "../Schema/Shown.js"
import { plural, them } from "../Words.js"

/** The `eval cleanup` command line for a base URL. */
const cleanupCommand = (baseUrl: URL): string => `${programName} cleanup --base-url ${inert(baseUrl.href)}`

/**
 * Says which conversations a live run left in the account: kept on request, not deleted (with why;
 * those with a usable id stay in the journal for `eval cleanup`), and the cases whose ask may have
 * opened one it never named.
 */
export const reportLeftBehind = (say: (text: string) => Effect.Effect<void>, baseUrl: URL | undefined) =>
  Effect.gen(function*() {
    const client = yield* SurfaceClient
    if (client.leftBehind === undefined) return
    const { kept, undeleted, unknown } = yield* client.leftBehind
    const clipped = (id: string): string => inert(shown(id))
    const width = Math.min(64, Math.max(0, ...[...kept, ...undeleted].map((c) => clipped(c.conversationId).length)))
    const padded = (id: string): string => clipped(id).padEnd(width)
    if (kept.length > 0) {
      yield* say(
        [
          `\nkept ${plural(kept.length, "conversation")} for the turn inspector:`,
          ...kept.map((c) => `  ${padded(c.conversationId)}  ${c.caseId}`)
        ].join("\n")
      )
    }
    if (undeleted.length > 0) {
      // Those with an id a route can hold stay in the journal, for `eval cleanup` to try again.
      const retry = baseUrl !== undefined && undeleted.some((c) => idProblem(c.conversationId) === undefined)
        ? `; \`${cleanupCommand(baseUrl)}\` tries again, or delete ${them(undeleted.length)} by hand`
        : `; delete ${them(undeleted.length)} by hand`
      yield* Console.error(
        [
          `${plural(undeleted.length, "conversation")} could not be deleted${retry}:`,
          ...undeleted.map((c) => `  ${padded(c.conversationId)}  ${c.caseId}: ${inert(c.reason ?? "")}`)
        ].join("\n")
      )
    }
    if (unknown.length > 0) {
      yield* Console.error(
        [
          `${plural(unknown.length, "case")} may have left a conversation the run never learned of; ${
            baseUrl !== undefined && unknown.every((c) => c.findable === true)
              ? `\`${cleanupCommand(baseUrl)}\` searches the app for ${them(unknown.length)}`
              : "look in the app's account"
          }:`,
          ...unknown.map((c) => `  ${c.caseId}: ${inert(c.reason)}`)
        ].join("\n")
      )
    }
  })

/**
 * Tells, before anything else, of conversations that earlier runs left in the journal for this app
 * and session (a run killed before it could delete them), and the command that deletes them.
 */
export const noteLeftovers = (baseUrl: URL, auth: Auth) =>
  Effect.gen(function*() {
    const { leftovers, openings, otherSessions } = yield* readJournal(baseUrl, sessionOf(auth))
    const at = `in this account at ${inert(baseUrl.href)}`
    // Conversations being opened when a run ended, their ids never learned: the app may hold each.
    const opening = `${
      leftovers.length > 0 ? `${openings.length} more` : plural(openings.length, "conversation")
    } they were opening when they ended`
    if (leftovers.length > 0 && openings.length === 0) {
      yield* Console.error(
        `note: earlier runs left ${plural(leftovers.length, "conversation")} undeleted ${at}; \`${
          cleanupCommand(baseUrl)
        }\` deletes them`
      )
    } else if (openings.length > 0) {
      yield* Console.error(
        `note: earlier runs ${
          leftovers.length === 0
            ? `may have left ${opening}, ${at}`
            : `left ${plural(leftovers.length, "conversation")} undeleted ${at}, and may have left ${opening}`
        }; \`${cleanupCommand(baseUrl)}\` finds and deletes them`
      )
    } else if (otherSessions > 0) {
      yield* Console.error(
        `note: earlier runs of another session left ${plural(otherSessions, "conversation")} at ${
          inert(baseUrl.href)
        }; \`${cleanupCommand(baseUrl)}\` signed in as that session deletes them`
      )
    }
  })
