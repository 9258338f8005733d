/**
 * The floor: which one a run is held to, why a run is held to none — in the words every command uses,
 * `run`, `merge`, `report` (from what a results file records) and the vitest helper — and the ratchet
 * that moves it.
 */
import type { FileSystem } from "@effect/platform"
import { Clock, Console, Effect, Option } from "effect"
import { noFloorYet, programName } from "../ProgramName.js"
import { defaultCasesFile } from "../ProjectFiles.js"
import type { GoldenSet } from "../Runner/GoldenSet.js"
import type { Baseline, FloorChange } from "../Schema/Baseline.js"
import { type BadInput, UsageError } from "../Schema/Errors.js"
import type { RunResult } from "../Schema/Result.js"
import { obtainedNoTurn } from "../Scorecard/Attempts.js"
import { belongsTo, casesEntry, casesOfBaseline, shownPath } from "../Scorecard/BaselineCases.js"
import { readBaseline, withBaselineLock, writeBaseline } from "../Scorecard/BaselineStore.js"
import { caseSetFingerprint } from "../Scorecard/CaseSet.js"
import { floorHistory, ratchet } from "../Scorecard/Ratchet.js"
import { repeatOf, showRate } from "../Scorecard/Scorecard.js"
import { plural } from "../Words.js"
import { flagWords } from "./Flags.js"

/** How a run stopped early under `--bail N`: after N failed cases, with `notRun` of its `of` cases never started. */
export interface Stop {
  readonly bail: number
  readonly notRun: number
  readonly of: number
}

/** A run of part of the golden set: the cases a `--filter` selects, or one shard of `--shard i/n`. */
export type Part =
  | { readonly _tag: "Filtered"; readonly cases: number; readonly of: number }
  /** `of`: the golden set's size, where it is known (not from a results file). */
  | {
    readonly _tag: "Shard"
    readonly index: number
    readonly count: number
    readonly cases: number
    readonly of?: number
  }

/** Why a run is held to no floor. */
export type NoFloor =
  | Part
  /** No floor is committed. */
  | { readonly _tag: "NoBaseline" }
  /** The floor was set by runs of another K (`--repeat`). */
  | { readonly _tag: "OtherRepeat"; readonly baselineFile: string; readonly set: number; readonly ran: number }
  /** The floor belongs to another golden set (`belongsTo`) than the one run (`casesFile`). */
  | { readonly _tag: "OtherSet"; readonly baselineFile: string; readonly belongsTo: string; readonly casesFile: string }
  /** No case obtained its turn. */
  | { readonly _tag: "NotMeasured" }
  /** The run stopped early (`--bail`); how, where it is known (not from a results file). */
  | { readonly _tag: "Stopped"; readonly stop?: Stop }
  /** A results file held to no floor for a reason it does not record. */
  | { readonly _tag: "Untold" }

/** `stopped after 2 failed cases (--bail 2): 5 of 22 cases not run`. */
export const stoppedWords = ({ bail, notRun, of }: Stop): string =>
  `stopped after ${plural(bail, "failed case")} (--bail ${bail}): ${notRun} of ${of} cases not run`

/** What the reports say of a run held to no floor. */
export const noFloorText = (why: NoFloor): string => {
  switch (why._tag) {
    case "Filtered":
      return `the floor is not applied to ${flagWords.filteredRun} (${why.cases} of ${plural(why.of, "case")})`
    case "Shard":
      return `shard ${why.index}/${why.count} (${
        why.of === undefined ? plural(why.cases, "case") : `${why.cases} of ${plural(why.of, "case")}`
      }): ${programName} merge applies the floor to the whole`
    case "NoBaseline":
      return noFloorYet
    case "OtherRepeat":
      return `the floor in ${why.baselineFile} was set with ${flagWords.repeated(why.set)}; it is not applied to a ` +
        `run with ${flagWords.repeated(why.ran)} (compare like with like)`
    case "OtherSet":
      return `${otherSetWords(why)}: it is not applied (${forOwnFloor(why)})`
    case "NotMeasured":
      return "no case obtained its turn: the run measured nothing"
    case "Stopped":
      return `${
        why.stop === undefined ? `the run ${flagWords.stoppedEarly}` : stoppedWords(why.stop)
      }; a partial run is held to no floor`
    case "Untold":
      return `held to no floor when it ran: ${flagWords.filteredRun}, or one from before the floor was committed`
  }
}

