/**
 * The seam between the stand-in's router and the wire formats it speaks: each protocol is one module
 * that makes a `Wire` from the surfaces it serves, and the server's registry holds one maker per
 * protocol, so a new protocol cannot be left out. A wire routes the requests that are its own and
 * says, for the start-up lines, what it serves.
 */
import { canonical } from "../Graders/Json.js"
import type { ProtocolName } from "../Protocols/Registry.js"
import { isRecord } from "../Schema/Decode.js"
import type { Routes, Surface } from "../Schema/Surface.js"
import type { ToolExecution } from "../Schema/Trace.js"
import type { AssistantTurn } from "./Assistant.js"
import type { Target, WireRequest, WireResponse } from "./Http.js"
import type { Store } from "./Store.js"

/** A surface the stand-in serves, with the protocol it speaks and its routes resolved. */
export interface ServedSurface {
  readonly name: string
  readonly surface: Surface
  readonly protocol: ProtocolName
  readonly routes: Required<Routes>
}

/** What a wire is made from. */
export interface WireContext {
  readonly store: Store
  /** The path prefix every route is served under (no trailing slash). */
  readonly prefix: string
  /** Every surface served, whichever protocol it speaks. */
  readonly surfaces: ReadonlyArray<ServedSurface>
  /** The catalog's own routes over the defaults: the ratings route is the catalog's, not a surface's. */
  readonly catalogRoutes: Required<Routes>
}

/** One request as the router hands it on. */
export interface Incoming {
  readonly request: WireRequest
  readonly response: WireResponse
  readonly method: string
  readonly target: Target
}

/** Answers a request a wire routed. */
export type Handler = () => Promise<void> | void

/** A protocol's wire. */
export interface Wire {
  /** The handler for a request that is one of this wire's routes, or `undefined`. */
  readonly route: (incoming: Incoming) => Handler | undefined
  /** What it serves, one line per route, for the start-up lines. */
  readonly serves: ReadonlyArray<string>
}

/** Makes a protocol's wire. */
export type MakeWire = (context: WireContext) => Wire

/** The surfaces of one protocol. */
export const surfacesOf = (context: WireContext, protocol: ProtocolName): ReadonlyArray<ServedSurface> =>
  context.surfaces.filter((s) => s.protocol === protocol)

/** A text split into the deltas a stream sends it in. */
export const deltas = (text: string): ReadonlyArray<string> => text.match(/[\s\S]{1,48}/g) ?? []

/** A gated action of a pending proposal: the tool that waits for approval and the input it would run with. */
export interface PendingAction {
  readonly tool: string
  readonly input: unknown
  /** The id of the approval (interrupt) it waits on: the proposal's own for the first action. */
  readonly approvalId: string
}

/** The gated actions a turn stopped at, waiting for approval; none unless its proposal is pending. */
export const pendingActions = (turn: AssistantTurn): ReadonlyArray<PendingAction> => {
  const proposal = turn.proposal
  if (proposal === null || turn.outcome !== "awaiting-approval" || (proposal.status ?? "pending") !== "pending") {
    return []
  }
  return (proposal.actions ?? []).flatMap((action) =>
    isRecord(action) && typeof action["tool"] === "string"
      ? [{ tool: action["tool"], input: action["input"] ?? {} }]
      : []
  ).map((action, i) => ({ ...action, approvalId: i === 0 ? proposal.id : `${proposal.id}-${i + 1}` }))
}

/**
 * A decided turn's executions set against the calls a decision answered, as every wire lays a
 * decision's answer out: each call with the execution that ran it with the proposed input (canonical
 * JSON equal), taken once, or none; and the executions left, which ran as calls of their own.
 */
export const answeredBy = <C extends { readonly tool: string; readonly input?: unknown }>(
  turn: AssistantTurn,
  calls: ReadonlyArray<C>
): {
  readonly answered: ReadonlyArray<readonly [C, ToolExecution | undefined]>
  readonly left: ReadonlyArray<ToolExecution>
} => {
  const left = [...turn.toolExecutions]
  const answered = calls.map((call) => {
    const at = left.findIndex((e) => e.tool === call.tool && canonical(e.input ?? {}) === canonical(call.input ?? {}))
    return [call, at === -1 ? undefined : left.splice(at, 1)[0]] as const
  })
  return { answered, left }
}
