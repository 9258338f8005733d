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
 */
import { Effect, Either, Redacted, type Scope } from "effect"
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

/** What the journal holds for one base URL and session. */
export interface JournalContents {
  /** Conversations of runs that no longer run. */
  readonly leftovers: ReadonlyArray<Leftover>
  /** How many conversations runs still running hold, and their processes. */
  readonly inUse: { readonly count: number; readonly pids: ReadonlyArray<number> }
  /** Conversations other sessions left at the same base URL (they need that session to be deleted). */
  readonly otherSessions: number
}

/** A run's journal: what it opened and has not yet deleted. */
export interface Journal {
  /**
   * Records a conversation before the run relies on its id, with the route that deletes it when that is
   * not the run's default (surfaces of other protocols delete elsewhere); written through to the disk.
   */
  readonly opened: (caseId: string, conversationId: string, deleteRoute?: string) => Effect.Effect<void>
  /** Marks a conversation deleted (or found gone). */
  readonly gone: (conversationId: string) => Effect.Effect<void>
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
    } else if (typeof e["gone"] === "string") {
      open.delete(e["gone"])
    }
  }
  return header === undefined ? undefined : { ...header, open }
}

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
    const none: JournalContents = { leftovers: [], inUse: { count: 0, pids: [] }, otherSessions: 0 }
    const saltText = salt(folder, false)
    if (saltText === undefined) return none
    const where = folders(folder, saltText, baseUrl, session)
    const leftovers: Array<Leftover> = []
    const pids = new Set<number>()
    let inUse = 0
    let otherSessions = 0
    for (const session of subfolders(where.url)) {
      for (const file of filesIn(session)) {
        const read = readFile(file)
        if (read === undefined) continue
        const alive = isAlive(read.pid)
        if (read.open.size === 0 && !alive) {
          rmSync(file, { force: true })
          continue
        }
        if (session !== where.session) {
          if (!alive) otherSessions += read.open.size
          continue
        }
        if (alive) {
          inUse += read.open.size
          if (read.open.size > 0) pids.add(read.pid)
          continue
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
    return { leftovers, inUse: { count: inUse, pids: [...pids] }, otherSessions }
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

/** Marks leftovers of an earlier run gone (after `eval cleanup` deleted them); a file left empty is removed. */
export const markGone = (leftovers: ReadonlyArray<Leftover>): Effect.Effect<void> =>
  Effect.sync(() => {
    const byFile = new Map<string, Array<string>>()
    for (const l of leftovers) byFile.set(l.file, [...(byFile.get(l.file) ?? []), l.conversationId])
    for (const [file, ids] of byFile) {
      try {
        // A run killed mid-write may have left its last line unfinished: the marks start on a line of their own.
        if (!readFileSync(file, "utf8").endsWith("\n")) appendFileSync(file, "\n")
        for (const id of ids) appendLine(file, { gone: id }, false)
        if (readFile(file)?.open.size === 0) rmSync(file, { force: true })
      } catch {
        // The next cleanup finds them again, and a delete of a gone conversation is answered 404.
      }
    }
  })

/** Conversations open in this process's journals right now, by base URL: what a quit at once leaves. */
const openNow = new Map<string, Set<string>>()

/** The base URLs and counts of conversations this process has open now (for a quit at once). */
export const openConversations = (): ReadonlyArray<{ readonly baseUrl: string; readonly count: number }> =>
  [...openNow].filter(([, ids]) => ids.size > 0).map(([baseUrl, ids]) => ({ baseUrl, count: ids.size }))

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
    openNow.set(shownUrl, open)
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
              delete: options.deleteRoute
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
        if (open.size === 0) openNow.delete(shownUrl)
        const target = await made
        if (target === undefined) return
        await target.handle.close().catch(() => undefined)
        if (open.size === 0) rmSync(target.name, { force: true })
      })
    )
    return {
      opened: (caseId, conversationId, deleteRoute) =>
        Effect.zipRight(
          Effect.sync(() => open.add(conversationId)),
          append({
            open: conversationId,
            case: caseId,
            at: new Date().toISOString(),
            ...(deleteRoute === undefined || deleteRoute === options.deleteRoute ? {} : { delete: deleteRoute })
          }, true)
        ),
      gone: (conversationId) =>
        Effect.zipRight(Effect.sync(() => open.delete(conversationId)), append({ gone: conversationId }, false))
    }
  })
