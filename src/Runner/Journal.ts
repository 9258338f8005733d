/**
 * The journal of conversations a live run opened and has not yet deleted, so that none is lost when
 * a run cannot clean up after itself (kill -9, a second Ctrl-C, a delete that failed). Each run keeps
 * a file of its own under the user's state folder (`$XDG_STATE_HOME/turn-eval`, else
 * `~/.local/state/turn-eval`), in a folder per base URL and session:
 *
 *     journal/<url key>/<session key>/<pid>-<random>.jsonl
 *
 * The keys are salted SHA-256 hashes (the salt is made once, readable by the user alone): the cookie is
 * never written, and a file name tells nothing of the URL. A conversation is appended (and fsync'd)
 * before the run relies on its id, and marked gone when its delete succeeds; the file is removed when
 * the run ends with nothing left in it. `eval cleanup` deletes what dead runs left.
 *
 * A conversation the app names only in its answer (a LangGraph thread) is journalled twice: the intent
 * to open one (`opening`), before the request, and its id once known (an `open` naming the intent), or
 * the intent `settled` when the answer shows nothing was opened. The app is asked to tag it with the
 * file's random `run` key, so an intent a kill left unresolved is resolved by searching the app for
 * conversations tagged with that key.
 */
import { Array as Arr, Effect, Either, Redacted, type Scope } from "effect"
import { createHash, randomBytes } from "node:crypto"
import {
  appendFileSync,
  closeSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  writeSync
} from "node:fs"
import { type FileHandle, open as openFile } from "node:fs/promises"
import { homedir } from "node:os"
import { isAbsolute, join } from "node:path"
import { readTextSync } from "../Files.js"
import { isAlive } from "../Processes.js"
import { programName } from "../ProgramName.js"
import { idProblem } from "../Schema/Protocol.js"

/** The user's state folder for the suite: `$XDG_STATE_HOME/turn-eval`, else `~/.local/state/turn-eval`. */
export const stateFolder = (env: NodeJS.ProcessEnv = process.env): string => {
  const xdg = env["XDG_STATE_HOME"]
  return join(xdg !== undefined && isAbsolute(xdg) ? xdg : join(homedir(), ".local", "state"), "turn-eval")
}

/** A conversation an earlier run left in the journal. */
export interface Leftover {
  readonly conversationId: string
  readonly caseId: string
  /** The delete route template the run used. */
  readonly deleteRoute: string
  /** The run's process, and when it started. */
  readonly pid: number
  readonly started: string
  /** The journal file it is in. */
  readonly file: string
}

/**
 * A conversation an earlier run was opening when it ended, whose id it never learned: the app may hold
 * one, tagged with the run's key, that a search through `searchRoute` finds.
 */
export interface Opening {
  /** The intent's own id in the journal. */
  readonly intent: string
  /** The run's random key, which the app was asked to tag the conversation with. */
  readonly run: string
  readonly caseId: string
  /** The protocol whose search finds it, by name. */
  readonly protocol: string
  /** The route that finds the run's conversations, and the delete route template of what it finds. */
  readonly searchRoute: string
  readonly deleteRoute: string
  readonly pid: number
  readonly started: string
  readonly file: string
}

/** What a case is opening: for its case, the protocol and route whose search finds it, and its delete route. */
export interface OpeningIntent {
  readonly caseId: string
  readonly protocol: string
  readonly searchRoute: string
  readonly deleteRoute: string
}

/** What the journal holds for one base URL and session. */
export interface JournalContents {
  /** Conversations of runs that no longer run. */
  readonly leftovers: ReadonlyArray<Leftover>
  /** Conversations runs that no longer run were opening when they ended, their ids never learned. */
  readonly openings: ReadonlyArray<Opening>
  /** How many conversations runs still running hold, and their processes. */
  readonly inUse: { readonly count: number; readonly pids: ReadonlyArray<number> }
  /** Conversations other sessions left at the same base URL (they need that session to be deleted). */
  readonly otherSessions: number
}

