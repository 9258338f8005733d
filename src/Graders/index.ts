/**
 * The graders, one per expectation kind, and `grade`, which runs a case's expectations over its turn.
 * The record is exhaustive over the kinds, so a new kind cannot be added without its grader.
 */
import type { Case, Expectation, ExpectationKind } from "../Schema/Case.js"
import type { CaseResult, ExpectationResult } from "../Schema/Result.js"
import type { Surface } from "../Schema/Surface.js"
import type { Turn } from "../Schema/Trace.js"
import { answerExcludes } from "./AnswerExcludes.js"
import { answerIncludes } from "./AnswerIncludes.js"
import { callsAnyTool } from "./CallsAnyTool.js"
import { callsTool } from "./CallsTool.js"
import { cites } from "./Cites.js"
import { citesOnlySurfaced } from "./CitesOnlySurfaced.js"
import type { Grader, Verdict } from "./Grader.js"
import { neverCalls } from "./NeverCalls.js"
import { noCitations } from "./NoCitations.js"
import { outcome } from "./Outcome.js"
import { stopsAtApproval } from "./StopsAtApproval.js"

export type { Grader, Verdict } from "./Grader.js"

/** The grader of every expectation kind. */
export const graders: { readonly [K in ExpectationKind]: Grader<K> } = {
  "cites-only-surfaced": citesOnlySurfaced,
  "cites": cites,
  "no-citations": noCitations,
  "calls-tool": callsTool,
  "calls-any-tool": callsAnyTool,
  "never-calls": neverCalls,
  "answer-includes": answerIncludes,
  "answer-excludes": answerExcludes,
  "stops-at-approval": stopsAtApproval,
  "outcome": outcome
}

/** Grades one expectation with the grader of its kind. */
export const gradeExpectation = (expectation: Expectation, turn: Turn, surface: Surface): Verdict =>
  (graders[expectation.kind] as Grader<ExpectationKind>)(expectation, turn, surface)

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
