/**
 * What an audit of exported turns works on and finds: the plan, the running counts and a broken
 * expectation. Plain data, so the renderer reads it without the audit's reader.
 */
import type { Expectation } from "./Case.js"
import type { Shard } from "./Shard.js"
import type { Surface } from "./Surface.js"

/** What to audit. */
export interface AuditPlan {
  readonly surfaceName: string
  readonly surface: Surface
  readonly expectations: ReadonlyArray<Expectation>
  readonly shard?: Shard | undefined
}

/** The running counts of an audit. */
export interface AuditTally {
  turns: number
  otherSurfaces: number
  otherShards: number
  violatingTurns: number
  violations: number
  unreadable: number
  /** The first unreadable lines, located; the rest are only counted. */
  readonly unreadableShown: Array<string>
}

/** An expectation a turn broke: the turn, the expectation's kind and the grader's fact. */
export interface Violation {
  readonly turnId: string
  readonly kind: Expectation["kind"]
  readonly fact: string | undefined
}
