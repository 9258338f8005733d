/**
 * What each protocol may hold, seen from the side of the surfaces that may: a request body template on
 * ai-sdk and ag-ui, a run input on langgraph, conversation and trace routes on turn-eval; and a surface
 * name that is only blanks, refused.
 */
import { describe, expect, it } from "@effect/vitest"
import { catalogProblems } from "../../src/Schema/Validate.js"

const tools = ["search_docs"]

describe("catalogProblems", () => {
  it("accepts each field on the protocols that read it", () => {
    expect(catalogProblems({
      surfaces: {
        chat: { protocol: "ai-sdk", endpoint: "/api/chat", tools, request: { body: {} }, routes: { delete: null } },
        copilot: { protocol: "ag-ui", endpoint: "/api/agui", tools, request: { body: {} } },
        graph: { protocol: "langgraph", tools, request: { input: {} } },
        own: { endpoint: "/ask", tools, routes: { conversation: "/c/{conversationId}", trace: "/t/{turnId}" } }
      }
    })).toEqual([])
  })

  it("refuses a surface name that is only blanks, at its path", () => {
    expect(catalogProblems({ surfaces: { " ": { endpoint: "/ask", tools } } })).toEqual([
      { path: "$.surfaces[\" \"]", message: "expected a non-empty surface name" }
    ])
  })
})
