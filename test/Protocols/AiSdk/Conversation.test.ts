/**
 * A conversation on the AI SDK's chat route, against the library serving it (`streamText` on its mock
 * model, a `needsApproval` tool): the suite keeps the chat's messages as `useChat` does, rebuilding each
 * answer exactly as the library's own reader does, and answers a proposal as `addToolApprovalResponse`
 * does, after which the app really runs (or skips) the call. AI SDK 5 has no approval response: its
 * approve and deny steps fail, saying so.
 */
import { describe, expect, it } from "@effect/vitest"
import { readUIMessageStream, type UIMessageChunk } from "ai"
import { readUIMessageStream as readUIMessageStream6 } from "ai-v6"
import { eventStreamChunks } from "../../../src/Protocols/AiSdk/Client.js"
import { rebuildMessage, type UIMessage, userMessage } from "../../../src/Protocols/AiSdk/Message.js"
import { startAiSdkApp } from "../../support/apps/aiSdkApp.js"
import { conversationCases, expectedSteps, runProtocol, stepsShown, surfacesOf } from "../../support/protocolRun.js"
import { scenarios } from "../../support/scenarios.js"

const key = "k-3c81f0a9d26e4b57"
const auth = { header: "x-api-key", value: key }
const env = { EVAL_AUTH_HEADER: `x-api-key: ${key}` }

type Body = {
  readonly id: string
  readonly messages: ReadonlyArray<UIMessage>
  readonly trigger: string
  readonly messageId?: string
}

const streamOf = (chunks: ReadonlyArray<unknown>) =>
  new ReadableStream<UIMessageChunk>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(chunk as UIMessageChunk)
      controller.close()
    }
  })

/** The message the library's own reader builds from a stream, continuing `start`, as JSON carries it. */
const libraryMessage = async (version: 6 | 7, chunks: ReadonlyArray<unknown>, start: UIMessage) => {
  let last: unknown
  // The reader's message type differs by version in its type parameters only.
  const messages = version === 7
    ? readUIMessageStream({ message: start as never, stream: streamOf(chunks) })
    : readUIMessageStream6({ message: start as never, stream: streamOf(chunks) as never })
  for await (const message of messages) last = message
  return JSON.parse(JSON.stringify(last)) as unknown
}

const json = (value: unknown): unknown => JSON.parse(JSON.stringify(value))

describe.each([6, 7] as const)("the chat's messages, against the AI SDK %i", (version) => {
  it("rebuilds each answer, and each answer continued after a decision, as the library's reader does", async () => {
    const app = await startAiSdkApp({ version, errorMessages: true })
    try {
      const post = async (body: Body) => {
        const response = await fetch(`${app.url}/api/chat`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: JSON.stringify(body)
        })
        const chunks = eventStreamChunks(await response.text())
        if (chunks._tag === "Left") throw new Error(chunks.left)
        return chunks.right
      }
      let compared = 0
      for (const [i, scenario] of scenarios.entries()) {
        const user = userMessage(`user-${i}`, scenario.question)
        const chunks = await post({ id: `chat-${i}`, messages: [user], trigger: "submit-message" })
        const fresh: UIMessage = { id: `answer-${i}`, role: "assistant", parts: [] }
        const rebuilt = rebuildMessage(chunks, undefined, fresh.id)
        expect(json(rebuilt)).toEqual(await libraryMessage(version, chunks, fresh))
        compared++
        if (typeof rebuilt === "string") continue
        const waiting = rebuilt.parts.filter((p) => p["state"] === "approval-requested")
        for (const approved of waiting.length === 0 ? [] : [true, false]) {
          const answered: UIMessage = {
            ...rebuilt,
            parts: rebuilt.parts.map((p) =>
              waiting.includes(p)
                ? {
                  ...p,
                  state: "approval-responded",
                  approval: { ...(p["approval"] as object), approved, ...(approved ? {} : { reason: "no" }) }
                }
                : p
            )
          }
          const continued = await post({
            id: `chat-${i}`,
            messages: [user, answered],
            trigger: "submit-message",
            messageId: answered.id
          })
          expect(json(rebuildMessage(continued, answered, "unused"))).toEqual(
            await libraryMessage(version, continued, answered)
          )
          compared++
        }
      }
      // Every scenario's answer, and the refund's continued after an approval and after a denial.
      expect(compared).toBe(scenarios.length + 2)
    } finally {
      await app.close()
    }
  })
})

