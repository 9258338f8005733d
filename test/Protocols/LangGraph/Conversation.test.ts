/**
 * A conversation on a LangGraph server, against the real LangGraph JS server: one thread, a follow-up a
 * new run on it, a decision a run that resumes the thread's interrupt — LangChain's human-in-the-loop
 * middleware with its own decisions, any other interrupt with the surface's `resume` templates — after
 * which the agent really runs (or skips) the call.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { type LangGraphApp, startLangGraphApp } from "../../support/apps/langGraphApp.js"
import { conversationCases, expectedSteps, runProtocol, stepsShown, surfacesOf } from "../../support/protocolRun.js"

const key = "k-91d4e0b7c35a2f68"
const auth = { header: "x-api-key", value: key }
const env = { EVAL_AUTH_HEADER: `x-api-key: ${key}` }

/** The runs the server was asked for, by thread: each run's body. */
const runsByThread = (app: LangGraphApp) => {
  const runs = new Map<string, Array<Record<string, unknown>>>()
  for (const request of app.requests) {
    const match = /\/threads\/([^/]+)\/runs\/wait$/.exec(new URL(request.url).pathname)
    if (request.method !== "POST" || match === null) continue
    runs.set(match[1]!, [...(runs.get(match[1]!) ?? []), JSON.parse(request.body) as Record<string, unknown>])
  }
  return runs
}

describe("a conversation, live against a LangGraph server running a LangChain agent", () => {
  let app: LangGraphApp

  beforeAll(async () => {
    app = await startLangGraphApp({
      auth,
      interrupts: { "Refund order 42, if someone agrees?": { question: "Refund order 42?" } }
    })
  }, 20_000)

  afterAll(async () => {
    await app?.close()
  })

  it(
    "approves a refund the agent then issues once, denies one it then skips, and grades a follow-up on its own " +
      "run, all on one thread a case",
    async () => {
      const { results } = await runProtocol("langgraph", app.url, env, [], surfacesOf("langgraph"), conversationCases)
      expect(stepsShown(results)).toEqual(expectedSteps)
      // The refund ran once: after the approval, with the input proposed; never after the rejection.
      expect(app.ran.filter((r) => r.tool === "issue_refund")).toEqual([
        { tool: "issue_refund", input: { orderId: "42" } }
      ])
      const runs = [...runsByThread(app).values()]
      expect(runs).toHaveLength(3)
      const resumes = runs.map((bodies) => bodies[1]!["command"])
      // Each decision is the middleware's own, one per action it asked about.
      expect(resumes).toContainEqual({ resume: { decisions: [{ type: "approve" }] } })
      expect(resumes).toContainEqual({
        resume: { decisions: [{ type: "reject", message: "The order is past the refund window." }] }
      })
      // The follow-up is a run on the same thread asking its question.
      expect(runs.map((bodies) => bodies[1]!["input"])).toContainEqual({
        messages: [{ role: "user", content: "How long does shipping take?" }]
      })
      expect(await app.threads()).toEqual([])
    }
  )

  it("resumes another interrupt with the surface's own resume templates, and says so when it has none", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eval-langgraph-resume-"))
    const surface = { protocol: "langgraph", assistantId: "interrupts", tools: [] }
    const resume = {
      approve: { approved: true, proposal: "{proposalId}" },
      deny: { approved: false, reason: "{reason}" }
    }
    writeFileSync(join(dir, "with.json"), JSON.stringify({ surfaces: { review: { ...surface, resume } } }))
    writeFileSync(join(dir, "without.json"), JSON.stringify({ surfaces: { review: surface } }))
    const ask = { ask: "Refund order 42, if someone agrees?", expect: [{ kind: "stops-at-approval" }] }
    writeFileSync(
      join(dir, "cases.json"),
      JSON.stringify({
        version: 1,
        cases: [
          {
            id: "review.approved",
            surface: "review",
            guards: "An approval resuming the review with anything but the app's own value",
            turns: [ask, { approve: true, expect: [{ kind: "answer-includes", text: "\"approved\":true" }] }]
          },
          {
            id: "review.denied",
            surface: "review",
            guards: "A denial resuming the review without its reason",
            turns: [ask, {
              deny: "Not this one.",
              expect: [{ kind: "answer-includes", text: "\"reason\":\"Not this one.\"" }]
            }]
          }
        ]
      })
    )
    const cases = join(dir, "cases.json")
    const templated = await runProtocol("langgraph", app.url, env, [], join(dir, "with.json"), cases)
    expect(stepsShown(templated.results)).toEqual([
      { id: "review.approved", steps: ["ask", "approve"] },
      { id: "review.denied", steps: ["ask", "deny"] }
    ])
    // The approval names the proposal: the interrupt's own id.
    const answer = templated.results!.cases[0]!.turns![1]!.turn?.answer ?? ""
    const proposal = templated.results!.cases[0]!.turns![0]!.turn?.trace.proposal?.id
    expect(answer).toBe(`resumed with ${JSON.stringify({ approved: true, proposal })}`)
    const bare = await runProtocol("langgraph", app.url, env, [], join(dir, "without.json"), cases)
    const why = "error the thread's interrupt is not LangChain's human-in-the-loop middleware's: the surface says " +
      "what a decision resumes it with, \"resume\": {\"approve\": VALUE, \"deny\": VALUE} ({reason}, {proposalId} " +
      "filled in)"
    expect(stepsShown(bare.results)).toEqual([
      { id: "review.approved", steps: ["ask", `approve: ${why}`] },
      { id: "review.denied", steps: ["ask", `deny: ${why}`] }
    ])
    expect(await app.threads()).toEqual([])
  })
})
