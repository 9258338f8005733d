/**
 * Fault specs as `eval standin --fault` takes them: `ROUTE:FAULT[@RATE]`, where FAULT is an HTTP
 * status (`503`, or `503/2` with a Retry-After of 2 seconds), `hang`, `reset`, `not-json`,
 * `wrong-shape`, `huge` or `redirect=ORIGIN` — and, on the ask, `opened=STATUS` (the conversation is
 * opened, then the answer is that status naming it), `id=ID` (the conversation is named by ID, such
 * as `..`), `reused-id` (the stream starts the gated `deploy` again under an earlier call's id) or
 * `no-result` (the stream starts the turn's first tool call, sends its input and ends it, and sends no
 * result: a tool that threw where the wire says nothing of it) — the last two on ai-sdk and ag-ui, which
 * stream calls by id — and RATE the fraction of questions hit (default all).
 *
 * The routes per protocol (a fault selects requests by the question they are about):
 * - ask: the POST to the surface's endpoint (turn-eval, ai-sdk's chat route, ag-ui's agent); on
 *   langgraph the run, `POST /threads/{id}/runs/wait`, and for `id=` the thread's creation, `POST /threads`.
 * - conversation, trace: turn-eval's routes; on langgraph `GET /threads/{id}` and `GET /threads/{id}/state`.
 * - delete: turn-eval's and ai-sdk's delete route; on langgraph `DELETE /threads/{id}`; ag-ui keeps nothing.
 * - ratings: the stand-in's own ratings route, whatever the surfaces speak.
 *
 * On an event stream (the ask of turn-eval's stream mode, ai-sdk and ag-ui) `reset` drops the
 * connection after the first events and `huge` adds a 5 MB event (ai-sdk a transient `data-padding`
 * chunk, ag-ui a `CUSTOM` event); on ai-sdk and ag-ui `wrong-shape` answers a stream whose events are
 * not the protocol's, and `not-json` a web page. A LangGraph thread's creation carries no question,
 * so it takes only `id=` (every creation whatever the rate, or with `times` the first that many; a
 * fault with a `match` never hits it), and every other ask fault hits the run. `opened=` opens the
 * conversation first: on ai-sdk the chat the client named; on langgraph the run is taken on the
 * thread before its answer fails; ag-ui keeps nothing, so it takes no `opened=`. `id=` renames the
 * conversation the app names: ai-sdk and ag-ui ids are the client's own, so only turn-eval and
 * langgraph take it.
 */
import { Either } from "effect"
import { type ProtocolName, protocolNamed, protocols } from "../Protocols/Registry.js"
import type { Route } from "../Schema/Protocol.js"
import type { Fault, FaultKind } from "./Server.js"

const routes: ReadonlyArray<Route> = ["ask", "conversation", "trace", "delete", "ratings"]

/** The faults only an ask takes: what they change is the answer's conversation or its stream. */
const askFaults = ["opened", "id", "reused-id", "no-result"] as const
/** A fault only an ask takes. */
export type AskFault = typeof askFaults[number]

const kindOf = (text: string): FaultKind | undefined => {
  const status = /^([1-5]\d\d)(?:\/(\d+))?$/.exec(text)
  if (status !== null) {
    return status[2] === undefined
      ? { kind: "status", status: Number(status[1]) }
      : { kind: "status", status: Number(status[1]), retryAfter: status[2] }
  }
  if (
    text === "hang" || text === "reset" || text === "not-json" || text === "wrong-shape" || text === "huge" ||
    text === "reused-id" || text === "no-result"
  ) {
    return { kind: text }
  }
  const opened = /^opened=([1-5]\d\d)$/.exec(text)
  if (opened !== null) return { kind: "opened", status: Number(opened[1]) }
  const id = /^id=(.+)$/.exec(text)
  if (id !== null) return { kind: "id", id: id[1]! }
  const redirect = /^redirect=(https?:\/\/[^/\s]+)$/.exec(text)
  return redirect === null ? undefined : { kind: "redirect", to: redirect[1]! }
}

/** Parses one fault spec, or says what is wrong with it. */
export const parseFault = (spec: string): Either.Either<Fault, string> => {
  const match = /^([a-z]+):([^@]+)(?:@(.+))?$/.exec(spec)
  const usage =
    `--fault ${JSON.stringify(spec)}: expected ROUTE:FAULT[@RATE], ROUTE one of ${
      routes.join(", ")
    }, FAULT an HTTP status (503 or 503/2 for a Retry-After), hang, reset, not-json, wrong-shape, huge, ` +
    `redirect=ORIGIN, or on the ask opened=STATUS, id=ID, reused-id or no-result, RATE from 0 to 1`
  if (match === null) return Either.left(usage)
  const route = routes.find((r) => r === match[1])
  const kind = kindOf(match[2]!)
  const rate = match[3] === undefined ? undefined : Number(match[3])
  const askOnly = kind !== undefined && askFaults.some((k) => k === kind.kind) && route !== "ask"
  if (route === undefined || kind === undefined || askOnly || (rate !== undefined && !(rate >= 0 && rate <= 1))) {
    return Either.left(usage)
  }
  return Either.right(rate === undefined ? { ...kind, route } : { ...kind, route, rate })
}

/** The protocols that take an ask fault,, in the registry's order: "turn-eval and langgraph". */
const takers = (kind: AskFault): string =>
  protocols.filter((p) => p.faults.ask.includes(kind)).map((p) => p.name).join(" and ")

/**
 * Why a fault can hit none of these protocols, or `undefined` when one of them takes it: a route the
 * protocols do not have, or an ask fault their asks cannot show.
 */
export const faultProblem = (fault: Fault, served: ReadonlyArray<ProtocolName>): string | undefined => {
  const named = served.join(", ")
  const faults = served.map((p) => protocolNamed(p)!.faults)
  if (!faults.some((f) => f.routes.includes(fault.route))) {
    return `a ${fault.route} fault: ${named} has no ${fault.route} route`
  }
  if (fault.kind === "opened" && !faults.some((f) => f.ask.includes("opened"))) {
    return `an opened= fault: ${named} opens no conversation an answer could fail after`
  }
  if (fault.kind === "id" && !faults.some((f) => f.ask.includes("id"))) {
    return `an id= fault: ${named} takes its ids from the client, so the app names no id to change (${takers("id")} do)`
  }
  if (fault.kind === "reused-id" && !faults.some((f) => f.ask.includes("reused-id"))) {
    return `a reused-id fault: ${named} streams no calls by id (${takers("reused-id")} do)`
  }
  if (fault.kind === "no-result" && !faults.some((f) => f.ask.includes("no-result"))) {
    return `a no-result fault: ${named} streams no call apart from its result (${takers("no-result")} do)`
  }
  return undefined
}
