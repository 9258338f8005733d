/**
 * `eval standin --protocol`, run as the built bin: it prints what it serves and how to sign in, a run's
 * request over the printed URL with the printed header is answered over that protocol, and a fault or
 * an option the protocol cannot take is a usage error.
 */
import { describe, expect, it } from "@effect/vitest"
import { evalCli, startCli } from "../support/cli.js"

const waitForStart = async (stdout: () => string) => {
  for (let i = 0; i < 200 && !stdout().includes("Ctrl-C stops it."); i++) {
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return stdout()
}

describe("eval standin --protocol", () => {
  it("ai-sdk: prints each route it serves, what the run's catalog must name and both sign-ins, and serves the chat route", async () => {
    const standin = startCli(["standin", "--port", "0", "--protocol", "ai-sdk"])
    try {
      const out = await waitForStart(standin.stdout)
      const url = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(out)![1]!
      const token = /EVAL_AUTH_HEADER='authorization: Bearer ([0-9a-f]{32})'/.exec(out)![1]!
      expect(out.replaceAll(url, "URL").replaceAll(token, "TOKEN").split("\n")).toEqual([
        "stand-in assistant listening on URL (surfaces: docs, ops-agent; protocol: ai-sdk)",
        "serves:    POST /api/ai/docs/ask  chat with docs (the AI SDK's UI message stream)",
        "           POST /api/ai/agent/ask  chat with ops-agent (the AI SDK's UI message stream)",
        "           DELETE /api/ai/conversations/{conversationId}  delete a conversation (docs, ops-agent)",
        "catalog:   the run's catalog (--surfaces) must name \"protocol\": \"ai-sdk\" on each surface",
        "sign in:   export EVAL_COOKIE='standin_session=TOKEN'",
        "   or:     export EVAL_AUTH_HEADER='authorization: Bearer TOKEN'  (x-api-key: the same token works too)",
        "then run:  turn-eval run --base-url URL",
        "Ctrl-C stops it.",
        ""
      ])
      const answered = await fetch(`${url}/api/ai/docs/ask`, {
        method: "POST",
        headers: { "content-type": "application/json", authorization: `Bearer ${token}` },
        body: JSON.stringify({
          id: "c1",
          messages: [{ id: "m1", role: "user", parts: [{ type: "text", text: "Which repo is search-api in?" }] }]
        })
      })
      expect([answered.status, answered.headers.get("x-vercel-ai-ui-message-stream")]).toEqual([200, "v1"])
      expect((await answered.text()).endsWith("data: [DONE]\n\n")).toBe(true)
    } finally {
      standin.signal("SIGINT")
      await standin.done
    }
  })

  it("langgraph: serves LangGraph Server's routes at the root, each surface an assistant by its name", async () => {
    const standin = startCli(["standin", "--port", "0", "--protocol", "langgraph"])
    try {
      const out = await waitForStart(standin.stdout)
      expect(out.split("\n").slice(1, 3)).toEqual([
        "serves:    POST /threads, POST /threads/{thread_id}/runs/wait  ask the assistants docs, ops-agent (LangGraph Server)",
        "           GET /threads/{thread_id}, GET /threads/{thread_id}/state, DELETE /threads/{thread_id}  a thread, its state, delete it"
      ])
    } finally {
      standin.signal("SIGINT")
      await standin.done
    }
  })

  it("the default protocol prints its lines as before, with the header sign-in beside the cookie", async () => {
    const standin = startCli(["standin", "--port", "0"])
    try {
      const out = await waitForStart(standin.stdout)
      expect(out.split("\n").map((line) => line.replace(/127\.0\.0\.1:\d+/g, "HOST").replace(/[0-9a-f]{32}/g, "TOKEN")))
        .toEqual([
          "stand-in assistant listening on http://HOST (surfaces: docs, ops-agent)",
          "sign in:   export EVAL_COOKIE='standin_session=TOKEN'",
          "   or:     export EVAL_AUTH_HEADER='authorization: Bearer TOKEN'  (x-api-key: the same token works too)",
          "then run:  turn-eval run --base-url http://HOST",
          "Ctrl-C stops it.",
          ""
        ])
    } finally {
      standin.signal("SIGINT")
      await standin.done
    }
  })

  it.each([
    [
      ["--protocol", "ag-ui", "--fault", "ask:id=.."],
      "error: --fault \"ask:id=..\": an id= fault: ag-ui takes its ids from the client, so the app names no id to change " +
      "(turn-eval and langgraph do)"
    ],
    [
      ["--protocol", "ag-ui", "--fault", "ask:opened=500"],
      "error: --fault \"ask:opened=500\": an opened= fault: ag-ui opens no conversation an answer could fail after"
    ],
    [
      ["--protocol", "ai-sdk", "--fault", "trace:503"],
      "error: --fault \"trace:503\": a trace fault: ai-sdk has no trace route"
    ],
    [
      ["--protocol", "langgraph", "--seed-ratings"],
      "error: --seed-ratings: ratings are read back over this product's own protocol, and no surface speaks it (langgraph)"
    ]
  ])("refuses %j with exit 2", (args, message) => {
    const run = evalCli(["standin", "--port", "0", ...args])
    expect([run.code, run.stderr.trim()]).toEqual([2, message])
  })
})
