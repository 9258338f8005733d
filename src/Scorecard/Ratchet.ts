/**
 * The ratchet: a floor raised to what a complete run of the same case set achieves, never lowered,
 * each raise logged twice: a line for people in `_comment`, an entry for programs in `history`. Pure:
 * the caller reads and writes the baseline.
 */
import { Either, Option } from "effect"
import type { Baseline, FloorChange } from "../Schema/Baseline.js"
import { Refused } from "../Schema/Errors.js"
import type { RunResult } from "../Schema/Result.js"
import { plural } from "../Words.js"
import { shortFingerprint } from "./CaseSet.js"
import { floorFor, repeatOf } from "./Scorecard.js"

/** What a ratchet decided: a new baseline to write, or the floor staying where it is. */
export type RatchetDecision =
  | { readonly _tag: "Raised"; readonly from: number | null; readonly to: number; readonly baseline: Baseline }
  | { readonly _tag: "Kept"; readonly floor: number; readonly achieved: number }

/** The header a new baseline starts with. */
export const baselineHeader =
  "The pass-rate floor that `turn-eval run --check` holds. Raised by `turn-eval ratchet` to what a full run achieves; never lowered."

/**
 * The `_comment` line that logs a move of a floor set by runs of `repeat` attempts per case:
 * `2026-11-30: floor 0.7727 → 0.8181 (18/22 passed)`, or for a first floor
 * `2026-11-30: floor set to 0.8181 (18/22 passed)` (with `all K attempts, --repeat K` for K > 1).
 */
export const commentLine = (change: FloorChange, repeat: number): string => {
  const tally = `${change.passed}/${change.total} passed${repeat > 1 ? ` all ${repeat} attempts` : ""}`
  return change.from === null
    ? `${change.date}: floor set to ${change.to} (${tally}${repeat > 1 ? `, --repeat ${repeat}` : ""})`
    : `${change.date}: floor ${change.from} → ${change.to} (${tally})`
}

// A line that logs a move of the floor: any other line is the baseline's prose.
const logged = /^\d{4}-\d{2}-\d{2}: floor /
const logLine = /^(\d{4}-\d{2}-\d{2}): floor (?:set to (\S+)|(\S+) → (\S+)) \((\d+)\/(\d+) passed[^)]*\)$/

// A rate exactly as `commentLine` writes one, or undefined.
const rateIn = (text: string): number | undefined => {
  const n = Number(text)
  return String(n) === text && n >= 0 && n <= 1 ? n : undefined
}

/**
 * The move a `_comment` line logs, when the line is exactly what `commentLine` writes for it and for
 * `repeat`, and the floor it names is the one its tally sets; else undefined.
 */
const parseCommentLine = (line: string, repeat: number): FloorChange | undefined => {
  const match = logLine.exec(line)
  if (match === null) return undefined
  const [, date, setTo, from, raisedTo, passed, total] = match
  const to = rateIn(setTo ?? raisedTo!)
  const before = setTo === undefined ? rateIn(from!) : null
  if (to === undefined || before === undefined) return undefined
  const change: FloorChange = { date: date!, from: before, to, passed: Number(passed), total: Number(total) }
  const exact = commentLine(change, repeat) === line && change.passed <= change.total &&
    change.to === floorFor(change.passed, change.total) && (change.from === null || change.from < change.to)
  return exact ? change : undefined
}

/**
 * The floor's moves, oldest first: the baseline's `history`. A baseline written before `history` was
 * kept has its moves read back from the `_comment` log, but only when that is exact: every log line is
 * one the ratchet writes, each move starts where the one before it ended, and the last ends at the
 * floor. Otherwise it has none, and its history starts with its next raise.
 */
