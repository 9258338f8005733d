/** `eval ratchet`: raise the floor to what a full run achieved, from its results file. */
import type { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import { applyRatchet } from "../Application/Floor.js"
import { loadGoldenSet } from "../Runner/GoldenSet.js"
import type { CommandError } from "../Schema/Errors.js"
import { readResults } from "../Scorecard/ResultsStore.js"
import type { RatchetArgs } from "./Options.js"

/** `eval ratchet`. */
export const ratchetHandler = (args: RatchetArgs): Effect.Effect<void, CommandError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const set = yield* loadGoldenSet(args.cases, args.surfaces)
    yield* applyRatchet(set, args.baseline, yield* readResults(args.from))
  })
