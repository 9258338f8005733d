/** `eval ratchet`, and the ratchet step `run --ratchet` shares with it. */
import type { FileSystem } from "@effect/platform"
import { Clock, Console, Effect } from "effect"
import { loadGoldenSet, type GoldenSet } from "../Runner/GoldenSet.js"
import type { RunResult } from "../Schema/Result.js"
import { readBaseline, withBaselineLock, writeBaseline } from "../Scorecard/BaselineStore.js"
import { caseSetFingerprint } from "../Scorecard/CaseSet.js"
import { ratchet } from "../Scorecard/Ratchet.js"
import { readResults } from "../Scorecard/ResultsStore.js"
import { showRate } from "../Scorecard/Scorecard.js"
import type { CommandError } from "../Schema/Errors.js"
import { flagWords } from "./Hints.js"

const today = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString().slice(0, 10))

/**
 * Applies the ratchet for a run over `set`, writing the baseline when the floor rises; `say` prints
 * what happened (to stderr when stdout carries a report a program reads).
 */
export const applyRatchet = (
  set: GoldenSet,
  baselineFile: string,
  result: RunResult,
  say: (text: string) => Effect.Effect<void> = Console.log
) => withBaselineLock(baselineFile, ratchetLocked(set, baselineFile, result, say))

/** The ratchet's read, decision and write, run while holding the baseline's lock. */
const ratchetLocked = (set: GoldenSet, baselineFile: string, result: RunResult, say: (text: string) => Effect.Effect<void>) =>
  Effect.gen(function*() {
    const current = yield* readBaseline(baselineFile)
    const decision = yield* ratchet(current, result, caseSetFingerprint(set.cases), yield* today, flagWords)
    const tally = `${result.passedCount}/${result.total} passed`
    if (decision._tag === "Kept") {
      const how = decision.achieved === decision.floor ? "it" : `only ${showRate(decision.achieved)}`
      return yield* say(`floor stays at ${showRate(decision.floor)}: this run achieved ${how} (${tally})`)
    }
    yield* writeBaseline(baselineFile, decision.baseline)
    yield* say(
      decision.from === null
        ? `floor set to ${showRate(decision.to)} (${tally}); wrote ${baselineFile}`
        : `floor raised ${showRate(decision.from)} → ${showRate(decision.to)} (${tally}); wrote ${baselineFile}`
    )
  })

/** The arguments of `eval ratchet`. */
export interface RatchetArgs {
  readonly from: string
  readonly cases: string
  readonly surfaces: string
  readonly baseline: string
}

/** `eval ratchet`: raise the floor to what a full run achieved, from its results file. */
export const ratchetHandler = (args: RatchetArgs): Effect.Effect<void, CommandError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const set = yield* loadGoldenSet(args.cases, args.surfaces)
    yield* applyRatchet(set, args.baseline, yield* readResults(args.from))
  })
