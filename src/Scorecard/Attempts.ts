/**
 * What the reporters say about one case: whether it passed, failed every attempt or is flaky under
 * `--repeat` (some attempts passed, some failed), and the failing facts of each attempt. Pure.
 */
import { type Attempt, type CaseResult, stepName, stepNamed } from "../Schema/Result.js"

/** How a case fared over its attempts: `flaky` when some passed and some failed. */
export type Verdict = "passed" | "failed" | "flaky"

/** A case's verdict with its attempt counts (a case run once has one attempt). */
export interface Flakiness {
  readonly verdict: Verdict
  readonly passedAttempts: number
  readonly attempts: number
}

/** Every attempt of a case; a case run once is its own single attempt. */
export const attemptsOf = (c: CaseResult): ReadonlyArray<Attempt> =>
  c.attempts ?? [{
    passed: c.passed,
    ...(c.turnId === undefined ? {} : { turnId: c.turnId }),
    ...(c.error === undefined ? {} : { error: c.error }),
    expectations: c.expectations,
    ...(c.turns === undefined ? {} : { turns: c.turns })
  }]

/** Whether an attempt obtained a turn: its own, or, of a conversation, that of a step. */
export const obtained = (attempt: Attempt): boolean =>
  attempt.turns === undefined ? attempt.error === undefined : attempt.turns.some((t) => t.turnId !== undefined)

/** Whether a run obtained no turn at all: it has cases, and every attempt of every one failed to get its turn. */
export const obtainedNoTurn = (cases: ReadonlyArray<CaseResult>): boolean =>
  cases.length > 0 && cases.every((c) => attemptsOf(c).every((a) => !obtained(a)))

/** Whether a case passed, failed every attempt, or is flaky, with how many attempts passed. */
export const flakiness = (c: CaseResult): Flakiness => {
  const attempts = attemptsOf(c)
  const passedAttempts = attempts.filter((a) => a.passed).length
  const verdict: Verdict = c.passed
    ? "passed"
    : passedAttempts > 0
    ? "flaky"
    : "failed"
  return { verdict, passedAttempts, attempts: attempts.length }
}

/** One failing fact: the expectation kind (or `turn error`) and what failed it. */
export interface Fact {
  readonly kind: string
  readonly fact: string
}

// The kind a turn error is reported under.
const turnErrorKind = "turn error"

/**
 * The failing facts of a case or an attempt: its turn error, or each failing expectation's fact. Of a
 * conversation, each names its step (`turn 2 (approve) · runs-as-proposed`), and a step that could not
 * be taken is a fact of its own (`turn 2 (approve)`: why).
 */
export const failingFacts = (
  outcome: Pick<Attempt, "error" | "expectations" | "passed" | "turns">
): ReadonlyArray<Fact> => {
  const { turns } = outcome
  if (turns !== undefined) {
    // The case's own verdicts, each named by the step it carries; then each step that could not be taken.
    const facts: ReadonlyArray<Fact> = [
      ...outcome.expectations.filter((e) => !e.passed).map((e) => {
        const step = stepNamed(turns, e.step)
        return { kind: step === undefined ? e.kind : `${step} · ${e.kind}`, fact: e.fact ?? "failed" }
      }),
      ...turns.flatMap((t) => t.error === undefined ? [] : [{ kind: stepName(t.step, t.kind), fact: t.error }])
    ]
    return facts.length === 0 && !outcome.passed ? [{ kind: "case", fact: "failed" }] : facts
  }
  if (outcome.error !== undefined) return [{ kind: turnErrorKind, fact: outcome.error }]
  const facts = outcome.expectations
    .filter((e) => !e.passed)
    .map((e) => ({ kind: e.kind, fact: e.fact ?? "failed" }))
  // A failed outcome always names something, even a hand-written one with no failing expectation.
  return facts.length === 0 && !outcome.passed ? [{ kind: "case", fact: "failed" }] : facts
}

/** `kind: fact`, the way every report prints a fact. */
export const showFact = (f: Fact): string => `${f.kind}: ${f.fact}`

/** Each attempt of a case as lines: `attempt N: passed` or `failed` (with its turn when asked), then its facts indented. */
export const attemptLines = (c: CaseResult, options: { readonly turns: boolean }): ReadonlyArray<string> =>
  attemptsOf(c).flatMap((a, i) => [
    `attempt ${i + 1}${options.turns && a.turnId !== undefined ? ` (${a.turnId})` : ""}: ${
      a.passed ? "passed" : "failed"
    }`,
    ...failingFacts(a).map((f) => `  ${showFact(f)}`)
  ])
