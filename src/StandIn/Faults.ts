/**
 * Fault specs as `eval standin --fault` takes them: `ROUTE:FAULT[@RATE]`, where FAULT is an HTTP
 * status (`503`, or `503/2` with a Retry-After of 2 seconds), `hang`, `reset`, `not-json`,
 * `wrong-shape`, `huge` or `redirect=ORIGIN` — and, on the ask, `opened=STATUS` (the conversation is
 * opened, then the answer is that status naming it) or `id=ID` (the conversation is named by ID, such
 * as `..`) — and RATE the fraction of questions hit (default all).
 */
import { Either } from "effect"
import type { Route } from "../Schema/Protocol.js"
import type { Fault, FaultKind } from "./Server.js"

const routes: ReadonlyArray<Route> = ["ask", "conversation", "trace", "delete", "ratings"]

const kindOf = (text: string): FaultKind | undefined => {
  const status = /^([1-5]\d\d)(?:\/(\d+))?$/.exec(text)
  if (status !== null) {
    return status[2] === undefined
      ? { kind: "status", status: Number(status[1]) }
      : { kind: "status", status: Number(status[1]), retryAfter: status[2] }
  }
  if (text === "hang" || text === "reset" || text === "not-json" || text === "wrong-shape" || text === "huge") {
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
  const usage = `--fault ${JSON.stringify(spec)}: expected ROUTE:FAULT[@RATE], ROUTE one of ${routes.join(", ")}, FAULT an HTTP status (503 or 503/2 for a Retry-After), hang, reset, not-json, wrong-shape, huge, redirect=ORIGIN, or on the ask opened=STATUS or id=ID, RATE from 0 to 1`
  if (match === null) return Either.left(usage)
  const route = routes.find((r) => r === match[1])
  const kind = kindOf(match[2]!)
  const rate = match[3] === undefined ? undefined : Number(match[3])
  const askOnly = kind !== undefined && (kind.kind === "opened" || kind.kind === "id") && route !== "ask"
  if (route === undefined || kind === undefined || askOnly || (rate !== undefined && !(rate >= 0 && rate <= 1))) {
    return Either.left(usage)
  }
  return Either.right(rate === undefined ? { ...kind, route } : { ...kind, route, rate })
}
