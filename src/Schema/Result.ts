/**
 * The results file a run writes (`--json FILE`), version 2: the verdict of every expectation of every
 * case in golden-set order, the pass rate, the floor it was held to and the fingerprint of the case set,
 * and for each case and attempt the turn it was graded on (its question, answer and trace, clipped).
 * Version 1 files, without the turns, are read the same way.
 */
import { Schema } from "effect"
import { ExpectationKind } from "./Case.js"
import { TurnTrace } from "./Trace.js"

/**
 * The turn an attempt was graded on, as a results file keeps it: the answer and the trace, clipped
 * (`Scorecard/Kept.ts`); `omitted` counts the tool executions and citations left out past the first ones.
 */
export const KeptTurn = Schema.Struct({
  answer: Schema.String,
  trace: TurnTrace,
  /**
   * Everything the turn surfaced, by the surface's evidence rules: the identifiers its tools' outputs
   * hold, then the paths its citations matched; absent in results written before it was kept.
   */
  surfaced: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  omitted: Schema.optionalWith(
    Schema.Struct({
      toolExecutions: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true }),
      citations: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true }),
      surfaced: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true })
    }),
    { exact: true }
  )
})
/** The turn an attempt was graded on, as a results file keeps it. */
export type KeptTurn = typeof KeptTurn.Type

/** The verdict of one expectation; `fact` names what failed it. */
export const ExpectationResult = Schema.Struct({
  kind: ExpectationKind,
  passed: Schema.Boolean,
  fact: Schema.optionalWith(Schema.String, { exact: true }),
  /** The step of a conversation it was graded on (1 is the first); absent for a question case. */
  step: Schema.optionalWith(Schema.Int.pipe(Schema.positive()), { exact: true })
})
/** The verdict of one expectation. */
export type ExpectationResult = typeof ExpectationResult.Type

/** A wall time in milliseconds. */
const Milliseconds = Schema.Number.pipe(Schema.nonNegative(), Schema.finite())

/**
 * One step of a conversation case, in order: what it did (`kind`, and `message`, the text asked or the
 * reason denied), the turn it obtained and its verdicts. A step that could not be taken has `error`; one
 * left untaken after it has `skipped`, saying why, and no verdicts.
 */
export const StepResult = Schema.Struct({
  step: Schema.Int.pipe(Schema.positive()),
  kind: Schema.Literal("ask", "approve", "deny"),
  message: Schema.optionalWith(Schema.String, { exact: true }),
  turnId: Schema.optionalWith(Schema.String, { exact: true }),
  expectations: Schema.Array(ExpectationResult),
  error: Schema.optionalWith(Schema.String, { exact: true }),
  skipped: Schema.optionalWith(Schema.String, { exact: true }),
  durationMs: Schema.optionalWith(Milliseconds, { exact: true }),
  /** The turn it was graded on, when turns are kept. */
  turn: Schema.optionalWith(KeptTurn, { exact: true })
})
/** One step of a conversation case. */
export type StepResult = typeof StepResult.Type

/** One attempt at a case under `--repeat`: its own turn (a conversation of its own) and verdicts. */
export const Attempt = Schema.Struct({
  passed: Schema.Boolean,
  turnId: Schema.optionalWith(Schema.String, { exact: true }),
  error: Schema.optionalWith(Schema.String, { exact: true }),
  expectations: Schema.Array(ExpectationResult),
  /** How long obtaining and grading the attempt's turn took (absent in results written before it was kept). */
  durationMs: Schema.optionalWith(Milliseconds, { exact: true }),
  /** The turn it was graded on (absent when none was obtained, and in version 1 files). */
  turn: Schema.optionalWith(KeptTurn, { exact: true }),
  /** A conversation case's steps, in order. */
  turns: Schema.optionalWith(Schema.Array(StepResult), { exact: true })
})
/** One attempt at a case under `--repeat`. */
export type Attempt = typeof Attempt.Type

/**
 * The verdict of one case; `error` says why its turn could not be obtained (it then has no
 * expectations). Under `--repeat K` (K > 1) `attempts` holds every attempt, the case passes only when
 * all K pass (pass^k), and `turnId`, `error` and `expectations` are those of its first failing attempt
 * (of its first attempt when all passed).
 */
