/**
 * What the fault matrix holds on every protocol, in a few fast cases that run with every `npm test`:
 * an app that keeps no conversations (AG-UI) is never said to hold one, whatever cut its ask short.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Redacted } from "effect"
import type { Case } from "../../src/Schema/Case.js"
import type { ProtocolName } from "../../src/Schema/Surface.js"
import type { Fault } from "../../src/StandIn/Server.js"
import { liveClient, runLive } from "../support/live.js"
import { protocolSet, withProtocolStandIn } from "../support/protocols.js"

/** One docs case and one agent case, each faulted by a substring of its question. */
const picked = ["docs.where-search-api-repo-catalog", "agent.rollback-payments-stops-at-approval"]

/** Runs the picked cases over `protocol` with `faults`, signed in by a bearer token, with a 1 s timeout. */
const runPicked = (protocol: ProtocolName, faults: ReadonlyArray<Fault>) =>
  withProtocolStandIn(protocol, { faults }, async (s, { set }) => {
    const cases: ReadonlyArray<Case> = set.cases.filter((c) => picked.includes(c.id))
    const client = liveClient(s, set, {
      auth: { header: "authorization", value: Redacted.make(`Bearer ${Redacted.value(s.token())}`) },
      timeout: Duration.seconds(1),
      deleteTimeout: Duration.seconds(1),
      // The CLI's first retry delay: a 503 is still being retried when the timeout comes.
      retryDelay: Duration.millis(250)
    })
    const { left, results } = await Effect.runPromise(runLive(client, set, cases, 2))
    return { errors: results.map((r) => r.error), left, url: s.url, stats: s.stats(), held: s.conversations() }
  })


describe("ag-ui: an app that keeps no conversations is never said to hold one", () => {
  it.each([
    ["hangs past the timeout", { kind: "hang" }, "ask: timed out after 1s"],
    ["is answered 500", { kind: "status", status: 500 }, "ask: HTTP 500"],
    ["is answered 503 until the timeout", { kind: "status", status: 503 }, "ask: HTTP 503 (retried until the 1s timeout)"]
  ] as const)("an ask that %s fails, and leaves nothing to report", async (_, fault, reason) => {
    const { errors, left, stats, url } = await runPicked("ag-ui", [{ route: "ask", ...fault }])
    expect(errors).toEqual([`${reason} — POST ${url}/api/ai/docs/ask`, `${reason} — POST ${url}/api/ai/agent/ask`])
    expect(left).toEqual({ kept: [], undeleted: [], unknown: [] })
    expect([stats.created, stats.requests.delete]).toEqual([0, 0])
  })
})

it("the picked cases are in the golden set", async () => {
  const { set } = await protocolSet("turn-eval")
  expect(set.cases.filter((c) => picked.includes(c.id)).map((c) => c.id)).toEqual(picked)
})
