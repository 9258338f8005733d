/**
 * The session never leaves the app's origin, on every protocol and however it signs in: every route a
 * protocol has is redirected to another origin for one case of a run, and none of those redirects is
 * followed — the other origin gets no request at all, so it never sees the cookie, the bearer token or
 * the API key — while each case says which request was redirected, and where. The fault matrix does the
 * same for 30% of the golden set per route; this runs with every `npm test`.
 */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { createServer, type IncomingHttpHeaders } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ProtocolName } from "../../src/Protocols/Registry.js"
import { questionCases } from "../../src/Schema/Case.js"
import { RunResult } from "../../src/Schema/Result.js"
import { evalCliAsync } from "../support/cli.js"
import {
  allProtocols,
  routesOf,
  secretOf,
  sessionEnv,
  shownRouteOf,
  type SignIn,
  surfacesArgs,
  withProtocolStandIn
} from "../support/protocols.js"

const methodOf = { ask: "POST", conversation: "GET", trace: "GET", delete: "DELETE", ratings: "GET" } as const

/** Runs `body` with a server on another origin that records the headers of every request it gets. */
const withOtherOrigin = async <A>(body: (origin: string, seen: ReadonlyArray<IncomingHttpHeaders>) => Promise<A>) => {
  const seen: Array<IncomingHttpHeaders> = []
  const server = createServer((request, response) => {
    seen.push(request.headers)
    response.end("{}")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  try {
    return await body(`http://127.0.0.1:${(server.address() as AddressInfo).port}`, seen)
  } finally {
    await new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

describe("a redirect to another origin", () => {
  for (const protocol of allProtocols) {
    for (const signIn of ["cookie", "bearer", "api-key"] as const satisfies ReadonlyArray<SignIn>) {
      it(`${protocol}, signed in by ${signIn}: is never followed from any route, so the other origin never sees the session`, () =>
        withOtherOrigin((origin, seen) => redirectedRun(protocol, signIn, origin, seen)))
    }
  }
})

const redirectedRun = (
  protocol: ProtocolName,
  signIn: SignIn,
  origin: string,
  seen: ReadonlyArray<IncomingHttpHeaders>
) =>
  withProtocolStandIn(protocol, {}, async (s, p) => {
    // One docs case per route, each redirected on that route alone, and one more that is not: the run measures a turn.
    const routes = routesOf[protocol]
    const picked = questionCases(p.set.cases).filter((c) => c.surface === "docs").slice(0, routes.length + 1)
    s.setFaults(routes.map((route, i) => ({ route, kind: "redirect", to: origin, match: picked[i]!.question })))
    const dir = mkdtempSync(join(tmpdir(), "eval-origins-"))
    const run = await evalCliAsync(
      [
        "run",
        "--base-url",
        s.url,
        ...surfacesArgs(p),
        "--json",
        join(dir, "r.json"),
        ...picked.flatMap((c) => ["--filter", c.id])
      ],
      { env: { ...sessionEnv(s, signIn), XDG_STATE_HOME: join(dir, "state") } }
    )
    expect(run.code).toBe(0)
    const results = Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(join(dir, "r.json"), "utf8"))).cases
    const said = (route: (typeof routes)[number]) =>
      `${shownRouteOf(protocol, route)}: redirected to another origin (${origin}); not followed — ${
        methodOf[route]
      } ${s.url}/`
    for (const [i, route] of routes.entries()) {
      const result = results.find((r) => r.id === picked[i]!.id)!
      if (route === "delete") {
        // The case graded as usual; its conversation is reported, with why it could not be deleted.
        expect(result.error).toBeUndefined()
        const line = run.stderr.split("\n").find((l) => l.includes(` ${picked[i]!.id}: `))
        expect(line?.replace(/^ {2}\S+ +\S+: /, "").startsWith(said(route))).toBe(true)
      } else {
        expect(result.error?.startsWith(said(route)), result.error).toBe(true)
      }
    }
    expect(results.map((r) => r.id)).toEqual(picked.map((c) => c.id))
    expect(results.at(-1)?.error).toBeUndefined()
    expect(seen).toEqual([])
    expect(`${run.stdout}\n${run.stderr}\n${readFileSync(join(dir, "r.json"), "utf8")}`).not.toContain(secretOf(s))
  })