type OtherSet = Extract<NoFloor, { readonly _tag: "OtherSet" }>

/** The floor in one baseline, of one golden set, named beside the golden set it is not the floor of. */
export const otherSetWords = (why: OtherSet): string =>
  `the floor in ${why.baselineFile} belongs to ${why.belongsTo}, not to ${why.casesFile}`

const forOwnFloor = (why: OtherSet): string => `pass --baseline FILE for ${why.casesFile}'s own floor`

/**
 * Why a floor of another golden set can neither be checked nor moved, for `flag` (`--check`,
 * `--ratchet`; none for the ratchet command): both files named, and how to name the set's own floor.
 */
export const otherSetRefusal = (why: OtherSet, flag?: "--check" | "--ratchet"): string =>
  `${flag === undefined ? "" : `${flag}: `}${otherSetWords(why)}: ${
    flag === "--check" ? "it cannot be checked against it" : "its runs cannot move it"
  }; ${forOwnFloor(why)} (a ratchet into a FILE that does not exist yet sets one)`

/**
 * Why the floor in `baselineFile` does not apply to the golden set read from `casesFile`, or undefined
 * when it belongs to that set.
 */
export const otherSet = (
  baselineFile: string,
  baseline: Baseline,
  casesFile: string
): Effect.Effect<OtherSet | undefined, never, FileSystem.FileSystem> =>
  Effect.map(belongsTo(baselineFile, baseline, casesFile), (belongs) =>
    belongs ? undefined : {
      _tag: "OtherSet",
      baselineFile,
      // One that names no set is named by the default, as the run that set it found it.
      belongsTo: baseline.cases === undefined
        ? shownPath(defaultCasesFile)
        : shownPath(casesOfBaseline(baselineFile, baseline)),
      casesFile
    })

/**
 * The committed floor that a whole run of `repeat` attempts per case is held to, or why none is: no
 * baseline, or one set by runs of another K (compare like with like).
 */
export const committedFloor = (
  baseline: Option.Option<Baseline>,
  baselineFile: string,
  repeat: number
):
  | { readonly floor: number }
  | { readonly floor: null; readonly why: Extract<NoFloor, { readonly _tag: "NoBaseline" | "OtherRepeat" }> } =>
{
  if (Option.isNone(baseline)) return { floor: null, why: { _tag: "NoBaseline" } }
  const set = repeatOf(baseline.value)
  return set === repeat
    ? { floor: baseline.value.floor }
    : { floor: null, why: { _tag: "OtherRepeat", baselineFile, set, ran: repeat } }
}

/**
 * What a run is held to: the committed floor, or no floor and why; and the floor's moves so far, for
 * the reports, whether or not the floor applies.
 */
export type HeldTo =
  | { readonly floor: number; readonly history: ReadonlyArray<FloorChange> }
  | { readonly floor: null; readonly noFloor: NoFloor; readonly history: ReadonlyArray<FloorChange> }

/**
 * The floor a run of `repeat` attempts per case over the golden set read from `args.cases` is held to:
 * the committed one, unless it belongs to another golden set, the run covers a `part` of the set, or
 * the floor was set at another K. `--check` without a floor that applies, or `--ratchet` of a floor of
 * another set or set at another K, is a usage error, told before anything runs.
 */