/** A run's journal: what it opened and has not yet deleted. */
export interface Journal {
  /** The run's random key: what a conversation is tagged with in the app, so that a search finds it. */
  readonly run: string
  /**
   * Records a conversation before the run relies on its id, with the route that deletes it when that is
   * not the run's default (surfaces of other protocols delete elsewhere), and the intent it resolves
   * (`opening`'s answer), if any; written through to the disk.
   */
  readonly opened: (
    caseId: string,
    conversationId: string,
    deleteRoute?: string,
    intent?: string
  ) => Effect.Effect<void>
  /** Marks a conversation deleted (or found gone). */
  readonly gone: (conversationId: string) => Effect.Effect<void>
  /**
   * Records, before the request is sent, that a case is opening a conversation whose id only the
   * app's answer will tell, and the routes that find (by the run's key) and delete it; written through
   * to the disk. Gives the intent's id, for `opened` or `settled`.
   */
  readonly opening: (intent: OpeningIntent) => Effect.Effect<string>
  /** Marks an intent resolved with nothing opened: the app's answer shows it made no conversation. */
  readonly settled: (intent: string) => Effect.Effect<void>
}

const saltFile = (folder: string) => join(folder, "salt")

/**
 * The user's salt: `undefined` when there is none yet, unless `create`, which makes it (0600) and throws
 * when the state folder cannot be written.
 */
const salt = (folder: string, create: boolean): string | undefined => {
  try {
    return readFileSync(saltFile(folder), "utf8").trim()
  } catch (error) {
    if (!create) return undefined
    if ((error as { code?: string }).code !== "ENOENT") throw error
  }
  mkdirSync(folder, { recursive: true, mode: 0o700 })
  const fresh = randomBytes(32).toString("hex")
  try {
    writeAll(saltFile(folder), `${fresh}\n`, "wx", 0o600)
    return fresh
  } catch (error) {
    // Another run made it first.
    if ((error as { code?: string }).code !== "EEXIST") throw error
    return readFileSync(saltFile(folder), "utf8").trim()
  }
}

