/**
 * Reading and writing the suite's files: text with errors a person can act on, and writes that are
 * atomic (a temporary file beside the target, fsync, rename), so a reader never sees half a file.
 */
import { FileSystem } from "@effect/platform"
import type { PlatformError } from "@effect/platform/Error"
import { Effect, Either, Option, type Schema } from "effect"
import { decodeJson, type FastDecoder, type Strictness } from "./Schema/Decode.js"
import { BadInput } from "./Schema/Errors.js"

/** A platform error in a few words: `no such file`, `permission denied`. */
export const describeFileError = (error: PlatformError): string => {
  if (error._tag === "SystemError") {
    switch (error.reason) {
      case "NotFound":
        return "no such file"
      case "PermissionDenied":
        return "permission denied"
      case "AlreadyExists":
        return "already exists"
      default:
        return error.description?.replace(/^E[A-Z]+: /, "") ?? error.reason
    }
  }
  return error.description ?? error.message
}

const isNotFound = (error: PlatformError): boolean => error._tag === "SystemError" && error.reason === "NotFound"

const cannotRead = (file: string, why: string) => new BadInput({ file, problems: [{ path: "", message: `cannot read: ${why}` }] })

/** Reads a text file that may be absent. */
export const readTextIfPresent = (
  file: string
): Effect.Effect<Option.Option<string>, BadInput, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.readFileString(file)).pipe(
    Effect.map(Option.some),
    Effect.catchIf(isNotFound, () => Effect.succeed(Option.none())),
    Effect.mapError((error) => cannotRead(file, describeFileError(error)))
  )

/** Reads a text file; a file that cannot be read, or is not there, is bad input naming it. */
export const readText = (file: string): Effect.Effect<string, BadInput, FileSystem.FileSystem> =>
  Effect.flatMap(readTextIfPresent(file), Option.match({
    onNone: () => Effect.fail(cannotRead(file, "no such file")),
    onSome: Effect.succeed
  }))

/** Reads, parses and decodes a JSON file; every problem names the file and its JSON path. */
export const readJson = <A, I>(
  schema: Schema.Schema<A, I>,
  file: string,
  strictness: Strictness = "strict",
  fast?: FastDecoder<A>
): Effect.Effect<A, BadInput, FileSystem.FileSystem> =>
  Effect.flatMap(readText(file), (text) => Either.match(decodeJson(schema, file, text, strictness, fast), {
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