export const floorToHold = (
  args: {
    readonly baseline: string
    readonly cases: string
    readonly check: boolean
    readonly ratchet: boolean
  },
  repeat: number,
  part: Part | undefined
): Effect.Effect<HeldTo, BadInput | UsageError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const baseline = yield* readBaseline(args.baseline)
    if (Option.isNone(baseline) && args.check) {
      return yield* new UsageError({ message: `${args.baseline}: ${noFloorYet}` })
    }
    const other = Option.isSome(baseline) ? yield* otherSet(args.baseline, baseline.value, args.cases) : undefined
    if (other !== undefined) {
      if (args.check || args.ratchet) {
        return yield* new UsageError({ message: otherSetRefusal(other, args.check ? "--check" : "--ratchet") })
      }
      // The moves of another set's floor are no history of this one.
      return { floor: null, noFloor: other, history: [] }
    }
    const history = Option.match(baseline, { onNone: () => [], onSome: floorHistory })
    if (part !== undefined) return { floor: null, noFloor: part, history }
    const committed = committedFloor(baseline, args.baseline, repeat)
    if (committed.floor !== null) return { floor: committed.floor, history }
    if ((args.check || args.ratchet) && committed.why._tag === "OtherRepeat") {
      return yield* new UsageError({
        message: `${args.check ? "--check" : "--ratchet"}: ${noFloorText(committed.why)}${
          args.ratchet && !args.check ? ", nor moved by it" : ""
        }`
      })
    }
    return { floor: null, noFloor: committed.why, history }
  })

/**
 * Why the run in a results file was held to no floor, in the words the run used where the file and the
 * baseline tell why: a run stopped early or a shard (the file records it), one that measured nothing
 * (no case has a turn), no floor committed, or a floor set at another K; else a `--filter`ed run or
 * one from before the floor was committed, which the file cannot tell apart.
 */
export const noFloorOf = (result: RunResult, baseline: Option.Option<Baseline>, baselineFile: string): string => {
  if (result.bailed === true) return noFloorText({ _tag: "Stopped" })
  if (result.shard !== undefined) {
    return noFloorText({ _tag: "Shard", index: result.shard.index, count: result.shard.count, cases: result.total })
  }
  if (obtainedNoTurn(result.cases)) return noFloorText({ _tag: "NotMeasured" })
  const committed = committedFloor(baseline, baselineFile, repeatOf(result))
  return noFloorText(committed.floor === null ? committed.why : { _tag: "Untold" })
}

const today = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms).toISOString().slice(0, 10))

/**
 * Applies the ratchet for a run over `set`, writing the baseline when the floor rises, with the golden
 * set it belongs to; a floor of another set is refused. `say` prints what happened (to stderr when
 * stdout carries a report a program reads).
 */
export const applyRatchet = (
  set: GoldenSet,
  baselineFile: string,
  result: RunResult,
  say: (text: string) => Effect.Effect<void> = Console.log
) => withBaselineLock(baselineFile, ratchetLocked(set, baselineFile, result, say))

/** The ratchet's read, decision and write, run while holding the baseline's lock. */
const ratchetLocked = (
  set: GoldenSet,
  baselineFile: string,
  result: RunResult,
  say: (text: string) => Effect.Effect<void>
) =>
  Effect.gen(function*() {
    const current = yield* readBaseline(baselineFile)
    const other = Option.isSome(current) ? yield* otherSet(baselineFile, current.value, set.casesFile) : undefined
    if (other !== undefined) return yield* new UsageError({ message: otherSetRefusal(other) })
    const decision = yield* ratchet(current, result, caseSetFingerprint(set.cases), yield* today, flagWords)
    const tally = `${result.passedCount}/${result.total} passed`
    if (decision._tag === "Kept") {
      const how = decision.achieved === decision.floor ? "it" : `only ${showRate(decision.achieved)}`
      return yield* say(`floor stays at ${showRate(decision.floor)}: this run achieved ${how} (${tally})`)
    }
    // A baseline written before it named its golden set names it from its first raise on.
    const cases = decision.baseline.cases ?? casesEntry(baselineFile, set.casesFile)
    yield* writeBaseline(baselineFile, { ...decision.baseline, cases })
    yield* say(
      decision.from === null
        ? `floor set to ${showRate(decision.to)} (${tally}); wrote ${baselineFile}`
        : `floor raised ${showRate(decision.from)} → ${showRate(decision.to)} (${tally}); wrote ${baselineFile}`
    )
  })
