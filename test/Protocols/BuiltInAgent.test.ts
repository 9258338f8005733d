/**
 * The protocols' golden set, live through the real CLI, against CopilotKit's `BuiltInAgent` over AG-UI
 * (test/support/apps/builtInAgentApp.ts): the agent's own events, on the AI SDK's mock model. Where the
 * agent streams a call and never its result — a tool that threw, a frontend tool waiting for the client
 * — the call is not lost: the thrown one is an attempt whose fact says so, the waiting gated one is the
 * turn's proposal.
 */
import { describe, expect, it } from "@effect/vitest"
import { startBuiltInAgentApp } from "../support/apps/builtInAgentApp.js"
import { expected, runProtocol } from "../support/protocolRun.js"

const key = "k-0b8e41d7c2a95f36"

describe("ag-ui, against CopilotKit's BuiltInAgent", () => {
  it("a tool that threw is an attempt with no result on the wire; a gated frontend tool left waiting is the proposal", async () => {
    const app = await startBuiltInAgentApp({ header: "x-api-key", value: key })
    try {
      const { run, results, shown } = await runProtocol(
        "ag-ui",
        app.url,
        { EVAL_AUTH_HEADER: `x-api-key: ${key}` },
        [],
        "test/fixtures/protocols/surfaces-ag-ui-frontend-tools.json"
      )
      expect(run.stderr).not.toContain("internal error")
      // The agent drops the AI SDK's tool-error part: the failed lookup shows as a call with no result.
      expect(shown).toEqual(expected.map((c) =>
        c.id === "support.order-lookup-errors"
          ? {
            ...c,
            expectations: [
              { kind: "calls-tool", passed: false, fact: "lookup_order: no result on the wire" },
              ...c.expectations.slice(1)
            ]
          }
          : c
      ))
      const refund = results?.cases.find((c) => c.id === "support.refund-waits-for-approval")
      expect(refund?.turn?.trace).toMatchObject({
        proposal: { actions: [{ tool: "issue_refund", input: { orderId: "42" } }] }
      })
      // Every run declared the frontend tool, as a CopilotKit client that asks a person does.
      expect(app.inputs.map((i) => i.tools.map((t) => t.name))).toEqual(Array(6).fill(["issue_refund"]))
    } finally {
      await app.close()
    }
  })
})
