/**
 * The journal's intents: a conversation being opened is recorded before its request, resolved by the
 * `open` that names it or by `settled`; one a run left unresolved is an opening of a dead run, and
 * `adoptFound` turns what a search found into leftovers, resolving the intents.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Scope } from "effect"
import { readFileSync } from "node:fs"
import { adoptFound, openConversations, openJournal, readJournal } from "../../src/Runner/Journal.js"
import { endRun, journalFiles } from "../support/journal.js"
import { scratchFolder } from "../support/scratch.js"

const baseUrl = new URL("http://127.0.0.1:5173/app")
const cookie = Redacted.make("session=s3cret-token")

describe("intents in the journal", () => {
  it.scoped("are resolved by the open that names them or by settled; the rest are a dead run's openings", () =>
    Effect.gen(function*() {
      const dir = yield* scratchFolder("eval-journal-")
      const scope = yield* Scope.make()
      const journal = yield* Scope.extend(
        openJournal({
          baseUrl,
          session: cookie,
          deleteRoute: "/threads/{conversationId}",
          folder: dir,
          warn: () => {}
        }),
        scope
      )
      const a = yield* journal.opening({
        caseId: "docs.a",
        protocol: "langgraph",
        searchRoute: "/threads/search",
        deleteRoute: "/threads/{conversationId}"
      })
      const b = yield* journal.opening({
        caseId: "docs.b",
        protocol: "langgraph",
        searchRoute: "/threads/search",
        deleteRoute: "/threads/{conversationId}"
      })
      const c = yield* journal.opening({
        caseId: "docs.c",
        protocol: "langgraph",
        searchRoute: "/threads/search",
        deleteRoute: "/threads/{conversationId}"
      })
      expect(openConversations().find((o) => o.baseUrl === "http://127.0.0.1:5173/app/")).toMatchObject({
        count: 0,
        opening: 3
      })
      yield* journal.opened("docs.a", "t-a", "/threads/{conversationId}", a)
      yield* journal.settled(b)
      expect((yield* readJournal(baseUrl, cookie, dir)).inUse.count).toBe(2)
      yield* Scope.close(scope, Exit.void)
      // The run died: its file is left as a dead run's, with one open and one intent unresolved.
      const [file] = journalFiles(dir)
      endRun(file!)
      const contents = yield* readJournal(baseUrl, cookie, dir)
      expect(contents.leftovers.map((l) => l.conversationId)).toEqual(["t-a"])
      expect(contents.openings.map((o) => [o.intent, o.caseId, o.run, o.searchRoute])).toEqual([
        [c, "docs.c", journal.run, "/threads/search"]
      ])
      expect(readFileSync(file!, "utf8")).not.toContain("s3cret-token")
      // A search found its thread: it becomes a leftover, and the intent is resolved on the disk.
      const adopted = yield* adoptFound(contents.openings, [{ conversationId: "t-c", caseId: "docs.c" }])
      expect(adopted.map((l) => [l.conversationId, l.caseId, l.deleteRoute])).toEqual([
        ["t-c", "docs.c", "/threads/{conversationId}"]
      ])
      const after = yield* readJournal(baseUrl, cookie, dir)
      expect(after.openings).toEqual([])
      expect(after.leftovers.map((l) => l.conversationId).sort()).toEqual(["t-a", "t-c"])
    }).pipe(Effect.provide(NodeContext.layer)))
})
