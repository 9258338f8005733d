/**
 * The errors a user sees, a few tagged types, each with a `reason` literal where it has several: bad
 * input (a file that does not parse, decode or validate), bad usage, a refusal, a gate that failed
 * and a live run that had to stop. `exitCodeOf` maps each to its exit code in one exhaustive match.
 * A turn that could not be obtained (`TurnError`) fails only its case.
 */
import { Match, Schema } from "effect"
import { quoteId, showMillis, shown } from "./Shown.js"

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

/**
 * Why a case's turn could not be obtained, as a literal a consumer matches on (its sentence is the
 * `message`): no answer (`unreachable`), an answer of a status other than 2xx (`status`), a web page
 * (`web-page`), a redirect not followed (`redirect`), a body that is not JSON (`not-json`) or not the
 * protocol's shape (`wire`), a body, line or event over its limit (`too-large`), a timeout
 * (`timed-out`), a retry cut short (`stopped`), a path or an id no request is made with
 * (`path-refused`, `id-refused`), a recorded turn that is absent, unreadable or of another case
 * (`no-recording`, `recording`, `recording-mismatch`), a case no table or trace has a turn for
 * (`no-turn`), a turn in traces that cannot be read (`trace`).
 */
export const TurnFailure = Schema.Literal(
  "unreachable",
  "status",
  "web-page",
  "redirect",
  "not-json",
  "wire",
  "too-large",
  "timed-out",
  "stopped",
  "path-refused",
  "id-refused",
  "no-recording",
  "recording",
  "recording-mismatch",
  "no-turn",
  "trace",
  "unknown-protocol",
  "cannot-take-step"
)
/** Why a case's turn could not be obtained. */
export type TurnFailure = typeof TurnFailure.Type

/** The request a failure came from: its method and URL (never the session), written `POST https://…/ask`. */
export class FailedRequest extends Schema.Class<FailedRequest>("FailedRequest")({
  method: Schema.String,
  url: Schema.String
}) {
  override toString(): string {
    return `${this.method} ${this.url}`
  }
}

