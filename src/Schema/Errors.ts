/**
 * The errors a user sees, a few tagged types, each with a `reason` literal where it has several: bad
 * input (a file that does not parse, decode or validate), bad usage, a refusal, a gate that failed
 * and a live run that had to stop. `exitCodeOf` maps each to its exit code in one exhaustive match.
 * A turn that could not be obtained (`TurnError`) fails only its case.
 */
import { Match, Schema } from "effect"

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

/**
 * The command would not do what it was asked, with why: a ratchet the results cannot move
 * (`ratchet`), a run in which no case obtained its turn and so measured nothing
 * (`not-a-measurement`), an archive with lines that cannot be read (`unreadable-lines`). Exit code 2.
 */
export class Refused extends Schema.TaggedError<Refused>()("Refused", {
  reason: Schema.Literal("ratchet", "not-a-measurement", "unreadable-lines"),
  message: Schema.String
}) {}

/** Why one case's turn could not be obtained; the case fails with it and the run goes on. */
export class TurnError extends Schema.TaggedError<TurnError>()("TurnError", {
  reason: Schema.String,
  /** The status of the answer that failed the request, when one did: what tells a route the app lacks. */
  status: Schema.optional(Schema.Number)
}) {
  override get message(): string {
    return this.reason
  }
}

/**
 * A live run that had to stop at once: the app rejected the session (a 401), or the first asks could
 * not reach the app at all (connection refused, host not found, TLS), rather than failing case after
 * case. No further case starts; the conversations in flight are deleted. Exit code 2.
 */
export class RunStopped extends Schema.TaggedError<RunStopped>()("RunStopped", {
  reason: Schema.Literal("session-rejected", "unreachable"),
  /** For `unreachable`: the URL the asks went to (never with the cookie), and why in a few words. */
  url: Schema.optionalWith(Schema.String, { exact: true }),
  why: Schema.optionalWith(Schema.String, { exact: true })
}) {
  override get message(): string {
    return this.reason === "session-rejected"
      ? "session rejected: sign in again"
      : `cannot reach the app at ${this.url ?? "its URL"}: ${this.why ?? "no connection"} — ${
        // A TLS handshake answered by plain HTTP: the app runs, but on http.
        /^TLS failed \((ERR_SSL_WRONG_VERSION_NUMBER|ERR_SSL_HTTP_REQUEST|ERR_SSL_PACKET_LENGTH_TOO_LONG|EPROTO)\)/
            .test(this.why ?? "")
          ? "the app speaks http, not https?"
          : "is the dev server running?"}`
  }
}

/**
 * A gate that failed, the report having already said why: a pass rate below the floor or a run that
 * stopped early under `--check` (`below-floor`), an audit's violations (`violations`), a diff's
 * regressions (`regressions`), conversations a cleanup could not delete (`conversations-remain`).
 * Exit code 1.
 */
export class GateFailed extends Schema.TaggedError<GateFailed>()("GateFailed", {
  reason: Schema.Literal("below-floor", "violations", "regressions", "conversations-remain")
}) {}

/** Every error a command ends with on purpose. */
export type CommandError = BadInput | UsageError | Refused | RunStopped | GateFailed

/** The exit code of each error a command can end with: 1 for a failed gate, 2 for the rest. */
export const exitCodeOf = (error: CommandError): 1 | 2 =>
  Match.valueTags(error, {
    BadInput: () => 2 as const,
    UsageError: () => 2 as const,
    Refused: () => 2 as const,
    RunStopped: () => 2 as const,
    GateFailed: () => 1 as const
  })

/** Whether a value is one of the errors a command ends with on purpose (anything else is a bug). */
export const isCommandError = (error: unknown): error is CommandError =>
  error instanceof BadInput || error instanceof UsageError || error instanceof Refused || error instanceof RunStopped ||
  error instanceof GateFailed
