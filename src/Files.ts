/**
 * Reading and writing the suite's files: text with errors a person can act on, and writes that are
 * atomic (a temporary file beside the target, fsync, rename), so a reader never sees half a file.
 * Only regular files are read (a link is followed first), each within `maxFileBytes`, so a link to
 * /dev/zero or a FIFO is refused at once instead of read forever.
 */
import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Chunk, Effect, Either, Option, type Schema, Stream } from "effect"
import { closeSync, constants, fstatSync, openSync, readSync, type Stats, statSync } from "node:fs"
import * as nodePath from "node:path"
import { decodeJson, type FastDecoder, type Strictness } from "./Schema/Decode.js"
import { BadInput } from "./Schema/Errors.js"

const MiB = 1024 * 1024

/** The most one whole-file input (a golden set, catalog, baseline, results file, recording, trace file) may hold. */
export const maxFileBytes = 64 * MiB

/** The longest one line of a JSON-lines input (an audit archive, standard input included) may be. */
export const maxLineBytes = 32 * MiB

/** What the error codes a person may meet mean, in a few words. */
const errnoWords: Readonly<Record<string, string>> = {
  ENOENT: "no such file",
  EACCES: "permission denied",
  EPERM: "permission denied",
  EEXIST: "already exists",
  EISDIR: "is a folder",
  ENOTDIR: "not a folder",
  ENOSPC: "no space left on device",
  EDQUOT: "disk quota exceeded",
  EFBIG: "file too large",
  EROFS: "read-only file system",
  EIO: "input/output error",
  ELOOP: "too many levels of symbolic links",
  ENAMETOOLONG: "name too long",
  EMFILE: "too many open files",
  ENFILE: "too many open files",
  EBUSY: "busy",
  ENXIO: "no such device or address"
}

/** An error from node:fs in a few words, without the path and system call Node appends. */
const describeErrno = (error: unknown): string => {
  const code = (error as { code?: unknown } | null)?.code
  if (typeof code === "string" && Object.hasOwn(errnoWords, code)) return errnoWords[code]!
  const message = error instanceof Error ? error.message : String(error)
  return message.replace(/^E[A-Z]+: /, "").replace(/, \w+ '.*'$/s, "")
}

/** A platform error in a few words: `no such file`, `permission denied`, `no space left on device`. */
export const describeFileError = (error: PlatformError): string => {
  if (error._tag === "SystemError") {
    const code = (error.cause as { code?: unknown } | undefined)?.code
    if (typeof code === "string" && Object.hasOwn(errnoWords, code)) return errnoWords[code]!
    switch (error.reason) {
      case "NotFound":
        return "no such file"
      case "PermissionDenied":
        return "permission denied"
      case "AlreadyExists":
        return "already exists"
      default:
        return error.description === undefined ? error.reason : describeErrno(new Error(error.description))
    }
  }
  return error.description ?? error.message
}

const isNotFound = (error: PlatformError): boolean => error._tag === "SystemError" && error.reason === "NotFound"

const cannotRead = (file: string, why: string) =>
  new BadInput({ file, problems: [{ path: "", message: `cannot read: ${why}` }] })

/** Why a file that is not a regular one is not read: `not a regular file (a FIFO)`. */
const notRegular = (kind: string) => `not a regular file (${kind})`

const platformKinds: Readonly<Record<FileSystem.File.Type, string>> = {
  File: "a file",
  Directory: "a folder",
  SymbolicLink: "a symbolic link",
  BlockDevice: "a block device",
  CharacterDevice: "a character device",
  FIFO: "a FIFO",
  Socket: "a socket",
  Unknown: "of an unknown kind"
}

const kindOfStats = (stats: Stats): string =>
  stats.isDirectory()
    ? "a folder"
    : stats.isCharacterDevice()
    ? "a character device"
    : stats.isBlockDevice()
    ? "a block device"
    : stats.isFIFO()
    ? "a FIFO"
    : stats.isSocket()
    ? "a socket"
    : "of an unknown kind"

/** Why a file of `bytes` bytes is not read: `80.0 MiB, over the 64 MiB limit for one file`. */
const overLimit = (bytes: number) =>
  `${(bytes / MiB).toFixed(1)} MiB, over the ${maxFileBytes / MiB} MiB limit for one file`

