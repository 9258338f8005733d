/**
 * A conversation with an AG-UI agent, against an agent streaming through AG-UI's own encoder: one
 * thread, each step a run sent the whole history (user, assistant with `toolCalls`, tool messages), a
 * decision a run whose `resume` answers the interrupt, after which the agent really runs (or skips) the
 * call. Every run input the suite sends is held to @ag-ui/core's `RunAgentInput` schema and every event
 * the agent answers to its `EventSchemas`, with and without the closing `MESSAGES_SNAPSHOT`.
 */
import { EventSchemas, RunAgentInputSchema } from "@ag-ui/core/schemas"
import { describe, expect, it } from "@effect/vitest"
import { eventStreamChunks } from "../../../src/Protocols/AiSdk/Client.js"
import { type AgUiAppOptions, startAgUiApp } from "../../support/apps/agUiApp.js"
import { conversationCases, expectedSteps, runProtocol, stepsShown, surfacesOf } from "../../support/protocolRun.js"

const key = "k-5e02b9f1a7c34d86"
const auth = { header: "x-api-key", value: key }
const env = { EVAL_AUTH_HEADER: `x-api-key: ${key}` }

type Input = {
  readonly threadId: string
  readonly runId: string
  readonly messages: ReadonlyArray<{ readonly id: string; readonly role: string; readonly content?: unknown }>
  readonly resume?: ReadonlyArray<{ readonly interruptId: string; readonly status: string; readonly payload?: unknown }>
}

const shapes: ReadonlyArray<readonly [string, AgUiAppOptions]> = [
  ["closing each run with a MESSAGES_SNAPSHOT", {}],
  ["without a snapshot, in chunks", { snapshot: false, chunks: true }]
]

describe.each(shapes)("a conversation, live against an AG-UI agent %s", (_, shape) => {
  it(
    "approves a refund the agent then issues once, denies one it then skips, and grades a follow-up on its own " +
      "run, each case one thread",
    async () => {
      const app = await startAgUiApp({ auth, ...shape })
      try {
        const { results } = await runProtocol("ag-ui", app.url, env, [], surfacesOf("ag-ui"), conversationCases)
        expect(stepsShown(results)).toEqual(expectedSteps)
        expect(app.ran.filter((r) => r.tool === "issue_refund")).toEqual([
          { tool: "issue_refund", input: { orderId: "42" } }
        ])
        const inputs = app.requests.map((r) => r.body as Input)
        expect(inputs).toHaveLength(6)
        for (const input of inputs) expect(RunAgentInputSchema.safeParse(input).success).toBe(true)
        const threads = new Map<string, Array<Input>>()
        for (const input of inputs) threads.set(input.threadId, [...(threads.get(input.threadId) ?? []), input])
        expect(threads.size).toBe(3)
        for (const [first, second] of threads.values()) {
          expect(first!.messages.map((m) => m.role)).toEqual(["user"])
          // The second run is sent the whole thread so far, in a run of its own.
          expect(second!.runId).not.toBe(first!.runId)
          expect(second!.messages.slice(0, 1)).toEqual(first!.messages)
          expect(second!.messages.map((m) => m.role)).toContain("assistant")
          if (second!.resume === undefined) {
            expect(second!.messages.at(-1)).toMatchObject({ role: "user", content: "How long does shipping take?" })
            continue
          }
          // A decision answers the interrupt: resolved, with the default payload.
          expect(second!.resume).toHaveLength(1)
          const [entry] = second!.resume
          expect(entry!.status).toBe("resolved")
          expect([{ approved: true }, { approved: false, reason: "The order is past the refund window." }])
            .toContainEqual(entry!.payload)
          expect(second!.messages.filter((m) => m.role === "tool")).toHaveLength(1)
        }
        // Every event the agent answered the suite's runs with is one of AG-UI's.
        for (const input of inputs) {
          const response = await fetch(`${app.url}/api/agent`, {
            method: "POST",
            headers: { "content-type": "application/json", accept: "text/event-stream", [auth.header]: auth.value },
            body: JSON.stringify(input)
          })
          const events = eventStreamChunks(await response.text())
          if (events._tag === "Left") throw new Error(events.left)
          expect(events.right.filter((e) => !EventSchemas.safeParse(e).success)).toEqual([])
        }
      } finally {
        await app.close()
      }
    }
  )
})