const writeAll = (file: string, text: string, flag: string, mode: number): void => {
  const fd = openSync(file, flag, mode)
  try {
    writeSync(fd, text)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

const hash = (...parts: ReadonlyArray<string>): string =>
  createHash("sha256").update(parts.join("\u0000")).digest("hex").slice(0, 32)

/** The base URL as the journal keys it: origin and path, with one trailing slash. */
const urlText = (baseUrl: URL): string => `${baseUrl.origin}${baseUrl.pathname.replace(/\/+$/, "")}/`

/** The folders of one base URL, and of one session at it. */
const folders = (folder: string, saltText: string, baseUrl: URL, session: Redacted.Redacted<string>) => {
  const url = join(folder, "journal", hash(saltText, "url", urlText(baseUrl)))
  return { url, session: join(url, hash(saltText, "session", urlText(baseUrl), Redacted.value(session))) }
}

/** The open entries of one journal file (a line cut short by a kill is skipped). */
const readFile = (file: string) => {
  let header: { pid: number; started: string; deleteRoute: string } | undefined
  const open = new Map<string, { readonly caseId: string; readonly deleteRoute: string | undefined }>()
  const openings = new Map<
    string,
    OpeningIntent & { readonly run: string }
  >()
  // A file that cannot be read as the suite reads any input (a regular file, within the limit) is not ours.
  const text = Either.getOrUndefined(readTextSync(file))
  if (text === undefined) return undefined
  for (const line of text.split("\n")) {
    let entry: unknown
    try {
      entry = JSON.parse(line)
    } catch {
      continue
    }
    if (typeof entry !== "object" || entry === null) continue
    const e = entry as Record<string, unknown>
    if (header === undefined && typeof e["pid"] === "number" && typeof e["delete"] === "string") {
      header = {
        pid: e["pid"],
        started: typeof e["started"] === "string" ? e["started"] : "",
        deleteRoute: e["delete"]
      }
    } else if (typeof e["open"] === "string" && idProblem(e["open"]) === undefined) {
      open.set(e["open"], {
        caseId: typeof e["case"] === "string" ? e["case"] : "",
        deleteRoute: typeof e["delete"] === "string" ? e["delete"] : undefined
      })
      if (typeof e["opening"] === "string") openings.delete(e["opening"])
    } else if (typeof e["gone"] === "string") {
      open.delete(e["gone"])
    } else if (
      typeof e["opening"] === "string" && typeof e["run"] === "string" && typeof e["search"] === "string" &&
      typeof e["delete"] === "string"
    ) {
      openings.set(e["opening"], {
        run: e["run"],
        caseId: typeof e["case"] === "string" ? e["case"] : "",
        // Journals from before the protocol was written down journalled only LangGraph's thread searches.
        protocol: typeof e["protocol"] === "string" ? e["protocol"] : "langgraph",
        searchRoute: e["search"],
        deleteRoute: e["delete"]
      })
    } else if (typeof e["settled"] === "string") {
      openings.delete(e["settled"])
    }
  }
  return header === undefined ? undefined : { ...header, open, openings }
}

/** What a journal file still holds: conversations open, and intents unresolved. */
const held = (read: { readonly open: ReadonlyMap<string, unknown>; readonly openings: ReadonlyMap<string, unknown> }) =>
  read.open.size + read.openings.size

const filesIn = (folder: string): ReadonlyArray<string> => {
  try {
    return readdirSync(folder).filter((name) => name.endsWith(".jsonl")).map((name) => join(folder, name))
  } catch {
    return []
  }
}

const subfolders = (folder: string): ReadonlyArray<string> => {
  try {
    return readdirSync(folder, { withFileTypes: true }).filter((d) => d.isDirectory()).map((d) => join(folder, d.name))
  } catch {
    return []
  }
}

/**
 * Reads what the journal holds for a base URL and session: conversations of runs that no longer run
 * (leftovers), those of runs still going, and how many other sessions left at that URL. Files of dead
 * runs with nothing left in them are removed on the way.
 */
export const readJournal = (
  baseUrl: URL,
  session: Redacted.Redacted<string>,
  folder: string = stateFolder()
): Effect.Effect<JournalContents> =>
  Effect.sync(() => {
    const none: JournalContents = { leftovers: [], openings: [], inUse: { count: 0, pids: [] }, otherSessions: 0 }
    const saltText = salt(folder, false)
    if (saltText === undefined) return none
    const where = folders(folder, saltText, baseUrl, session)
    const leftovers: Array<Leftover> = []
    const openings: Array<Opening> = []
    const pids = new Set<number>()
    let inUse = 0
    let otherSessions = 0
    for (const session of subfolders(where.url)) {
      for (const file of filesIn(session)) {
        const read = readFile(file)
        if (read === undefined) continue
        const alive = isAlive(read.pid)
        if (held(read) === 0 && !alive) {
          rmSync(file, { force: true })
          continue
        }
        if (session !== where.session) {
          if (!alive) otherSessions += held(read)
          continue
        }
        if (alive) {
          inUse += held(read)
          if (held(read) > 0) pids.add(read.pid)
          continue
        }
        for (const [intent, opening] of read.openings) {
          openings.push({ intent, ...opening, pid: read.pid, started: read.started, file })
        }
        for (const [conversationId, { caseId, deleteRoute }] of read.open) {
          leftovers.push({
            conversationId,
            caseId,
            deleteRoute: deleteRoute ?? read.deleteRoute,
            pid: read.pid,
            started: read.started,
            file
          })
        }
      }
    }
    return { leftovers, openings, inUse: { count: inUse, pids: [...pids] }, otherSessions }
  })

/** Appends a line to a journal file, written through to the disk when `sync`. */
const appendLine = (file: string, entry: object, sync: boolean): void => {
  const fd = openSync(file, "a", 0o600)
  try {
    writeSync(fd, `${JSON.stringify(entry)}\n`)
    if (sync) fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

/**
 * Appends lines to journal files of earlier runs, each through to the disk when `sync`; a file left
 * holding nothing is removed. Whether each file was written.
 */
const appendTo = (lines: ReadonlyArray<{ readonly file: string; readonly entry: object }>, sync: boolean) => {
  const written = new Set<string>()
  for (const [file, byFile] of Object.entries(Arr.groupBy(lines, (l) => l.file))) {
    const entries = byFile.map((l) => l.entry)
    try {
      // A run killed mid-write may have left its last line unfinished: the marks start on a line of their own.
      if (!readFileSync(file, "utf8").endsWith("\n")) appendFileSync(file, "\n")
      for (const [i, entry] of entries.entries()) appendLine(file, entry, sync && i === entries.length - 1)
      written.add(file)
      const read = readFile(file)
      if (read !== undefined && held(read) === 0) rmSync(file, { force: true })
    } catch {
      // The next cleanup finds them again, and a delete of a gone conversation is answered 404.
    }
  }
  return written
}

/** Marks leftovers of an earlier run gone (after `eval cleanup` deleted them); a file left empty is removed. */
export const markGone = (leftovers: ReadonlyArray<Leftover>): Effect.Effect<void> =>
  Effect.sync(() => {
    appendTo(leftovers.map((l) => ({ file: l.file, entry: { gone: l.conversationId } })), false)
  })

/**
 * Drops from the journal what `eval cleanup --forget` gives up on, once the user has seen to it in the
 * app: intents no search could resolve, and conversations no delete could remove. Written through to the
 * disk; a file left empty is removed. The journal files that were written (what stays in the others is
 * still held).
 */
export const forget = (
  openings: ReadonlyArray<Opening>,
  leftovers: ReadonlyArray<Leftover>
): Effect.Effect<ReadonlySet<string>> =>
  Effect.sync(() =>
    appendTo([
      ...openings.map((o) => ({ file: o.file, entry: { settled: o.intent } })),
      ...leftovers.map((l) => ({ file: l.file, entry: { gone: l.conversationId } }))
    ], true)
  )

/** A conversation a search found for an earlier run's intents: its id, and the case the app says it was for. */
export interface Found {
  readonly conversationId: string
  readonly caseId: string
}

/**
 * Resolves an earlier run's intents once a search has found the conversations they opened: each found
 * one is journalled as the run's (so that one whose delete fails stays for the next cleanup), written
 * through to the disk, and the intents marked settled. The leftovers to delete, or none when the
 * journal could not be written (the intents stay, for the next cleanup to search again).
 */
export const adoptFound = (
  openings: ReadonlyArray<Opening>,
  found: ReadonlyArray<Found>
): Effect.Effect<ReadonlyArray<Leftover>> =>
  Effect.sync(() => {
    const first = openings[0]
    if (first === undefined) return []
    const at = new Date().toISOString()
    const lines = [
      ...found.map((f) => ({
        file: first.file,
        entry: { open: f.conversationId, case: f.caseId, at, delete: first.deleteRoute }
      })),
      ...openings.map((o) => ({ file: o.file, entry: { settled: o.intent } }))
    ]
    const written = appendTo(lines, true)
    if (!openings.every((o) => written.has(o.file))) return []
    return found.map((f) => ({
      conversationId: f.conversationId,
      caseId: f.caseId,
      deleteRoute: first.deleteRoute,
      pid: first.pid,
      started: first.started,
      file: first.file
    }))
  })

/**
 * Conversations open in this process's journals right now, and intents unresolved, by base URL: what
 * a quit at once leaves.
 */
const openNow = new Map<string, { readonly open: Set<string>; readonly opening: Set<string> }>()

/**
 * The base URLs, and the counts of conversations this process has open now and of those it is opening
 * whose ids it does not know yet (for a quit at once).
 */
export const openConversations = (): ReadonlyArray<
  { readonly baseUrl: string; readonly count: number; readonly opening: number }
> =>
  [...openNow].filter(([, now]) => now.open.size + now.opening.size > 0).map(([baseUrl, now]) => ({
    baseUrl,
    count: now.open.size,
    opening: now.opening.size
  }))

/**
 * Opens this run's journal for a base URL and session, in the scope: the file is made on the first
 * conversation and removed when the scope closes with nothing left in it. Writes go through the thread
 * pool, so a case waiting for its line to reach the disk never holds up the others. When the state
 * folder cannot be written, `warn` is told once and the run goes on without a journal.
 */
export const openJournal = (options: {
  readonly baseUrl: URL
  /** What identifies the session (`sessionOf` its auth); only a salted hash of it is written. */
  readonly session: Redacted.Redacted<string>
  readonly deleteRoute: string
  readonly folder?: string
  readonly warn: (text: string) => void
}): Effect.Effect<Journal, never, Scope.Scope> =>
  Effect.gen(function*() {
    const folder = options.folder ?? stateFolder()
    const shownUrl = urlText(options.baseUrl)
    const open = new Set<string>()
    const opening = new Set<string>()
    openNow.set(shownUrl, { open, opening })
    const run = randomBytes(16).toString("hex")
    let broken = false
    const fail = (error: unknown) => {
      if (broken) return
      broken = true
      const code = (error as { code?: string }).code
      options.warn(
        `cannot keep the journal of open conversations in ${folder} (${
          code ?? "unknown error"
        }): a run stopped by kill -9 may leave conversations that ${programName} cleanup cannot find`
      )
    }
    // The file and its handle, made once, on the first conversation.
    let made: Promise<{ readonly name: string; readonly handle: FileHandle } | undefined> | undefined
    const file = () =>
      made ??= (async () => {
        const { session } = folders(folder, salt(folder, true)!, options.baseUrl, options.session)
        mkdirSync(session, { recursive: true, mode: 0o700 })
        const name = join(session, `${process.pid}-${randomBytes(4).toString("hex")}.jsonl`)
        const handle = await openFile(name, "wx", 0o600)
        await handle.write(
          `${
            JSON.stringify({
              journal: 1,
              baseUrl: shownUrl,
              pid: process.pid,
              started: new Date().toISOString(),
              delete: options.deleteRoute,
              run
            })
          }\n`
        )
        return { name, handle }
      })().catch((error: unknown) => {
        fail(error)
        return undefined
      })
    // Lines are written in batches: every line that comes while a batch is being written and flushed
    // goes in the next, with one write and at most one flush. A line's append ends once the batch
    // holding it is on the disk, so concurrent cases share a flush instead of queueing for one each.
    let queued: Array<{ readonly line: string; readonly sync: boolean; readonly written: () => void }> = []
    let writing = false
    const drain = async () => {
      writing = true
      while (queued.length > 0) {
        const batch = queued
        queued = []
        const target = await file()
        if (target !== undefined && !broken) {
          try {
            // One write of whole lines, on a file opened for appending: lines never interleave.
            await target.handle.write(batch.map((entry) => entry.line).join(""))
            if (batch.some((entry) => entry.sync)) await target.handle.datasync()
          } catch (error) {
            fail(error)
          }
        }
        for (const entry of batch) entry.written()
      }
      writing = false
    }
    const append = (entry: object, sync: boolean) =>
      Effect.promise(() =>
        new Promise<void>((written) => {
          if (broken) return written()
          queued.push({ line: `${JSON.stringify(entry)}\n`, sync, written })
          if (!writing) void drain()
        })
      )
    yield* Effect.addFinalizer(() =>
      Effect.promise(async () => {
        const empty = open.size + opening.size === 0
        if (empty) openNow.delete(shownUrl)
        const target = await made
        if (target === undefined) return
        await target.handle.close().catch(() => undefined)
        if (empty) rmSync(target.name, { force: true })
      })
    )
    return {
      run,
      opened: (caseId, conversationId, deleteRoute, intent) =>
        Effect.zipRight(
          Effect.sync(() => {
            open.add(conversationId)
            if (intent !== undefined) opening.delete(intent)
          }),
          append({
            open: conversationId,
            case: caseId,
            at: new Date().toISOString(),
            ...(deleteRoute === undefined || deleteRoute === options.deleteRoute ? {} : { delete: deleteRoute }),
            opening: intent
          }, true)
        ),
      gone: (conversationId) =>
        Effect.zipRight(Effect.sync(() => open.delete(conversationId)), append({ gone: conversationId }, false)),
      opening: ({ caseId, deleteRoute, protocol, searchRoute }) =>
        Effect.suspend(() => {
          const intent = randomBytes(8).toString("hex")
          opening.add(intent)
          return Effect.as(
            append({
              opening: intent,
              run,
              case: caseId,
              at: new Date().toISOString(),
              protocol,
              search: searchRoute,
              delete: deleteRoute
            }, true),
            intent
          )
        }),
      settled: (intent) =>
        Effect.zipRight(Effect.sync(() => opening.delete(intent)), append({ settled: intent }, false))
    }
  })