const grewOverLimit = `it grew while being read, over the ${maxFileBytes / MiB} MiB limit for one file`

const utf8 = new TextDecoder("utf-8", { ignoreBOM: true })

/**
 * Room for a file's bytes, at most `maxFileBytes` and one more: sized by the file's size when opened,
 * grown if the file grows meanwhile, never past the limit.
 */
class Bounded {
  private buffer: Uint8Array
  private filled = 0
  constructor(size: number) {
    this.buffer = new Uint8Array(Math.min(size, maxFileBytes) + 1)
  }
  /** Where the next read goes, or `undefined` once the limit is passed. */
  room(): Uint8Array | undefined {
    if (this.filled === this.buffer.length) {
      if (this.buffer.length > maxFileBytes) return undefined
      const larger = new Uint8Array(Math.min(this.buffer.length * 2, maxFileBytes + 1))
      larger.set(this.buffer)
      this.buffer = larger
    }
    return this.buffer.subarray(this.filled)
  }
  /** Counts `n` bytes read into the room. */
  add(n: number): void {
    this.filled += n
  }
  /** The text read, or `undefined` when it passed the limit. */
  text(): string | undefined {
    return this.filled > maxFileBytes ? undefined : utf8.decode(this.buffer.subarray(0, this.filled))
  }
}

/**
 * The one reader of whole files: `None` when the file does not exist; bad input naming the file when
 * it is not a regular file (after following links) or is over `maxFileBytes`. A FIFO is refused from
 * its status, before it is opened, so no reader waits on a writer.
 */
const readGuarded = (file: string): Effect.Effect<Option.Option<string>, BadInput, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const info = yield* fs.stat(file)
    if (info.type !== "File") return yield* cannotRead(file, notRegular(platformKinds[info.type]))
    if (Number(info.size) > maxFileBytes) return yield* cannotRead(file, overLimit(Number(info.size)))
    return yield* Effect.scoped(Effect.gen(function*() {
      const handle = yield* fs.open(file, { flag: "r" })
      // The file may have been replaced between the two looks: what is read is what is open.
      const opened = yield* handle.stat
      if (opened.type !== "File") return yield* cannotRead(file, notRegular(platformKinds[opened.type]))
      if (Number(opened.size) > maxFileBytes) return yield* cannotRead(file, overLimit(Number(opened.size)))
      const bytes = new Bounded(Number(opened.size))
      for (let room = bytes.room(); room !== undefined; room = bytes.room()) {
        const n = Number(yield* handle.read(room))
        if (n === 0) break
        bytes.add(n)
      }
      const text = bytes.text()
      if (text === undefined) return yield* cannotRead(file, grewOverLimit)
      return Option.some(text)
    }))
  }).pipe(
    Effect.catchIf(
      (error): error is PlatformError => !(error instanceof BadInput) && isNotFound(error),
      () => Effect.succeed(Option.none())
    ),
    Effect.mapError((error) => error instanceof BadInput ? error : cannotRead(file, describeFileError(error)))
  )

/** Reads a text file that may be absent; one that is not a regular file, or is too large, is bad input. */
export const readTextIfPresent = (
  file: string
): Effect.Effect<Option.Option<string>, BadInput, FileSystem.FileSystem> => readGuarded(file)

/** Reads a text file; a file that cannot be read, or is not there, is bad input naming it. */
export const readText = (file: string): Effect.Effect<string, BadInput, FileSystem.FileSystem> =>
  Effect.flatMap(
    readTextIfPresent(file),
    Option.match({
      onNone: () => Effect.fail(cannotRead(file, "no such file")),
      onSome: Effect.succeed
    })
  )

/** Why a synchronous read found nothing to use: the file is absent, or `why` it cannot be read. */
export type SyncReadFailure = { readonly _tag: "Absent" } | { readonly _tag: "Unreadable"; readonly why: string }

/**
 * `readText` for a hot path, synchronously: one open (non-blocking, so a FIFO answers at once), one
 * status of what was opened, and a read bounded by `maxFileBytes` — the calls a plain whole-file read
 * makes anyway.
 */
