/**
 * What a grader is: a pure function from one expectation, the turn and its surface to a verdict.
 * No I/O, no clock, no model: the same turn always grades the same.
 */
import { listed, shown } from "../Schema/Shown.js"
import type { Surface } from "../Schema/Surface.js"
import { noResult, type Proposal, type ToolExecution, type Turn, unresolved } from "../Schema/Trace.js"

export { shown } from "../Schema/Shown.js"

/** A grader's answer; a failure carries the short fact that failed it (`unsurfaced: /docs/x`). */
export interface Verdict {
  readonly passed: boolean
  readonly fact?: string
}

/**
 * What a turn of a conversation is graded in besides the turn: the proposal its step approved (on an
 * approve step), the one the step before left. A question case's turn is graded with none.
 */
export interface GradeContext {
  readonly approved?: Proposal | undefined
}

/**
 * A grader of expectations `A`: a pure function from one expectation, the turn, its surface and the
 * conversation it is a step of (`context`) to a verdict.
 */
export type Grader<A> = (expectation: A, turn: Turn, surface: Surface, context?: GradeContext) => Verdict

/** The verdict of an expectation that holds. */
export const pass: Verdict = { passed: true }

/** The verdict of an expectation that does not hold, with its fact. */
export const fail = (fact: string): Verdict => ({ passed: false, fact })

/** Distinct values in first-seen order. */
export const distinct = (values: Iterable<string>): ReadonlyArray<string> => [...new Set(values)]

/** Several offending facts joined the contract's way: the first 20, then how many more there are. */
export const joinFacts = (facts: ReadonlyArray<string>): string => listed(facts, "; ")

/** Why a call that did not succeed failed, as a fact names it: `lookup_order errored: timeout`, `lookup_order: no result on the wire`. */
export const failedCall = (execution: ToolExecution): string =>
  unresolved(execution) && !(typeof execution.error === "string" && execution.error.length > 0)
    ? `${shown(execution.tool)}: ${noResult}`
    : `${shown(execution.tool)} errored: ${shown(execution.error ?? "")}`
