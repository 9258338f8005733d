/**
 * The stand-in in this process answers a live run as it does over loopback: on every protocol, for
 * every fault its wire takes on every route it serves (a dropped connection, a redirect, an error
 * status, garbage, an answer too big), the same cases pass and fail with the same reasons, the stand-in sees the
 * same requests, and the same conversations are left. The in-process client is what most behaviour
 * tests reach the stand-in through; this holds it to the socket it stands for.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect } from "effect"
import { protocolNamed } from "../../src/Protocols/Registry.js"
import type { Route } from "../../src/Schema/Protocol.js"
import { type Fault, type FaultKind, start } from "../../src/StandIn/Server.js"
import { liveClient, runLive, standInProcess } from "../support/live.js"
import { allProtocols, protocolSet } from "../support/protocols.js"

/** The first golden-set question: every fault below selects it. */
const match = "refund on a Harbor invoice"

/**
 * The faults every route takes, and a status of each kind a client treats differently. A hang is left
 * out: nothing comes either way, and the client's timeout is the same code (test/Runner/Live.test.ts).
 */
const everyRoute: ReadonlyArray<FaultKind> = [
  { kind: "status", status: 500 },
  { kind: "status", status: 503, retryAfter: "0" },
  { kind: "status", status: 404 },
  { kind: "reset" },
  { kind: "not-json" },
  { kind: "wrong-shape" },
  { kind: "huge", bytes: 300_000 },
  { kind: "redirect", to: "http://127.0.0.1:9" }
]

/** What the ask faults become: each with what it needs. */
const askFault: Record<string, FaultKind> = {
  opened: { kind: "opened", status: 500 },
  id: { kind: "id", id: ".." },
  "reused-id": { kind: "reused-id" },
  "no-result": { kind: "no-result" }
}

/** A run's outcome with what differs by transport left out: the origin, and the stand-in's own ids. */
const comparable = (outcome: unknown, url: string): unknown =>
  JSON.parse(
    JSON.stringify(outcome).split(url).join("ORIGIN").replace(/(conv|turn|thread|run|chat)[_-][\w-]+/g, "$1_ID")
      .replace(/[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g, "UUID")
  )

const faultName = (fault: FaultKind) =>
  fault.kind === "status" ? `${fault.status}` : fault.kind === "huge" ? "huge" : fault.kind

describe("the stand-in in this process, beside the same stand-in on loopback", () => {
  for (const protocol of allProtocols) {
    const definition = protocolNamed(protocol)!
    const faults: ReadonlyArray<Fault> = [
      ...definition.faults.routes.filter((r): r is Exclude<Route, "ratings"> => r !== "ratings").flatMap((route) =>
        everyRoute.map((fault) => ({ ...fault, route, match }))
      ),
      ...definition.faults.ask.map((name) => ({ ...askFault[name]!, route: "ask" as const, match }))
    ]
    it.live(
      `${protocol}: ${faults.length} faults, each with the same outcome either way`,
      () =>
        Effect.gen(function*() {
          const { set } = yield* Effect.promise(() => protocolSet(protocol))
          const cases = set.cases.slice(0, 3)
          const failing: Array<string> = []
          for (const fault of faults) {
            const outcomes = []
            for (const how of ["loopback", "in-process"] as const) {
              const s = how === "loopback"
                ? yield* start({ catalog: set.catalog, faults: [fault] })
                : (yield* standInProcess({ faults: [fault] }, set.catalog)).s
              const { left, results } = yield* runLive(
                liveClient(s, set, { timeout: Duration.seconds(10), retries: 1 }),
                set,
                cases
              )
              const stats = s.stats()
              outcomes.push(comparable({
                fault: `${fault.route} ${faultName(fault)}`,
                results: results.map((r) => [r.id, r.passed, r.error, r.expectations]),
                left,
                requests: stats.requests,
                created: stats.created,
                deleted: stats.deleted,
                conversations: s.conversations().map((c) => [c.surface, c.question])
              }, s.url))
            }
            expect(outcomes[1]).toEqual(outcomes[0])
            if (!(outcomes[0] as { results: Array<[string, boolean]> }).results.every((r) => r[1])) {
              failing.push(`${fault.route} ${faultName(fault)}`)
            }
          }
          // The faults hit: a dropped ask fails its case either way, so the comparison is of failures too.
          expect(failing).toContain("ask reset")
        }).pipe(Effect.scoped),
      120_000
    )
  }
})
