/**
 * The errors a user sees. Bad input (a file that does not parse, decode or validate) and bad usage end
 * a command with exit code 2; a turn that could not be obtained fails only its case.
 */
import { Schema } from "effect"

/** One problem in an input file, at a JSON path such as `$.cases[3].expect[0].tool`. */
export const Problem = Schema.Struct({ path: Schema.String, message: Schema.String })
/** One problem in an input file. */
export type Problem = typeof Problem.Type

const shownProblems = 20

/** An input file that cannot be used: which file, where in it and what was expected. Exit code 2. */
export class BadInput extends Schema.TaggedError<BadInput>()("BadInput", {
  file: Schema.String,
  problems: Schema.Array(Problem)
}) {
  override get message(): string {
    const lines = this.problems.slice(0, shownProblems).map((p) =>
      p.path === "" ? `${this.file}: ${p.message}` : `${this.file}: ${p.path}: ${p.message}`
    )
    const more = this.problems.length - shownProblems
    return more > 0 ? [...lines, `${this.file}: … and ${more} more problems`].join("\n") : lines.join("\n")
  }

  /** The first problem, and how many follow it, on one line (for a case's error, not a file's). */
  get summary(): string {
    const [first] = this.problems
    const rest = this.problems.length - 1
    const where = first === undefined ? "" : first.path === "" ? first.message : `${first.path}: ${first.message}`
    return rest > 0 ? `${where} (and ${rest} more)` : where
  }
}

/** Arguments that do not make a command (conflicting flags, a filter matching nothing). Exit code 2. */
export class UsageError extends Schema.TaggedError<UsageError>()("UsageError", {
  message: Schema.String
}) {}

/** The baseline was left as it is, with the reason (another case set, an incomplete run). Exit code 2. */
export class RatchetRefused extends Schema.TaggedError<RatchetRefused>()("RatchetRefused", {
  message: Schema.String
}) {}

/** Why one case's turn could not be obtained; the case fails with it and the run goes on. */
export class TurnError extends Schema.TaggedError<TurnError>()("TurnError", {
  reason: Schema.String
}) {
  override get message(): string {
    return this.reason
  }
}

/** The app answered 401: the session cookie is not (or no longer) valid. Stops the whole run (exit code 2). */
export class SessionRejected extends Schema.TaggedError<SessionRejected>()("SessionRejected", {}) {
  override get message(): string {
    return "session rejected: sign in again"
  }
}

/**
 * The app could not be reached at all by the first asks (connection refused, host not found, TLS):
 * like a rejected session, it stops the run at once rather than timing out case after case (exit 2).
 */
export class AppUnreachable extends Schema.TaggedError<AppUnreachable>()("AppUnreachable", {
  /** The URL the asks went to (never with the cookie). */
  url: Schema.String,
  /** Why, in a few words: `connection refused`. */
  why: Schema.String
}) {
  override get message(): string {
    return `cannot reach the app at ${this.url}: ${this.why} — is the dev server running?`
  }
}

/** What stops a whole live run: a session the app rejected, or an app that cannot be reached. */
export type RunStop = SessionRejected | AppUnreachable

/** A `--check` run whose pass rate is below the floor (exit code 1); the scorecard already said so. */
export class BelowFloor extends Schema.TaggedError<BelowFloor>()("BelowFloor", {}) {}

/** An audit that found turns breaking an invariant (exit code 1); the report already names them. */
export class ViolationsFound extends Schema.TaggedError<ViolationsFound>()("ViolationsFound", {}) {}

/** `eval diff --check` found cases that passed before and fail now (exit code 1); the diff names them. */
export class RegressionsFound extends Schema.TaggedError<RegressionsFound>()("RegressionsFound", {}) {}

/**
 * A run in which no case obtained its turn (an app that cannot be reached, a wrong folder): it measured
 * nothing, so it is no regression and holds no floor (exit code 2).
 */
export class NotAMeasurement extends Schema.TaggedError<NotAMeasurement>()("NotAMeasurement", {
  message: Schema.String
}) {}

/** `eval cleanup` could not delete every conversation the journal held (exit code 1); each was listed. */
export class ConversationsRemain extends Schema.TaggedError<ConversationsRemain>()("ConversationsRemain", {
  count: Schema.Number
}) {}

/** An audit met lines it could not read (exit code 2); they were listed as they were met. */
export class UnreadableLines extends Schema.TaggedError<UnreadableLines>()("UnreadableLines", {
  count: Schema.Number
}) {
  override get message(): string {
    return `${this.count} unreadable line${this.count === 1 ? "" : "s"} (the first of them are listed above)`
  }
}
