/**
 * What changed between two runs: the cases that regressed (passed, now fail) with their new facts, the
 * fixes, the cases added and removed, and the pass-rate change. Pure.
 */
import { Either } from "effect"
import { UsageError } from "../Schema/Errors.js"
import type { CaseResult, RunResult } from "../Schema/Result.js"
import { shortFingerprint } from "./CaseSet.js"
import { repeatOf } from "./Scorecard.js"

/** A case present in both runs whose verdict changed. */
export interface ChangedCase {
  readonly id: string
  readonly surface: string
  /** The case as the newer run graded it: its failing facts for a regression. */
  readonly now: CaseResult
  /** The case as the older run graded it: its failing facts for a fix. */
  readonly then: CaseResult
}

/** A case present in only one of the runs, and its verdict there. */
export interface OnlyIn {
  readonly id: string
  readonly surface: string
  readonly passed: boolean
}

/** The difference between an older and a newer run. */
export interface RunDiff {
  readonly regressions: ReadonlyArray<ChangedCase>
  readonly fixes: ReadonlyArray<ChangedCase>
  readonly added: ReadonlyArray<OnlyIn>
  readonly removed: ReadonlyArray<OnlyIn>
  readonly passRate: { readonly from: number; readonly to: number }
  readonly passed: { readonly from: number; readonly to: number }
  readonly total: { readonly from: number; readonly to: number }
  /** Whether both runs covered the same case set (same fingerprint). */
  readonly sameSet: boolean
  /** The K of `--repeat` each run used. */
  readonly repeat: { readonly from: number; readonly to: number }
}

/**
 * Refuses to compare runs over different case sets (`older` and `newer` fingerprints) unless
 * `allowDifferentSets`: a pass-rate change between them says nothing about the assistant. The refusal
 * names no CLI flag; the CLI adds `--allow-different-sets` to it.
 */
export const refuseDifferentSets = (
  older: string,
  newer: string,
  options: { readonly allowDifferentSets?: boolean; readonly names?: readonly [string, string] } = {}
): Either.Either<void, UsageError> => {
  if (older === newer || options.allowDifferentSets === true) return Either.void
  const [a, b] = options.names ?? ["the older run", "the newer run"]
  return Either.left(
    new UsageError({
      message: `${a} and ${b} ran over different case sets (${shortFingerprint(older)} and ${
        shortFingerprint(newer)
      }): a golden set was edited, filtered or sharded between them`
    })
  )
}

/**
 * Compares two runs case by case (by id), refusing different case sets as `refuseDifferentSets` does
 * (with a message that names no CLI flag: the CLI adds `--allow-different-sets`).
 */
export const diffRuns = (
  older: RunResult,
  newer: RunResult,
  options: { readonly allowDifferentSets?: boolean; readonly names?: readonly [string, string] } = {}
): Either.Either<RunDiff, UsageError> => {
  const refused = refuseDifferentSets(older.caseSet, newer.caseSet, options)
  if (Either.isLeft(refused)) return Either.left(refused.left)
  const before = new Map(older.cases.map((c) => [c.id, c]))
  const after = new Set(newer.cases.map((c) => c.id))
  const regressions: Array<ChangedCase> = []
  const fixes: Array<ChangedCase> = []
  const added: Array<OnlyIn> = []
  for (const now of newer.cases) {
    const then = before.get(now.id)
    if (then === undefined) added.push({ id: now.id, surface: now.surface, passed: now.passed })
    else if (then.passed && !now.passed) regressions.push({ id: now.id, surface: now.surface, now, then })
    else if (!then.passed && now.passed) fixes.push({ id: now.id, surface: now.surface, now, then })
  }
  const removed = older.cases.filter((c) => !after.has(c.id)).map((c) => ({
    id: c.id,
    surface: c.surface,
    passed: c.passed
  }))
  return Either.right({
    regressions,
    fixes,
    added,
    removed,
    passRate: { from: older.passRate, to: newer.passRate },
    passed: { from: older.passedCount, to: newer.passedCount },
    total: { from: older.total, to: newer.total },
    sameSet: older.caseSet === newer.caseSet,
    repeat: { from: repeatOf(older), to: repeatOf(newer) }
  })
}
