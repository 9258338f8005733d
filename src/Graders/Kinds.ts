/**
 * The registry of expectation kinds: each kind once, in the order the contract lists them. Everything
 * that depends on the set of kinds derives from this list — the expectation union and its kind names,
 * the fast decoder, the graders, validation against the catalog, audit's `--expect` and the
 * documentation tables — so a new kind is its module and one line here.
 */
import { Schema } from "effect"
import { isRecord } from "../Schema/Decode.js"
import { isNonBlank, onlyKeys } from "../Schema/Fields.js"
import { answerExcludesKind } from "./AnswerExcludes.js"
import { answerIncludesKind } from "./AnswerIncludes.js"
import { answerMatchesKind } from "./AnswerMatches.js"
import { callsAnyToolKind } from "./CallsAnyTool.js"
import { callsAtMostKind } from "./CallsAtMost.js"
import { callsInOrderKind } from "./CallsInOrder.js"
import { callsToolKind } from "./CallsTool.js"
import { citesKind } from "./Cites.js"
import { citesAllKind } from "./CitesAll.js"
import { citesOnlySurfacedKind } from "./CitesOnlySurfaced.js"
import type { AnyKind } from "./Kind.js"
import { neverCallsKind } from "./NeverCalls.js"
import { noCitationsKind } from "./NoCitations.js"
import { noRepeatedCallsKind } from "./NoRepeatedCalls.js"
import { outcomeKind } from "./Outcome.js"
import { runsAsProposedKind } from "./RunsAsProposed.js"
import { stopsAtApprovalKind } from "./StopsAtApproval.js"
import { withinBudgetKind } from "./WithinBudget.js"

/** Every expectation kind. */
export const kinds = [
  citesOnlySurfacedKind,
  citesKind,
  citesAllKind,
  noCitationsKind,
  callsToolKind,
  callsAnyToolKind,
  callsInOrderKind,
  callsAtMostKind,
  noRepeatedCallsKind,
  neverCallsKind,
  answerIncludesKind,
  answerExcludesKind,
  answerMatchesKind,
  stopsAtApprovalKind,
  runsAsProposedKind,
  outcomeKind,
  withinBudgetKind
] as const

type Kinds = typeof kinds
type SchemasOf<T extends ReadonlyArray<AnyKind>> = {
  readonly [I in keyof T]: T[I] extends AnyKind ? T[I]["schema"] : never
}
type NamesOf<T extends ReadonlyArray<AnyKind>> = {
  readonly [I in keyof T]: T[I] extends AnyKind ? T[I]["kind"] : never
}

/** One fact a turn must show; `kind` selects the grader. */
export const Expectation = Schema.Union(...(kinds.map((k) => k.schema) as unknown as SchemasOf<Kinds>))
/** One fact a turn must show; `kind` selects the grader. */
export type Expectation = typeof Expectation.Type

/** The name of an expectation kind, as results carry it. */
export const ExpectationKind = Schema.Literal(...(kinds.map((k) => k.kind) as unknown as NamesOf<Kinds>))
/** The name of an expectation kind. */
export type ExpectationKind = Expectation["kind"]

/** Every expectation kind's name, in the order the contract lists them. */
export const expectationKinds: ReadonlyArray<ExpectationKind> = kinds.map((k) => k.kind)

/** The expectation of kind `K`. */
export type ExpectationOf<K extends ExpectationKind> = Extract<Expectation, { readonly kind: K }>

const byName = new Map<string, AnyKind>(kinds.map((k) => [k.kind, k]))

/** The kind of that name, if there is one. */
export const kindNamed = (name: string): AnyKind | undefined => byName.get(name)

/** Every key any kind's expectation may hold, for the fast decoder's check of a key it does not know. */
const keysOf = new Map<string, ReadonlyArray<string>>(kinds.map((k) => [k.kind, ["kind", "drafted", ...k.fields]]))

/**
 * An expectation decoded without the schema, as the schema decodes it, or `undefined` to leave it to
 * the schema: the kind's own fast reading, and the `drafted` mark every kind may carry.
 */
export const fastExpectation = (value: unknown): Expectation | undefined => {
  if (!isRecord(value)) return undefined
  const name = value["kind"]
  const kind = typeof name === "string" ? byName.get(name) : undefined
  if (kind === undefined || !onlyKeys(value, keysOf.get(kind.kind)!)) return undefined
  if ("drafted" in value && !isNonBlank(value["drafted"])) return undefined
  const fields = kind.fast(value)
  if (fields === undefined) return undefined
  return { kind: kind.kind, ...fields, ...("drafted" in value ? { drafted: value["drafted"] } : {}) } as Expectation
}
