/**
 * The baseline file: read (absent is not a floor of 0, and corrupt is always an error), written
 * atomically, and changed by one ratchet at a time.
 */
import { FileSystem } from "@effect/platform"
import { Clock, Duration, Effect, Either, Option } from "effect"
import { describeFileError, readTextIfPresent, writeAtomically } from "../Files.js"
import { isAlive } from "../Processes.js"
import { Baseline } from "../Schema/Baseline.js"
import { decodeJson } from "../Schema/Decode.js"
import { BadInput } from "../Schema/Errors.js"

/** Reads the baseline; `None` when the file does not exist, bad input when it cannot be decoded. */
export const readBaseline = (
  file: string
): Effect.Effect<Option.Option<Baseline>, BadInput, FileSystem.FileSystem> =>
  Effect.flatMap(readTextIfPresent(file), (text) =>
    Option.match(text, {
      onNone: () => Effect.succeed(Option.none()),
      onSome: (content) =>
        Either.match(decodeJson(Baseline, file, content), {
          onLeft: Effect.fail,
          onRight: (baseline) => Effect.succeed(Option.some(baseline))
        })
    }))

/**
 * The baseline as it is committed, two-space JSON: `_comment` first, then the golden set it belongs
 * to, the floor and its K, then `history` in the order it holds (oldest first), one move a line so
 * that a raise adds one line.
 */
export const encodeBaseline = (baseline: Baseline): string => {
  const head = JSON.stringify(
    {
      ...(baseline._comment ? { _comment: baseline._comment } : {}),
      cases: baseline.cases,
      floor: baseline.floor,
      ...(baseline.repeat === undefined || baseline.repeat === 1 ? {} : { repeat: baseline.repeat })
    },
    null,
    2
  )
  if (baseline.history === undefined) return `${head}\n`
  const moves = baseline.history.map((c) =>
    `    {"date": ${JSON.stringify(c.date)}, "from": ${JSON.stringify(c.from)}, "to": ${
      JSON.stringify(c.to)
    }, "passed": ${c.passed}, "total": ${c.total}}`
  )
  const history = moves.length === 0 ? "[]" : `[\n${moves.join(",\n")}\n  ]`
  return `${head.slice(0, -2)},\n  "history": ${history}\n}\n`
}

/**
 * Writes the baseline atomically. A baseline that is a symbolic link (shared between projects) is
 * written through to the file it points to, beside that file, so the link stays a link.
 */
export const writeBaseline = (file: string, baseline: Baseline): Effect.Effect<void, BadInput, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.realPath(file)).pipe(
    // A baseline not written yet has no target to resolve: it is made where it is named.
    Effect.orElseSucceed(() => file),
    Effect.flatMap((target) => writeAtomically(target, encodeBaseline(baseline)))
  )

/** How long a ratchet waits for another one holding the baseline's lock. */
const lockWait = Duration.seconds(30)

/**
 * Runs `effect` holding the baseline's lock (`FILE.lock`, created exclusively, holding the owner's
 * pid), so two ratchets racing on one baseline take turns: each reads the floor the other wrote. A
 * lock left by a process that no longer runs is taken over.
 */
export const withBaselineLock = <A, E, R>(
  file: string,
  effect: Effect.Effect<A, E, R>
): Effect.Effect<A, E | BadInput, R | FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const fs = yield* FileSystem.FileSystem
    const lock = `${file}.lock`
    const deadline = (yield* Clock.currentTimeMillis) + Duration.toMillis(lockWait)
    const cannot = (message: string) => new BadInput({ file, problems: [{ path: "", message }] })
    const acquire: Effect.Effect<void, BadInput> = Effect.gen(function*() {
      for (let attempt = 0;; attempt++) {
        const taken = yield* fs.writeFileString(lock, `${process.pid}\n`, { flag: "wx" }).pipe(
          Effect.as(true),
          Effect.catchIf(
            (error) => error._tag === "SystemError" && error.reason === "AlreadyExists",
            () => Effect.succeed(false)
          ),
          Effect.mapError((error) => cannot(`cannot lock: ${describeFileError(error)}`))
        )
        if (taken) return
        const readLock = readTextIfPresent(lock).pipe(
          Effect.map(Option.getOrElse(() => "")),
          Effect.orElseSucceed(() => ""),
          Effect.provideService(FileSystem.FileSystem, fs)
        )
        const held = yield* readLock
        const owner = Number(held.trim())
        if (Number.isInteger(owner) && owner > 0 && !isAlive(owner)) {
          // The owner may have released the lock and ended since it was read, and another ratchet taken
          // it: only a lock that still names the ended owner is removed.
          if ((yield* readLock) === held) yield* fs.remove(lock).pipe(Effect.ignore)
          continue
        }
        if ((yield* Clock.currentTimeMillis) > deadline) {
          return yield* cannot(
            `locked by another ratchet (process ${owner || "unknown"}); if none runs, delete ${lock}`
          )
        }
        yield* Effect.sleep(Duration.millis(20 + (attempt % 5) * 10))
      }
    })
    return yield* Effect.acquireUseRelease(acquire, () => effect, () => fs.remove(lock).pipe(Effect.ignore))
  })
