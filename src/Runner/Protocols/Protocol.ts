/**
 * What every live protocol shares: a protocol asks a surface's question over its own wire format and
 * reads the turn — the answer and its `TurnTrace` — from what that wire carries, by the surface's
 * evidence rules. Reading is pure: a protocol's reader takes what the wire carried, already parsed,
 * and gives the turn or why the wire cannot be read as one.
 */
import type { Either } from "effect"
import type { ResolvedEvidence } from "../../Evidence/Rules.js"
import type { Turn } from "../../Schema/Trace.js"

/** What reading a turn from a wire needs to know besides the wire itself. */
export interface ReadContext {
  /** The surface's name: the trace's `surface`. */
  readonly surface: string
  /** The conversation (chat, thread) the turn was asked in. */
  readonly conversationId: string
  /** The surface's gated tools. */
  readonly gatedTools: ReadonlyArray<string>
  /** The surface's evidence rules, defaults filled in. */
  readonly evidence: ResolvedEvidence
}

/** A turn read from a wire, or why the wire cannot be read as one (in words a case's failure uses). */
export type Read = Either.Either<Turn, string>