describe.each([6, 7] as const)("a conversation, live against the AI SDK %i's chat route", (version) => {
  it(
    "approves a refund the app then issues once, denies one it then skips, and grades a follow-up on its own " +
      "turn, posting as useChat posts",
    async () => {
      const app = await startAiSdkApp({ version, auth, errorMessages: true })
      try {
        const { results, run } = await runProtocol("ai-sdk", app.url, env, [], surfacesOf("ai-sdk"), conversationCases)
        expect(run.stderr).not.toContain("Error")
        expect(stepsShown(results)).toEqual(expectedSteps)
        // The refund ran once: after the approval, with the input proposed; never after the denial.
        expect(app.ran.filter((r) => r.tool === "issue_refund")).toEqual([
          { tool: "issue_refund", input: { orderId: "42" } }
        ])
        const posts = app.requests.filter((r) => r.method === "POST").map((r) => JSON.parse(r.body) as Body)
        expect(posts).toHaveLength(6)
        const byChat = new Map<string, Array<Body>>()
        for (const post of posts) byChat.set(post.id, [...(byChat.get(post.id) ?? []), post])
        expect(byChat.size).toBe(3)
        for (const [first, second] of byChat.values()) {
          expect(first!.messages.map((m) => m.role)).toEqual(["user"])
          expect(second!.trigger).toBe("submit-message")
          const last = second!.messages.at(-1)!
          if (last.role === "user") {
            // A follow-up: the whole chat so far, then the question; no message to continue.
            expect(second!.messages.map((m) => m.role)).toEqual(["user", "assistant", "user"])
            expect(second!.messageId).toBeUndefined()
            continue
          }
          // A decision: the answered message posted again, its waiting call answered, and named to continue.
          expect(second!.messageId).toBe(last.id)
          const responded = last.parts.filter((p) => p["state"] === "approval-responded")
          expect(responded.map((p) => [p.type, p["input"]])).toEqual([["tool-issue_refund", { orderId: "42" }]])
          const approval = responded[0]!["approval"] as { id: string; approved: boolean; reason?: string }
          expect(approval.id).toMatch(/\S/)
          expect([approval.approved, approval.reason]).toEqual(
            approval.approved ? [true, undefined] : [false, "The order is past the refund window."]
          )
        }
        // Each chat is deleted once, after its last step.
        expect(app.requests.filter((r) => r.method === "DELETE")).toHaveLength(3)
        expect(app.chats.size).toBe(0)
      } finally {
        await app.close()
      }
    }
  )
})

describe("a conversation, live against the AI SDK 5's chat route", () => {
  it("fails an approve or deny step, saying AI SDK 5 has no approval response, and carries the follow-up", async () => {
    const app = await startAiSdkApp({ version: 5, auth, errorMessages: true })
    try {
      const { results } = await runProtocol("ai-sdk", app.url, env, [], surfacesOf("ai-sdk"), conversationCases)
      const why = "error the proposal (issue_refund) asks no approval of the chat: its calls wait for the " +
        "client to run them, as AI SDK 5 asks a person (a tool without execute); answering a proposal needs AI " +
        "SDK 6 or later (needsApproval, addToolApprovalResponse)"
      expect(stepsShown(results)).toEqual([
        { id: "support.refund-after-approval", steps: ["ask", `approve: ${why}`] },
        { id: "support.refund-denied", steps: ["ask", `deny: ${why}`] },
        expectedSteps[2]
      ])
      expect(app.ran.filter((r) => r.tool === "issue_refund")).toEqual([])
      expect(app.chats.size).toBe(0)
    } finally {
      await app.close()
    }
  })
})