/** A byte count in MiB, to one decimal place. */
const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`

/** Why one case's turn could not be obtained; the case fails with it and the run goes on. */
export class TurnError extends Schema.TaggedError<TurnError>()("TurnError", {
  reason: TurnFailure,
  /** The request's name in the protocol (`ask`, `trace`, `thread`, …), for a failure of a request. */
  route: Schema.optional(Schema.String),
  /** The status of the answer that failed the request, when one did: what tells a route the app lacks. */
  status: Schema.optional(Schema.Number),
  /** For `web-page`: the URL that answered it. */
  url: Schema.optional(Schema.String),
  /** The limit that was passed: bytes for `too-large`, milliseconds for `timed-out`. */
  limit: Schema.optional(Schema.Number),
  /** For `too-large`: what was over its limit. */
  part: Schema.optional(Schema.Literal("body", "line", "event")),
  /** For `timed-out`: what was being retried when time ran out (a status, a connection that failed). */
  retrying: Schema.optional(Schema.String),
  /** For `not-json`: the event of a stream that was not, by index. */
  event: Schema.optional(Schema.Number),
  /** For `not-json`: what within the route's answer was not (`search`). */
  within: Schema.optional(Schema.String),
  /**
   * For `path-refused`: where the path came from (`path`, `endpoint`, `delete route`) and the path; for
   * `unknown-protocol`, the protocol a surface names, quoted.
   */
  what: Schema.optional(Schema.String),
  path: Schema.optional(Schema.String),
  /** For `id-refused`: the id, what it names and where the answer gave it. */
  id: Schema.optional(Schema.String),
  idOf: Schema.optional(Schema.Literal("conversation", "turn")),
  where: Schema.optional(Schema.String),
  /** For the recordings: the file. */
  file: Schema.optional(Schema.String),
  /** For `recording-mismatch` (the case the recording is for) and `no-turn` (the case without one). */
  caseId: Schema.optional(Schema.String),
  /** For `no-turn` from traces: the case's surface. */
  surface: Schema.optional(Schema.String),
  /** For `unreachable`: the system's code for what failed (`ECONNREFUSED`, `ERR_SSL_WRONG_VERSION_NUMBER`). */
  code: Schema.optional(Schema.String),
  /** The problem in a few words, where the reason has many (the transport's, the decoder's, the wire's). */
  detail: Schema.optional(Schema.String),
  /** The request the failure came from, set once by whoever knows it: named after the sentence. */
  request: Schema.optional(FailedRequest)
}) {
  /** The failure named by the request it came from, unless it already is (or a step never made one). */
  withRequest(request: FailedRequest): TurnError {
    return this.request !== undefined || this.reason === "cannot-take-step"
      ? this
      : new TurnError({ ...fieldsOf(this), request })
  }

  override get message(): string {
    const { request } = this
    // A web page's sentence names its URL already; any other failure of a request ends with the request.
    const named = request === undefined || (this.reason === "web-page" && this.url === request.url)
      ? ""
      : ` — ${request}`
    return `${this.sentence}${named}`
  }

  /** The failure's sentence, without the request. */
  get sentence(): string {
    const at = `${this.route ?? "ask"}: `
    const detail = this.detail ?? ""
    switch (this.reason) {
      case "unreachable":
      case "wire":
      case "redirect":
        return `${at}${detail}`
      case "status":
        return `${at}HTTP ${this.status}`
      case "web-page":
        return `${at}the app answered a web page (HTTP ${this.status} text/html from ${this.url}), not the protocol — ` +
          "is the route right and the session signed in?"
      case "not-json":
        return this.event !== undefined
          ? `${at}event ${this.event} is not JSON`
          : `${at}${this.within === undefined ? "" : `${this.within}: `}not JSON`
      case "too-large": {
        const limit = mib(this.limit ?? 0)
        return this.part === "line"
          ? `${at}an event-stream line over ${limit}`
          : this.part === "event"
          ? `${at}an event-stream event's data over ${limit}`
          : `${at}body over ${limit}`
      }
      case "timed-out":
        return this.retrying === undefined
          ? `${at}timed out after ${showMillis(this.limit ?? 0)}`
          : `${at}${this.retrying} (retried until the ${showMillis(this.limit ?? 0)} timeout)`
      case "stopped":
        return `${at}stopped while waiting to retry`
      case "path-refused":
        return `${at}refused the ${this.what} ${quoteId(this.path ?? "")}: it ${detail}; no request is made`
      case "id-refused":
        return this.idOf === "turn"
          ? `${at}refused the turn id ${quoteId(this.id ?? "")}: it ${detail}; no request is made with it`
          : `${at}refused the conversation id ${
            quoteId(this.id ?? "")
          } (${this.where}): it ${detail}; no request is made with it`
      case "no-recording":
        return `no recorded turn: ${this.file}`
      case "recording":
        return `recorded turn ${this.file}: ${detail}`
      case "recording-mismatch":
        return this.caseId !== undefined
          ? `recorded turn ${this.file} is for case ${JSON.stringify(shown(this.caseId))}`
          : `recorded turn ${this.file} answers another question; record it again for the case's question`
      case "no-turn":
        return this.surface === undefined
          ? `no turn for case ${this.caseId}`
          : `no turn for case ${this.caseId} in the traces: none carries its case id or asks its question on surface ${this.surface}`
      case "trace":
        return detail
      case "unknown-protocol":
        return `unknown protocol ${this.what}: expected one of ${detail}`
      case "cannot-take-step":
        return detail
    }
  }
}

/** A failure's fields, to build it again with one more. */
const fieldsOf = ({ _tag, ...fields }: TurnError): ConstructorParameters<typeof TurnError>[0] => fields

/** A conversation's step that cannot be taken, and why; no request is made for it. */
export const cannotTakeStep = (detail: string): TurnError => new TurnError({ reason: "cannot-take-step", detail })

/** What a refused session's message says: whence it came, what refused it, and how to get a fresh one. */
const sessionRejected = (source: string | undefined, request: string | undefined): string => {
  const fresh = source === "--cookie"
    ? "pass a fresh --cookie"
    : source === "EVAL_AUTH_HEADER"
    ? "export a fresh EVAL_AUTH_HEADER"
    : "export a fresh cookie"
  return `the app refused the session${source === undefined ? "" : ` from ${source}`} (401${
    request === undefined ? "" : ` on ${request}`
  }): sign in again and ${fresh}`
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
  why: Schema.optionalWith(Schema.String, { exact: true }),
  /** For `unreachable`: a TLS handshake was answered in plain HTTP, so the app runs, but on http. */
  plainHttp: Schema.optionalWith(Schema.Boolean, { exact: true }),
  /** For `session-rejected`: where the session came from (`EVAL_COOKIE`, `--cookie`, `EVAL_AUTH_HEADER`). */
  source: Schema.optionalWith(Schema.String, { exact: true }),
  /** For `session-rejected`: the request the app refused, its method and path. */
  request: Schema.optionalWith(Schema.String, { exact: true })
}) {
  override get message(): string {
    return this.reason === "session-rejected"
      ? sessionRejected(this.source, this.request)
      : `cannot reach the app at ${this.url ?? "its URL"}: ${this.why ?? "no connection"} — ${
        this.plainHttp === true ? "the app speaks http, not https?" : "is the dev server running?"
      }`
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
