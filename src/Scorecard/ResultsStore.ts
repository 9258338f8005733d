/** Reading a results file (`eval run --json`): decoded strictly, and its counts checked against its cases. */
import type { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import { readJson } from "../Files.js"
import { BadInput } from "../Schema/Errors.js"
import { RunResult } from "../Schema/Result.js"
import { resultInconsistencies } from "./Scorecard.js"

/** A results file whose counts, rate and verdicts follow from its cases, or bad input naming what does not. */
export const readResults = (file: string): Effect.Effect<RunResult, BadInput, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const result = yield* readJson(RunResult, file)
    const inconsistent = resultInconsistencies(result)
    if (inconsistent.length > 0) return yield* new BadInput({ file, problems: inconsistent })
    return result
  })
