import { describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Scope } from "effect"
import { appendFileSync, mkdtempSync, readFileSync, statSync } from "node:fs"
import { open } from "node:fs/promises"
import { tmpdir } from "node:os"
import { dirname, join } from "node:path"
import { markGone, openJournal, readJournal, stateFolder } from "../../src/Runner/Journal.js"
import { endedRunText, journalFiles } from "../support/journal.js"

const baseUrl = new URL("http://127.0.0.1:5173/app")
const cookie = Redacted.make("session=s3cret-token")
const folder = () => mkdtempSync(join(tmpdir(), "eval-journal-"))

/** Writes, by hand, the journal a dead run would have left: its file with the pid replaced. */
const leaveAsDeadRun = (dir: string, ids: ReadonlyArray<string>) =>
  Effect.gen(function*() {
    const scope = yield* Scope.make()
    const journal = yield* Scope.extend(
      openJournal({ baseUrl, session: cookie, deleteRoute: "/c/{conversationId}", folder: dir, warn: () => {} }),
      scope
    )
    for (const id of ids) yield* journal.opened("docs.case", id)
    const [path] = journalFiles(dir)
    const text = endedRunText(path!)
    // The scope stays open: like a killed run, nothing removes the file.
    return { path: path!, text }
  })

describe("the journal", () => {
  it.live("writes lines that come together in one batch and one flush, each open on the disk once its call ends", () =>
    Effect.gen(function*() {
      const dir = folder()
      // Flushes counted on FileHandle's prototype, for the journal's handle alike.
      const handle = yield* Effect.promise(() => open(join(dir, "probe"), "w"))
      const proto = Object.getPrototypeOf(handle) as { datasync: () => Promise<void> }
      yield* Effect.promise(() => handle.close())
      const datasync = proto.datasync
      let flushes = 0
      proto.datasync = function(this: unknown) {
        flushes++
        return datasync.call(this)
      }
      yield* Effect.addFinalizer(() => Effect.sync(() => (proto.datasync = datasync)))
      const journal = yield* openJournal({
        baseUrl,
        session: cookie,
        deleteRoute: "/c/{conversationId}",
        folder: dir,
        warn: () => {}
      })
      const ids = Array.from({ length: 16 }, (_, i) => `conv_${i}`)
      const onDisk = (id: string) => {
        const [file] = journalFiles(dir)
        return readFileSync(file!, "utf8").includes(`"open":"${id}"`)
      }
      const seen = yield* Effect.forEach(
        ids,
        (id) => Effect.map(journal.opened("docs.case", id), () => onDisk(id)),
        { concurrency: "unbounded" }
      )
      expect(seen.every((written) => written)).toBe(true)
      expect(flushes).toBeGreaterThan(0)
      expect(flushes).toBeLessThan(ids.length)
      const [file] = journalFiles(dir)
      const lines = readFileSync(file!, "utf8").trim().split("\n").slice(1)
      expect(lines.map((line) => JSON.parse(line).open)).toEqual(ids)
    }).pipe(Effect.scoped))

  it("lives in $XDG_STATE_HOME/turn-eval, else ~/.local/state/turn-eval (a relative XDG_STATE_HOME is ignored)", () => {
    expect(stateFolder({ XDG_STATE_HOME: "/var/state" })).toBe("/var/state/turn-eval")
    expect(stateFolder({ XDG_STATE_HOME: "rel" })).toMatch(/\/\.local\/state\/turn-eval$/)
    expect(stateFolder({})).toMatch(/\/\.local\/state\/turn-eval$/)
  })

  it.effect("records conversations until they are gone, and leaves no file once all are", () =>
    Effect.gen(function*() {
      const dir = folder()
      const scope = yield* Scope.make()
      const journal = yield* Scope.extend(
        openJournal({ baseUrl, session: cookie, deleteRoute: "/c/{conversationId}", folder: dir, warn: () => {} }),
        scope
      )
      expect(journalFiles(dir)).toEqual([])
      yield* journal.opened("docs.a", "conv_1")
      yield* journal.opened("docs.b", "conv_2")
      const [file] = journalFiles(dir)
      const text = readFileSync(file!, "utf8")
      expect(text).toContain("\"open\":\"conv_1\"")
      // Neither the cookie nor the URL names a file, and only the user can read it.
      expect(`${file!}\n${text}`).not.toContain("s3cret-token")
      expect(dirname(file!)).not.toContain("5173")
      expect(statSync(file!).mode & 0o077).toBe(0)
      // A run still going is not a leftover.
      expect((yield* readJournal(baseUrl, cookie, dir)).inUse.count).toBe(2)
      yield* journal.gone("conv_1")
      yield* journal.gone("conv_2")
      yield* Scope.close(scope, Exit.void)
      expect(journalFiles(dir)).toEqual([])
    }))

  it.effect("keeps what a killed run left, per base URL and session, even with its last line cut short", () =>
    Effect.gen(function*() {
      const dir = folder()
      const { path, text } = yield* leaveAsDeadRun(dir, ["conv_1", "conv_2"])
      const { writeFileSync } = yield* Effect.promise(() => import("node:fs"))
      writeFileSync(path, text)
      appendFileSync(path, "{\"open\":\"conv_")
      const contents = yield* readJournal(baseUrl, cookie, dir)
      expect(contents.leftovers.map((l) => [l.conversationId, l.caseId, l.deleteRoute])).toEqual([
        ["conv_1", "docs.case", "/c/{conversationId}"],
        ["conv_2", "docs.case", "/c/{conversationId}"]
      ])
      expect(contents.inUse.count).toBe(0)
      // Another session at the same URL sees them only as another session's; another URL not at all.
      const other = yield* readJournal(baseUrl, Redacted.make("session=other"), dir)
      expect(other).toMatchObject({ leftovers: [], otherSessions: 2 })
      expect(yield* readJournal(new URL("http://127.0.0.1:5174/app"), cookie, dir)).toMatchObject({
        leftovers: [],
        otherSessions: 0
      })
      yield* markGone(contents.leftovers.slice(0, 1))
      expect((yield* readJournal(baseUrl, cookie, dir)).leftovers.map((l) => l.conversationId)).toEqual(["conv_2"])
      yield* markGone((yield* readJournal(baseUrl, cookie, dir)).leftovers)
      expect(journalFiles(dir)).toEqual([])
    }))

  it.effect("refuses, on reading, an id no route may hold, whoever wrote it", () =>
    Effect.gen(function*() {
      const dir = folder()
      const { path, text } = yield* leaveAsDeadRun(dir, ["conv_1"])
      const { writeFileSync } = yield* Effect.promise(() => import("node:fs"))
      writeFileSync(path, `${text}{"open":".."}\n{"open":"a/../b"}\n`)
      expect((yield* readJournal(baseUrl, cookie, dir)).leftovers.map((l) => l.conversationId)).toEqual(["conv_1"])
    }))

  it.effect("warns once and lets the run go on when the state folder cannot be written", () =>
    Effect.gen(function*() {
      const warnings: Array<string> = []
      const dir = join(folder(), "file")
      const { writeFileSync } = yield* Effect.promise(() => import("node:fs"))
      writeFileSync(dir, "not a folder")
      const journal = yield* openJournal({
        baseUrl,
        session: cookie,
        deleteRoute: "/c/{conversationId}",
        folder: dir,
        warn: (w) => warnings.push(w)
      })
      yield* journal.opened("docs.a", "conv_1")
      yield* journal.opened("docs.b", "conv_2")
      expect(warnings).toHaveLength(1)
      expect(warnings[0]).toMatch(/^cannot keep the journal of open conversations in .* \(ENOTDIR\)/)
    }).pipe(Effect.scoped))
})
