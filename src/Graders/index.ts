/**
 * The graders, one per expectation kind, and `grade`, which runs a case's expectations over its turn.
 * They come from the registry of kinds (`Kinds.ts`), so every kind has its grader.
 */
import type { Case, Expectation, ExpectationKind, ExpectationOf } from "../Schema/Case.js"
import type { CaseResult, ExpectationResult } from "../Schema/Result.js"
import type { Surface } from "../Schema/Surface.js"
import type { Turn } from "../Schema/Trace.js"
import type { Grader, Verdict } from "./Grader.js"
import type { AnyKind } from "./Kind.js"
import { kinds } from "./Kinds.js"

export type { Grader, Verdict } from "./Grader.js"

/** The grader of every expectation kind. */
export const graders = Object.fromEntries(kinds.map((k: AnyKind) => [k.kind, k.grade])) as {
  readonly [K in ExpectationKind]: Grader<ExpectationOf<K>>
}

/** Grades one expectation with the grader of its kind. */
export const gradeExpectation = (expectation: Expectation, turn: Turn, surface: Surface): Verdict =>
  (graders[expectation.kind] as Grader<Expectation>)(expectation, turn, surface)

/** Grades every expectation of a case over its turn; the case passes when all of them do. */
export const grade = (testCase: Case, turn: Turn, surface: Surface): CaseResult => {
  const expectations = testCase.expect.map((expectation): ExpectationResult => {
    const verdict = gradeExpectation(expectation, turn, surface)
    return verdict.fact === undefined
      ? { kind: expectation.kind, passed: verdict.passed }
      : { kind: expectation.kind, passed: verdict.passed, fact: verdict.fact }
  })
  return {
    id: testCase.id,
    surface: testCase.surface,
    passed: expectations.every((e) => e.passed),
    turnId: turn.trace.turnId,
    expectations
  }
}
