/**
 * What the fault matrix holds on every protocol, in a few fast cases that run with every `npm test`:
 * a LangGraph thread and its state are read together, yet a failure or a timeout names the one that
 * failed, with what that one was retrying; a run's answer that is a web page says so; an app that
 * keeps no conversations (AG-UI) is never said to hold one, whatever cut its ask short.
 */
import { describe, expect, it } from "@effect/vitest"
import { Duration, Effect, Redacted } from "effect"
import type { ProtocolName } from "../../src/Protocols/Registry.js"
import type { Case } from "../../src/Schema/Case.js"
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
    // Thread ids are the server's own: a failure's URL is compared with the thread's id in it replaced.
    const errors = results.map((r) => r.error?.replace(/\/threads\/[0-9a-f-]{36}/, "/threads/ID"))
    return { errors, left, url: s.url, stats: s.stats(), held: s.conversations() }
  })

describe("langgraph: the thread and its state are read together, and a failure names its own request", () => {
  it.each(
    [
      ["the state hangs", [{ route: "trace", kind: "hang" }], "state: timed out after 1s", "/state"],
      ["the thread hangs", [{ route: "conversation", kind: "hang" }], "thread: timed out after 1s", ""],
      [
        "the state is answered 503 until the timeout",
        [{ route: "trace", kind: "status", status: 503 }],
        "state: HTTP 503 (retried until the 1s timeout)",
        "/state"
      ],
      [
        "the thread is answered 503 once, then the state hangs",
        [{ route: "conversation", kind: "status", status: 503, times: 1 }, { route: "trace", kind: "hang" }],
        "state: timed out after 1s",
        "/state"
      ],
      [
        "the state is of the wrong shape",
        [{ route: "trace", kind: "wrong-shape" }],
        "state: thread state: values.messages: expected a list of messages, got undefined",
        "/state"
      ]
    ] satisfies ReadonlyArray<[string, ReadonlyArray<Fault>, string, string]>
  )("%s", async (_, faults, reason, tail) => {
    const { errors, held, left, url } = await runPicked("langgraph", faults)
    expect(errors).toEqual(picked.map(() => `${reason} — GET ${url}/threads/ID${tail}`))
    // The threads were named before the reads failed: both are deleted.
    expect([left, held]).toEqual([{ kept: [], undeleted: [], unknown: [] }, []])
  })

  it("a run answered with a web page says so, as every other route does", async () => {
    const { errors, url } = await runPicked("langgraph", [{ route: "ask", kind: "not-json" }])
    const page = `the app answered a web page (HTTP 200 text/html from ${url}/threads/ID/runs/wait), not the protocol`
    expect(errors).toEqual(picked.map(() => `ask: ${page} — is the route right and the session signed in?`))
  })
})

describe("ag-ui: an app that keeps no conversations is never said to hold one", () => {
  it.each(
    [
      ["hangs past the timeout", { kind: "hang" }, "ask: timed out after 1s"],
      ["is answered 500", { kind: "status", status: 500 }, "ask: HTTP 500"],
      [
        "is answered 503 until the timeout",
        { kind: "status", status: 503 },
        "ask: HTTP 503 (retried until the 1s timeout)"
      ]
    ] as const
  )("an ask that %s fails, and leaves nothing to report", async (_, fault, reason) => {
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