export const readTextSync = (file: string): Either.Either<string, SyncReadFailure> => {
  let fd: number
  try {
    fd = openSync(file, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    const code = (error as { code?: unknown }).code
    if (code === "ENOENT") return Either.left({ _tag: "Absent" })
    // A socket cannot be opened at all; its status says what it is.
    if (code === "ENXIO") {
      const kind = Either.getOrUndefined(Either.try(() => kindOfStats(statSync(file))))
      if (kind !== undefined) return Either.left({ _tag: "Unreadable", why: notRegular(kind) })
    }
    return Either.left({ _tag: "Unreadable", why: describeErrno(error) })
  }
  try {
    const stats = fstatSync(fd)
    if (!stats.isFile()) return Either.left({ _tag: "Unreadable", why: notRegular(kindOfStats(stats)) })
    if (stats.size > maxFileBytes) return Either.left({ _tag: "Unreadable", why: overLimit(stats.size) })
    const bytes = new Bounded(stats.size)
    for (let room = bytes.room(); room !== undefined; room = bytes.room()) {
      const n = readSync(fd, room, 0, room.length, null)
      if (n === 0) break
      bytes.add(n)
    }
    const text = bytes.text()
    return text === undefined ? Either.left({ _tag: "Unreadable", why: grewOverLimit }) : Either.right(text)
  } catch (error) {
    return Either.left({ _tag: "Unreadable", why: describeErrno(error) })
  } finally {
    closeSync(fd)
  }
}

/**
 * Refuses a file to be streamed (an audit archive) unless it is a regular file: `/dev/zero` would
 * never end and a FIFO would wait for a writer.
 */
export const requireRegularFile = (file: string): Effect.Effect<void, BadInput, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.stat(file)).pipe(
    Effect.mapError((error) => cannotRead(file, describeFileError(error))),
    Effect.flatMap((info) =>
      info.type === "File" ? Effect.void : Effect.fail(cannotRead(file, notRegular(platformKinds[info.type])))
    )
  )

/** A splitter of bytes into lines: `lineSplitter`. */
export interface LineSplitter<A> {
  /** What the lines `chunk` ends give, in order; or, when one of them is too long, what its number gives. */
  readonly push: (chunk: Uint8Array) => A
  /** The last line, when the bytes did not end with a line break. */
  readonly end: () => string | undefined
}

/**
 * Splits bytes, given a chunk at a time, into lines (ended by LF, CRLF or CR), decoded as UTF-8, none
 * longer than `maxBytes`: a longer one is refused (`tooLong`, given its number from 1) before it is held
 * whole. Synchronous, so a reader that is no Stream splits exactly as `boundedLines` does. It hands a
 * chunk's lines to `lines` rather than answering them: a version that answered an array made V8
 * pretenure on the audit's path, and auditing a million lines spent twice as long collecting garbage
 * (`npm run bench -- audit` shows it).
 */
export const lineSplitter = <A>(
  maxBytes: number,
  lines: (lines: Array<string>) => A,
  tooLong: (line: number) => A
): LineSplitter<A> => {
  const decoder = new TextDecoder("utf-8")
  let pending: Array<Uint8Array> = []
  let pendingBytes = 0
  let taken = 0
  // A CR that ended the last chunk: an LF starting the next one ends no line of its own.
  let afterCr = false
  const take = (last: Uint8Array): string => {
    let bytes = last
    if (pending.length > 0) {
      bytes = new Uint8Array(pendingBytes + last.length)
      let at = 0
      for (const piece of [...pending, last]) {
        bytes.set(piece, at)
        at += piece.length
      }
      pending = []
      pendingBytes = 0
    }
    taken++
    return decoder.decode(bytes)
  }
  const push = (chunk: Uint8Array): A => {
    const ended: Array<string> = []
    let start = afterCr && chunk[0] === 10 ? 1 : 0
    afterCr = false
    // The next CR is looked for again only once passed, so a chunk is scanned once for each byte.
    let cr = chunk.indexOf(13, start)
    for (;;) {
      if (cr !== -1 && cr < start) cr = chunk.indexOf(13, start)
      const lf = chunk.indexOf(10, start)
      const end = cr === -1 ? lf : lf === -1 ? cr : Math.min(cr, lf)
      if (end === -1) break
      if (pendingBytes + end - start > maxBytes) return tooLong(taken + 1)
      ended.push(take(chunk.subarray(start, end)))
      start = end + 1
      if (end === cr) {
        if (start === chunk.length) afterCr = true
        else if (chunk[start] === 10) start++
      }
    }
    if (start < chunk.length) {
      pendingBytes += chunk.length - start
      if (pendingBytes > maxBytes) return tooLong(taken + 1)
      pending.push(chunk.slice(start))
    }
    return lines(ended)
  }
  return { push, end: () => pendingBytes > 0 ? take(new Uint8Array(0)) : undefined }
}