export const floorHistory = (baseline: Baseline): ReadonlyArray<FloorChange> => {
  if (baseline.history !== undefined) return baseline.history
  const changes: Array<FloorChange> = []
  for (const line of baseline._comment ?? []) {
    if (!logged.test(line)) continue
    const change = parseCommentLine(line, repeatOf(baseline))
    if (change === undefined) return []
    const before = changes.at(-1)
    if (before === undefined ? change.from !== null : change.from !== before.to) return []
    changes.push(change)
  }
  return changes.at(-1)?.to === baseline.floor ? changes : []
}

/**
 * How a refused ratchet names the ways a run was made: plain words by default, and the CLI's flags
 * (`--bail`, `--filter`, `--repeat`) when the CLI passes its own, so each reader sees what they can type.
 */
export interface RunWords {
  /** A run that stopped starting cases after failures: `stopped early`. */
  readonly stoppedEarly: string
  /** A run over part of the golden set: `a filtered run`. */
  readonly filteredRun: string
  /** Runs that asked each case `k` times: `3 attempts per case`. */
  readonly repeated: (k: number) => string
}

const plainWords: RunWords = {
  stoppedEarly: "stopped early",
  filteredRun: "a filtered run",
  repeated: (k) => `${plural(k, "attempt")} per case`
}

/**
 * Decides a ratchet. `caseSet` is the fingerprint of the golden set the floor belongs to; a run over
 * another set is refused. `date` is the day written into the log (YYYY-MM-DD). A refusal names no CLI
 * flag unless `words` do (the CLI's words name `--bail`, `--filter` and `--repeat`).
 */
export const ratchet = (
  baseline: Option.Option<Baseline>,
  result: RunResult,
  caseSet: string,
  date: string,
  words: RunWords = plainWords
): Either.Either<RatchetDecision, Refused> => {
  if (result.bailed === true) {
    return Either.left(
      new Refused({
        reason: "ratchet",
        message: `the results are of a run that ${words.stoppedEarly}: a partial run cannot move the floor; ` +
          "ratchet from a full run"
      })
    )
  }
  if (result.caseSet !== caseSet) {
    return Either.left(
      new Refused({
        reason: "ratchet",
        message:
          `the results cover another case set (${shortFingerprint(result.caseSet)}) than the golden set (${
            shortFingerprint(caseSet)
          }): ${words.filteredRun} or an edited golden set cannot move the floor; ` +
          "run the whole golden set and ratchet from that"
      })
    )
  }
  if (result.shard !== undefined) {
    return Either.left(
      new Refused({
        reason: "ratchet",
        message:
          `the results cover shard ${result.shard.index}/${result.shard.count} only: merge the shards (the merge ` +
          `command) and ratchet from the merged results`
      })
    )
  }
  const k = repeatOf(result)
  if (Option.isSome(baseline) && repeatOf(baseline.value) !== k) {
    return Either.left(
      new Refused({
        reason: "ratchet",
        message: `the floor was set by runs with ${words.repeated(repeatOf(baseline.value))}, ` +
          `and these results repeated each case ${plural(k, "time")}: ` +
          "a floor moves only with runs of the K it was set at"
      })
    )
  }
  const achieved = floorFor(result.passedCount, result.total)
  const change = (from: number | null): FloorChange => ({
    date,
    from,
    to: achieved,
    passed: result.passedCount,
    total: result.total
  })
  return Option.match(baseline, {
    onNone: () => {
      const first = change(null)
      return Either.right({
        _tag: "Raised",
        from: null,
        to: achieved,
        baseline: {
          floor: achieved,
          ...(k > 1 ? { repeat: k } : {}),
          _comment: [baselineHeader, commentLine(first, k)],
          history: [first]
        }
      })
    },
    onSome: (current) => {
      if (achieved <= current.floor) return Either.right({ _tag: "Kept", floor: current.floor, achieved })
      const raise = change(current.floor)
      return Either.right({
        _tag: "Raised",
        from: current.floor,
        to: achieved,
        baseline: {
          ...current,
          floor: achieved,
          _comment: [...(current._comment ?? []), commentLine(raise, k)],
          history: [...floorHistory(current), raise]
        }
      })
    }
  })
}
