/**
 * `eval cleanup` finds what an earlier run was opening through the search of the protocol the journal
 * names: a protocol without one (or a name this version does not know) is said so, with no request made,
 * and `--forget` drops its intents. In this process, the journal in a scratch state folder removed after.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Scope } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { openJournal, readJournal } from "../../src/Runner/Journal.js"
import { cliInProcess, withEnv } from "../support/inProcess.js"
import { endRun, journalFiles } from "../support/journal.js"
import { scratchFolder } from "../support/scratch.js"

// Nothing listens here: a request the cleanup made would fail, and the output would say so.
const baseUrl = new URL("http://127.0.0.1:9/app/")
const cookie = "session=s3cret-token"

/** A dead run's journal in a fresh state folder, holding an intent per protocol named. */
const deadRunOpening = (protocols: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const state = yield* scratchFolder("eval-cleanup-search-")
    const folder = join(state, "turn-eval")
    const scope = yield* Scope.make()
    const journal = yield* Scope.extend(
      openJournal({
        baseUrl,
        session: Redacted.make(cookie),
        deleteRoute: "/threads/{conversationId}",
        folder,
        warn: () => {}
      }),
      scope
    )
    for (const [i, protocol] of protocols.entries()) {
      yield* journal.opening({
        caseId: `docs.case-${i}`,
        protocol,
        searchRoute: "/threads/search",
        deleteRoute: "/threads/{conversationId}"
      })
    }
    yield* Scope.close(scope, Exit.void)
    const [file] = journalFiles(folder)
    endRun(file!)
    return { state, folder, file: file! }
  })

describe("cleanup of intents whose protocol has no search", () => {
  it.scoped("says it cannot search, asking nothing, and --forget drops them", () =>
    Effect.gen(function*() {
      const { file, folder, state } = yield* deadRunOpening(["turn-eval", "a-protocol-of-a-later-version"])
      const cleanup = (...args: ReadonlyArray<string>) =>
        Effect.promise(() =>
          withEnv(
            { XDG_STATE_HOME: state },
            () => cliInProcess(["cleanup", "--base-url", baseUrl.href, "--cookie", cookie, ...args])
          )
        )
      expect(readFileSync(file, "utf8")).toContain(`"protocol":"turn-eval"`)
      const searched = yield* cleanup()
      expect([searched.code, searched.stderr]).toEqual([1, ""])
      const lines = searched.stdout.split("\n")
      expect(lines.filter((l) => l.startsWith("cannot search"))).toEqual([
        `cannot search POST ${baseUrl.href}threads/search for the 1 thread process ${
          /process (\d+)/.exec(lines[0]!)![1]
        } was opening: the journal names protocol "turn-eval", which has no search; they may remain`,
        expect.stringMatching(
          /^cannot search .* was opening: the journal names protocol "a-protocol-of-a-later-version", which has no search; they may remain$/
        )
      ])
      expect(searched.stdout).not.toMatch(/not searched|cannot reach|refused/)
      expect((yield* readJournal(baseUrl, Redacted.make(cookie), folder)).openings).toHaveLength(2)

      const forgot = yield* cleanup("--forget")
      expect(forgot.code, forgot.stdout).toBe(0)
      expect(forgot.stdout.split("\n").filter((l) => l.startsWith("forgotten"))).toEqual([
        expect.stringMatching(/^forgotten +a thread being opened for docs\.case-0 by process \d+ started \S+$/),
        expect.stringMatching(/^forgotten +a thread being opened for docs\.case-1 by process \d+ started \S+$/)
      ])
      expect((yield* readJournal(baseUrl, Redacted.make(cookie), folder)).openings).toEqual([])
    }).pipe(Effect.provide(NodeContext.layer)))

  it.scoped("reads an intent journalled before the protocol was written down as LangGraph's", () =>
    Effect.gen(function*() {
      const { file, folder } = yield* deadRunOpening(["langgraph"])
      writeFileSync(file, readFileSync(file, "utf8").replace(`"protocol":"langgraph",`, ""))
      expect(readFileSync(file, "utf8")).not.toContain("protocol")
      const contents = yield* readJournal(baseUrl, Redacted.make(cookie), folder)
      expect(contents.openings.map((o) => [o.caseId, o.protocol])).toEqual([["docs.case-0", "langgraph"]])
    }).pipe(Effect.provide(NodeContext.layer)))
})
