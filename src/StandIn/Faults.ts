/**
 * Fault specs as `eval standin --fault` takes them: `ROUTE:FAULT[@RATE]`, where FAULT is an HTTP
 * status (`503`, or `503/2` with a Retry-After of 2 seconds), `hang`, `reset`, `not-json`,
 * `wrong-shape`, `huge` or `redirect=ORIGIN`, and RATE the fraction of questions hit (default all).
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
  const redirect = /^redirect=(https?:\/\/[^/\s]+)$/.exec(text)
  return redirect === null ? undefined : { kind: "redirect", to: redirect[1]! }
}

/** Parses one fault spec, or says what is wrong with it. */
export const parseFault = (spec: string): Either.Either<Fault, string> => {
  const match = /^([a-z]+):([^@]+)(?:@(.+))?$/.exec(spec)
  const usage = `--fault ${JSON.stringify(spec)}: expected ROUTE:FAULT[@RATE], ROUTE one of ${routes.join(", ")}, FAULT an HTTP status (503 or 503/2 for a Retry-After), hang, reset, not-json, wrong-shape, huge or redirect=ORIGIN, RATE from 0 to 1`
  if (match === null) return Either.left(usage)
  const route = routes.find((r) => r === match[1])
  const kind = kindOf(match[2]!)
  const rate = match[3] === undefined ? undefined : Number(match[3])
  if (route === undefined || kind === undefined || (rate !== undefined && !(rate >= 0 && rate <= 1))) {
    return Either.left(usage)
  }
  return Either.right(rate === undefined ? { ...kind, route } : { ...kind, route, rate })
}