export const CaseResult = Schema.Struct({
  id: Schema.String,
  surface: Schema.String,
  passed: Schema.Boolean,
  turnId: Schema.optionalWith(Schema.String, { exact: true }),
  error: Schema.optionalWith(Schema.String, { exact: true }),
  expectations: Schema.Array(ExpectationResult),
  attempts: Schema.optionalWith(Schema.Array(Attempt).pipe(Schema.minItems(2)), { exact: true }),
  /** The case's wall time, all its attempts together (absent in results written before it was kept). */
  durationMs: Schema.optionalWith(Milliseconds, { exact: true }),
  /** The case's question, what it guards and its tags, from the golden set (absent in version 1 files). */
  question: Schema.optionalWith(Schema.String, { exact: true }),
  guards: Schema.optionalWith(Schema.String, { exact: true }),
  tags: Schema.optionalWith(Schema.Array(Schema.String), { exact: true }),
  /** The turn of the attempt shown (absent when none was obtained, and in version 1 files). */
  turn: Schema.optionalWith(KeptTurn, { exact: true }),
  /**
   * A conversation case's steps, in order (of the attempt shown): `expectations` then holds every step's
   * verdicts, each with its `step`, and `error` the first step that could not be taken, named.
   */
  turns: Schema.optionalWith(Schema.Array(StepResult), { exact: true })
})
/** The verdict of one case. */
export type CaseResult = typeof CaseResult.Type

const Rate = Schema.Number.pipe(Schema.between(0, 1))
const Count = Schema.Int.pipe(Schema.nonNegative())
/** A case-set fingerprint: `sha256:` and 64 hex digits. */
export const Fingerprint = Schema.String.pipe(Schema.pattern(/^sha256:[0-9a-f]{64}$/))

/** Which part of the golden set a `--shard i/n` run covered; `of` fingerprints the whole golden set. */
export const ShardInfo = Schema.Struct({
  index: Schema.Int.pipe(Schema.positive()),
  count: Schema.Int.pipe(Schema.positive()),
  of: Fingerprint
})
/** Which part of the golden set a `--shard i/n` run covered. */
export type ShardInfo = typeof ShardInfo.Type

/**
 * A whole run. `passed` is the verdict (pass rate at or above the floor); both are `null` when no floor
 * is committed yet or none applies. `caseSet` fingerprints the cases the run covered; `repeat` is the
 * K of `--repeat` (absent: 1) and `shard` says which part of the golden set a sharded run covered.
 */
export const RunResult = Schema.Struct({
  version: Schema.Literal(1, 2),
  passRate: Rate,
  floor: Schema.NullOr(Rate),
  passed: Schema.NullOr(Schema.Boolean),
  total: Count,
  passedCount: Count,
  caseSet: Fingerprint,
  repeat: Schema.optionalWith(Schema.Int.pipe(Schema.greaterThanOrEqualTo(1)), { exact: true }),
  shard: Schema.optionalWith(ShardInfo, { exact: true }),
  /** The run stopped starting cases after `--bail N` failures: a partial run, held to no floor. */
  bailed: Schema.optionalWith(Schema.Literal(true), { exact: true }),
  /** How long the run took, start to last case (absent in version 1 files). */
  durationMs: Schema.optionalWith(Milliseconds, { exact: true }),
  cases: Schema.Array(CaseResult)
})
/** A whole run. */
export type RunResult = typeof RunResult.Type

/** A conversation's step as facts and messages name it: `turn 2 (approve)`. */
export const stepName = (step: number, kind: string): string => `turn ${step} (${kind})`

/**
 * The name of the step an expectation's verdict carries (`step`), from the case's steps: `turn 2
 * (approve)`, `turn 2` when the steps do not hold it; none for a verdict of no step.
 */
export const stepNamed = (
  turns: ReadonlyArray<StepResult> | undefined,
  step: number | undefined
): string | undefined => {
  if (step === undefined) return undefined
  const at = turns?.find((t) => t.step === step)
  return at === undefined ? `turn ${step}` : stepName(at.step, at.kind)
}
