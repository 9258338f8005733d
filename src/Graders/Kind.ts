/**
 * What an expectation kind is. One module holds all of a kind: its schema, its grader, the tools and
 * outcomes it names (checked against the catalog), how `eval audit --expect KIND=ARG` reads its
 * argument, how the fast decoder reads it, and how the contract documents it, with an example turn it
 * passes on and one it fails on. The registry (`Kinds.ts`) lists each kind once; the expectation union,
 * the decoders, validation, audit's parsing and the documentation tables derive from it, and a kind
 * missing one of these parts does not compile.
 */
import type { Schema } from "effect"
import type { Proposal, TurnTrace } from "../Schema/Trace.js"
import type { Grader } from "./Grader.js"

export type { Grader } from "./Grader.js"

/** A name from the catalog that an expectation uses, at its path under the expectation (`tools[1]`). */
export type Named =
  | { readonly at: string; readonly tool: string }
  | { readonly at: string; readonly outcome: string }

/** A turn as an example writes it: the answer and the parts of the trace that matter, over an empty answered turn. */
export interface TurnSketch extends Partial<Omit<TurnTrace, "turnId" | "surface">> {
  readonly answer?: string
}

/** How the contract documents a kind. Cells are Markdown. */
export interface KindDoc {
  /** Its fields, as the contract's table lists them (`` `tool`, `with`? ``); empty for none. */
  readonly fields: string
  /** When it passes, precisely. */
  readonly passes: string
  /** Every form of its fact on failure. */
  readonly fact: string
  /** When it passes, in a few words, for the README's table. */
  readonly brief: string
}

/** An expectation of the kind, a turn it passes on and a turn it fails on with the fact that gives. */
export interface Example {
  readonly expect: { readonly kind: string } & Record<string, unknown>
  /** The proposal the step approved, for a kind that grades an approve step. */
  readonly approved?: Proposal
  readonly passes: TurnSketch
  readonly fails: TurnSketch
  readonly fact: string
}

/** How `eval audit --expect KIND=ARG` reads the argument of a kind: the fields it fills. */
export interface Argument {
  /** What to write for it in a usage hint: `TOOL`, `PATTERN`. */
  readonly name: string
  readonly read: (text: string) => Record<string, unknown>
}

/** An expectation kind `K`, whose expectations decode to `A` from `I`. */
export interface Kind<K extends string, A extends { readonly kind: K }, I> {
  readonly kind: K
  readonly schema: Schema.Schema<A, I>
  /** Its fields beyond `kind` and `drafted`: a key outside them and those two is not this kind. */
  readonly fields: ReadonlyArray<string>
  /**
   * The fields of a valid expectation (kind, keys and `drafted` already checked) as the schema
   * decodes them, read without it, or `undefined` to leave the value to the schema.
   */
  readonly fast: (value: Record<string, unknown>) => Omit<A, "kind" | "drafted"> | undefined
  readonly grade: Grader<A>
  /** The tools and outcomes it names, each of which the case's surface must have. */
  readonly names: (expectation: A) => ReadonlyArray<Named>
  /** How audit reads `KIND=ARG`; `null` for a kind audit takes with no argument, or only as JSON. */
  readonly argument: Argument | null
  readonly doc: KindDoc
  readonly example: Example
}

/** Any expectation kind. */
// A kind's schema is invariant in its types, so the kinds of every shape are one type only through `any`.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyKind = Kind<string, any, any>

/** Defines a kind; the type parameters are inferred from the schema. */
export const defineKind = <K extends string, A extends { readonly kind: K }, I>(kind: Kind<K, A, I>): Kind<K, A, I> =>
  kind

/** The parts of a kind with no fields but `kind`: nothing to read, nothing named, no argument. */
export const withoutFields = { fields: [], fast: () => ({}), names: () => [], argument: null } as const

/** The argument of a kind whose one argument is a string field. */
export const textArgument = (field: string, name: string): Argument => ({ name, read: (text) => ({ [field]: text }) })

/** The argument of a kind whose one argument is a whole number: digits are read as one, anything else is left for the schema to refuse. */
export const numberArgument = (field: string, name: string): Argument => ({
  name,
  read: (text) => ({ [field]: /^\d{1,15}$/.test(text.trim()) ? Number(text.trim()) : text })
})
