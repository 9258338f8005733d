/**
 * What a grader is: a pure function from one expectation, the turn and its surface to a verdict.
 * No I/O, no clock, no model: the same turn always grades the same.
 */
import type { Expectation, ExpectationKind } from "../Schema/Case.js"
import { listed } from "../Schema/Shown.js"
import type { Surface } from "../Schema/Surface.js"
import type { Turn } from "../Schema/Trace.js"

export { shown } from "../Schema/Shown.js"

/** A grader's answer; a failure carries the short fact that failed it (`unsurfaced: /docs/x`). */
export interface Verdict {
  readonly passed: boolean
  readonly fact?: string
}

/** The grader of expectations of kind `K`. */
export type Grader<K extends ExpectationKind> = (
  expectation: Extract<Expectation, { readonly kind: K }>,
  turn: Turn,
  surface: Surface
) => Verdict

/** The verdict of an expectation that holds. */
export const pass: Verdict = { passed: true }

/** The verdict of an expectation that does not hold, with its fact. */
export const fail = (fact: string): Verdict => ({ passed: false, fact })

/** Distinct values in first-seen order. */
export const distinct = (values: Iterable<string>): ReadonlyArray<string> => [...new Set(values)]

/** Several offending facts joined the contract's way: the first 20, then how many more there are. */
export const joinFacts = (facts: ReadonlyArray<string>): string => listed(facts, "; ")
