/**
 * The graders, one per expectation kind, and `grade`, which runs a case's expectations over its turn.
 * They come from the registry of kinds (`Kinds.ts`), so every kind has its grader.
 */
import type { Expectation, ExpectationKind, ExpectationOf, QuestionCase } from "../Schema/Case.js"
import type { CaseResult, ExpectationResult } from "../Schema/Result.js"
import type { Surface } from "../Schema/Surface.js"
import type { Turn } from "../Schema/Trace.js"
import type { GradeContext, Grader, Verdict } from "./Grader.js"
import type { AnyKind } from "./Kind.js"
import { kinds } from "./Kinds.js"

export type { GradeContext, Grader, Verdict } from "./Grader.js"

/** The grader of every expectation kind. */
export const graders = Object.fromEntries(kinds.map((k: AnyKind) => [k.kind, k.grade])) as {
  readonly [K in ExpectationKind]: Grader<ExpectationOf<K>>
}

/** Grades one expectation with the grader of its kind. */
export const gradeExpectation = (
  expectation: Expectation,
  turn: Turn,
  surface: Surface,
  context?: GradeContext
): Verdict => (graders[expectation.kind] as Grader<Expectation>)(expectation, turn, surface, context)

/** Grades expectations over a turn, in order; those of a conversation's step carry its number. */
export const gradeAll = (
  expect: ReadonlyArray<Expectation>,
  turn: Turn,
  surface: Surface,
  context?: GradeContext,
  step?: number
): ReadonlyArray<ExpectationResult> =>
  expect.map((expectation): ExpectationResult => {
    const verdict = gradeExpectation(expectation, turn, surface, context)
    return {
      kind: expectation.kind,
      passed: verdict.passed,
      ...(verdict.fact === undefined ? {} : { fact: verdict.fact }),
      ...(step === undefined ? {} : { step })
    }
  })

/** Grades every expectation of a question case over its turn; the case passes when all of them do. */
export const grade = (testCase: QuestionCase, turn: Turn, surface: Surface): CaseResult => {
  const expectations = gradeAll(testCase.expect, turn, surface)
  return {
    id: testCase.id,
    surface: testCase.surface,
    passed: expectations.every((e) => e.passed),
    turnId: turn.trace.turnId,
    expectations
  }
}
