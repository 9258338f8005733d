/**
 * From case verdicts to a run's verdict: the pass rate, the floor it is held to, and the floors a
 * ratchet may set. Pure.
 */
import type { Attempt, CaseResult, RunResult, ShardInfo } from "../Schema/Result.js"
import { plural } from "../Words.js"
import { attemptsOf } from "./Attempts.js"

const floorScale = 10_000

/** What a run without a committed floor says, and what `--check` answers then. */
export const noFloorYet = "no floor committed yet: run `turn-eval ratchet` to set one"

/**
 * The floor a run of `passedCount` out of `total` may set: its pass rate rounded down to four decimals,
 * so the run that set it always holds it.
 */
export const floorFor = (passedCount: number, total: number): number =>
  total === 0 ? 0 : Math.floor((passedCount * floorScale) / total) / floorScale

/** A rate as the scorecard shows it: four decimals, rounded down like a floor. */
export const showRate = (rate: number): string => (Math.floor(rate * floorScale + 1e-9) / floorScale).toFixed(4)

/** How a run was made, beyond its cases: the K of `--repeat` and the shard it covered. */
export interface RunShape {
  readonly repeat?: number | undefined
  readonly shard?: ShardInfo | undefined
  /** The run stopped early (`--bail`): its results are partial, and it is held to no floor. */
  readonly bailed?: boolean | undefined
  /** How long the run took. */
  readonly durationMs?: number | undefined
}

/** The K a run or a baseline was made with (absent: 1). */
export const repeatOf = (made: { readonly repeat?: number | undefined }): number => made.repeat ?? 1

/** The results of a run: the verdict is `passRate >= floor`, or `null` while no floor is committed. */
export const summarize = (
  cases: ReadonlyArray<CaseResult>,
  caseSet: string,
  floor: number | null,
  shape: RunShape = {}
): RunResult => {
  const total = cases.length
  const passedCount = cases.filter((c) => c.passed).length
  const passRate = total === 0 ? 0 : passedCount / total
  return {
    version: 2,
    passRate,
    floor,
    passed: floor === null ? null : passRate >= floor,
    total,
    passedCount,
    caseSet,
    ...(shape.repeat !== undefined && shape.repeat > 1 ? { repeat: shape.repeat } : {}),
    ...(shape.shard === undefined ? {} : { shard: shape.shard }),
    ...(shape.bailed === true ? { bailed: true as const } : {}),
    ...(shape.durationMs === undefined ? {} : { durationMs: shape.durationMs }),
    cases
  }
}

/** Whether an attempt's verdict follows from it: obtained, and every expectation passed. */
const held = (attempt: Attempt): boolean =>
  attempt.error === undefined && attempt.expectations.length > 0 && attempt.expectations.every((e) => e.passed)

/** Inconsistencies inside a results file (a hand-edited count, a verdict that does not follow), as messages. */
export const resultInconsistencies = (result: RunResult): ReadonlyArray<{ path: string; message: string }> => {
  const problems: Array<{ path: string; message: string }> = []
  const passedCount = result.cases.filter((c) => c.passed).length
  if (result.total !== result.cases.length) {
    problems.push({
      path: "$.total",
      message: `says ${result.total}, but the file holds ${plural(result.cases.length, "case")}`
    })
  }
  if (result.passedCount !== passedCount) {
    problems.push({
      path: "$.passedCount",
      message: `says ${result.passedCount}, but ${plural(passedCount, "case")} passed`
    })
  }
  const rate = result.cases.length === 0 ? 0 : passedCount / result.cases.length
  if (Math.abs(result.passRate - rate) > 1e-9) {
    problems.push({ path: "$.passRate", message: `says ${result.passRate}, but the cases give ${rate}` })
  }
  const k = repeatOf(result)
  result.cases.forEach((c, i) => {
    if (c.attempts !== undefined && c.attempts.length !== k) {
      problems.push({
        path: `$.cases[${i}].attempts`,
        message: `holds ${plural(c.attempts.length, "attempt")}, but the run repeated each case ${k} times`
      })
    } else if (c.attempts === undefined && k > 1) {
      problems.push({ path: `$.cases[${i}]`, message: `has no attempts, but the run repeated each case ${k} times` })
    }
    const all = attemptsOf(c).every(held)
    if (c.passed !== all) {
      problems.push({
        path: `$.cases[${i}].passed`,
        message: c.passed
          ? "says passed, but the case has a failing expectation or an error"
          : "says failed, but every expectation passed"
      })
    }
  })
  return problems
}
