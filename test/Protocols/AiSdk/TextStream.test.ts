/**
 * A chat route that answers the AI SDK's plain text stream (`toTextStreamResponse()`) carries no tool
 * calls or sources: the case fails saying so, and what to answer with instead.
 */
import { describe, expect, it } from "@effect/vitest"
import { startAiSdkApp } from "../../support/apps/aiSdkApp.js"
import { runProtocol } from "../../support/protocolRun.js"

describe("an AI SDK route that answers a text stream", () => {
  it("fails each case saying to answer with toUIMessageStreamResponse()", async () => {
    const app = await startAiSdkApp({ version: 6, textStream: true })
    try {
      const { results } = await runProtocol("ai-sdk", app.url, { EVAL_COOKIE: "session=1" })
      const errors = new Set((results?.cases ?? []).map((c) => c.error?.replace(/ — POST \S+$/, "")))
      expect([...errors]).toEqual([
        "ask: expected an event stream (text/event-stream), got \"text/plain; charset=utf-8\": the route answers the " +
        "AI SDK's text stream (toTextStreamResponse()), which carries no tool calls or sources; answer with " +
        "toUIMessageStreamResponse()"
      ])
    } finally {
      await app.close()
    }
  })
})
