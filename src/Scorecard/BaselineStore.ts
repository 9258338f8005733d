/**
 * The baseline file: read (absent is not a floor of 0, and corrupt is always an error) and written
 * atomically.
 */
import type { FileSystem } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { readTextIfPresent, writeAtomically } from "../Files.js"
import { Baseline } from "../Schema/Baseline.js"
import { decodeJson } from "../Schema/Decode.js"
import type { BadInput } from "../Schema/Errors.js"

/** The default location of the baseline. */
export const defaultBaselineFile = "baseline.json"

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

/** The baseline as it is committed: `_comment` first, then the floor, two-space JSON. */
export const encodeBaseline = (baseline: Baseline): string =>
  `${JSON.stringify({ ...(baseline._comment ? { _comment: baseline._comment } : {}), floor: baseline.floor }, null, 2)}\n`

/** Writes the baseline atomically. */
export const writeBaseline = (file: string, baseline: Baseline): Effect.Effect<void, BadInput, FileSystem.FileSystem> =>
  writeAtomically(file, encodeBaseline(baseline))