/**
 * Splits bytes into lines (ended by LF, CRLF or CR), decoded as UTF-8, none longer than `maxBytes`: a
 * longer one ends the stream with `tooLong(n)` (n the line's number, from 1) before it is held whole.
 * For JSON lines and event streams alike.
 */
export const boundedLines =
  <F>(maxBytes: number, tooLong: (line: number) => F) =>
  <E, R>(bytes: Stream.Stream<Uint8Array, E, R>): Stream.Stream<string, E | F, R> =>
    Stream.suspend(() => {
      const splitter = lineSplitter<Effect.Effect<Chunk.Chunk<string>, F>>(
        maxBytes,
        (lines) => Effect.succeed(Chunk.unsafeFromArray(lines)),
        (line) => Effect.fail(tooLong(line))
      )
      return bytes.pipe(
        Stream.mapConcatChunkEffect(splitter.push),
        Stream.concat(Stream.suspend(() => {
          const last = splitter.end()
          return last === undefined ? Stream.empty : Stream.make(last)
        }))
      )
    })

/** The lines of a JSON-lines input named `name`, each at most `maxLineBytes`: a longer one is bad input naming its line. */
export const linesOf = (name: string) =>
  boundedLines(maxLineBytes, (line) =>
    new BadInput({
      file: `${name}:${line}`,
      problems: [{
        path: "",
        message: `cannot read: longer than the ${maxLineBytes / MiB} MiB limit for one JSON line`
      }]
    }))

/** Reads, parses and decodes a JSON file; every problem names the file and its JSON path. */
export const readJson = <A, I>(
  schema: Schema.Schema<A, I>,
  file: string,
  strictness: Strictness = "strict",
  fast?: FastDecoder<A>
): Effect.Effect<A, BadInput, FileSystem.FileSystem> =>
  Effect.flatMap(readText(file), (text) =>
    Either.match(decodeJson(schema, file, text, strictness, fast), {
      onLeft: Effect.fail,
      onRight: Effect.succeed
    }))

/**
 * Replaces `file` with `text` atomically: the text goes to a temporary file in the same folder, is
 * flushed to disk, then renamed over the target. An interrupted write leaves the old file whole.
 */
export const writeAtomically = (file: string, text: string): Effect.Effect<void, BadInput, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const temporary = `${file}.${process.pid}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 8)}.tmp`
    const write = Effect.scoped(
      Effect.gen(function*() {
        const handle = yield* fs.open(temporary, { flag: "wx", mode: 0o644 })
        yield* handle.writeAll(new TextEncoder().encode(text))
        yield* handle.sync
      })
    ).pipe(Effect.zipRight(fs.rename(temporary, file)))
    yield* write.pipe(
      Effect.onExit((exit) => exit._tag === "Success" ? Effect.void : fs.remove(temporary).pipe(Effect.ignore)),
      Effect.mapError((error) =>
        new BadInput({ file, problems: [{ path: "", message: `cannot write: ${describeFileError(error)}` }] })
      )
    )
  }).pipe(Effect.uninterruptible)

/**
 * A file as a report that is shared names it: relative to the working folder (the project) when it is
 * inside it, else by its name alone, so a page never shows a path of the machine that made it.
 */
export const namedInProject = (file: string, cwd: string = process.cwd()): string =>
  inProject(file, cwd) ?? nodePath.basename(nodePath.resolve(cwd, file))

/** A file's path relative to the working folder (the project) when it is inside it; else undefined. */
export const inProject = (file: string, cwd: string = process.cwd()): string | undefined => {
  const inside = nodePath.relative(cwd, nodePath.resolve(cwd, file))
  return inside === "" || inside.startsWith("..") || nodePath.isAbsolute(inside) ? undefined : inside
}
