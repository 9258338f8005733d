import { describe, expect, it } from "@effect/vitest"
import type { CasesFile } from "../../src/Schema/Case.js"
import type { Catalog } from "../../src/Schema/Surface.js"
import { caseProblems, catalogProblems, catalogSuggestions } from "../../src/Schema/Validate.js"

const catalog: Catalog = {
  surfaces: {
    "docs": { endpoint: "/ask", tools: ["search_docs", "catalog"] },
    "ops-agent": { endpoint: "/agent", tools: ["apply_change"], gatedTools: ["apply_change"], outcomes: ["handed-off"] }
  }
}

const file = (cases: ReadonlyArray<Partial<CasesFile["cases"][number]>>): CasesFile => ({
  version: 1,
  cases: cases.map((c, i) => ({
    id: `c${i}`,
    surface: "docs",
    question: "q",
    guards: "g",
    expect: [{ kind: "calls-any-tool" }],
    ...c
  })) as unknown as CasesFile["cases"]
})

describe("catalogProblems", () => {
  it("accepts a consistent catalog", () => {
    expect(catalogProblems(catalog)).toEqual([])
  })

  it("rejects no surfaces and a gated tool the surface does not have", () => {
    expect(catalogProblems({ surfaces: {} })).toEqual([{
      path: "$.surfaces",
      message: "expected at least one surface"
    }])
    expect(catalogProblems({ surfaces: { "my agent": { endpoint: "/a", tools: ["x"], gatedTools: ["x", "deploy"] } } }))
      .toEqual([{
        path: "$.surfaces[\"my agent\"].gatedTools[1]",
        message: "gated tool \"deploy\" is not one of the surface's tools (x)"
      }])
  })

  it("rejects an endpoint that is not a path and route templates without their id", () => {
    expect(catalogProblems({
      surfaces: { docs: { endpoint: "api/ask", tools: [] } },
      routes: { conversation: "/threads/{id}", trace: "turns/{turnId}", delete: "/threads/{conversationId}" }
    })).toEqual([
      { path: "$.surfaces.docs.endpoint", message: "expected a path starting with \"/\", got \"api/ask\"" },
      {
        path: "$.routes.conversation",
        message: "expected a path starting with \"/\" that holds {conversationId}, got \"/threads/{id}\""
      },
      {
        path: "$.routes.trace",
        message: "expected a path starting with \"/\" that holds {turnId}, got \"turns/{turnId}\""
      }
    ])
  })

  it("takes a ratings route with a query, and rejects one that is not a path", () => {
    const docs = { endpoint: "/ask", tools: [] }
    expect(catalogProblems({ surfaces: { docs }, routes: { ratings: "/v2/feedback?thumbs=down" } })).toEqual([])
    expect(catalogProblems({ surfaces: { docs }, routes: { ratings: "feedback" } })).toEqual([
      {
        path: "$.routes.ratings",
        message: "expected a path starting with \"/\" (a query is allowed), got \"feedback\""
      }
    ])
  })
})

describe("a surface's protocol", () => {
  const tools = ["search_kb", "issue_refund"]

  it("accepts the catalog the issue shows: ai-sdk with its delete route, langgraph without an endpoint, ag-ui", () => {
    expect(catalogProblems({
      surfaces: {
        support: {
          protocol: "ai-sdk",
          endpoint: "/api/chat",
          tools,
          gatedTools: ["issue_refund"],
          evidence: { citationPrefixes: ["/kb/"] },
          routes: { delete: "/api/chat?id={conversationId}" }
        },
        ops: { protocol: "langgraph", assistantId: "ops-agent", tools },
        copilot: { protocol: "ag-ui", endpoint: "/api/copilot", tools },
        kept: { protocol: "ai-sdk", endpoint: "/api/chat", tools, routes: { delete: null } }
      }
    })).toEqual([])
  })

  it("refuses an ai-sdk surface that does not say how its chats are deleted, naming the surface", () => {
    expect(catalogProblems({ surfaces: { support: { protocol: "ai-sdk", endpoint: "/api/chat", tools } } })).toEqual([{
      path: "$.surfaces.support.routes.delete",
      message: "missing: an \"ai-sdk\" surface must say how its chats are deleted, as a route such as " +
        "\"/api/chat?id={conversationId}\", or null when the app keeps none"
    }])
  })

  it("refuses fields the surface's protocol does not read, and a missing endpoint where one is needed", () => {
    expect(catalogProblems({
      surfaces: {
        a: { protocol: "ag-ui", tools, assistantId: "x", request: { input: {} } },
        b: { tools, endpoint: "/ask", request: { body: {} }, routes: { delete: "/c/{id}" } },
        c: { protocol: "langgraph", tools, routes: { conversation: "/threads/{conversationId}" } }
      }
    })).toEqual([
      {
        path: "$.surfaces.a.endpoint",
        message: "expected the path a \"ag-ui\" surface is asked at, such as \"/api/chat\""
      },
      {
        path: "$.surfaces.a.assistantId",
        message: "only a \"langgraph\" surface has an assistant id; this one is \"ag-ui\""
      },
      {
        path: "$.surfaces.a.request.input",
        message: "only a \"langgraph\" surface takes a run input template; this one is \"ag-ui\""
      },
      {
        path: "$.surfaces.b.request.body",
        message: "only an \"ai-sdk\" or \"ag-ui\" surface takes a request body template; this one is \"turn-eval\""
      },
      {
        path: "$.surfaces.b.routes.delete",
        message: "expected a path starting with \"/\" that holds {conversationId}, got \"/c/{id}\""
      },
      {
        path: "$.surfaces.c.routes.conversation",
        message:
          "a \"langgraph\" surface reads its turn from the answer; only a \"turn-eval\" surface has a conversation route"
      }
    ])
  })

  it("checks evidence rules where they are, and suggests moving those still under otel", () => {
    const surfaces = {
      docs: {
        endpoint: "/ask",
        tools,
        otel: { agentNames: ["docs-agent"], citationPrefixes: ["/kb/"], proposalTools: ["issue_refund"] }
      },
      ops: { endpoint: "/ops", tools, evidence: { proposalTools: ["deploy"], citationPattern: "x*" } }
    }
    expect(catalogProblems({ surfaces })).toEqual([
      {
        path: "$.surfaces.ops.evidence.citationPattern",
        message: "matches the empty text, so every answer would cite"
      },
      {
        path: "$.surfaces.ops.evidence.proposalTools[0]",
        message: "proposal tool \"deploy\" is not one of the surface's tools (search_kb, issue_refund)"
      }
    ])
    expect(catalogSuggestions({ surfaces })).toEqual([{
      path: "$.surfaces.docs.otel",
      message:
        "move citationPrefixes, proposalTools to the surface's \"evidence\" block: they serve live protocols and " +
        "traces alike (read from \"otel\" until then)"
    }])
  })
})

describe("caseProblems", () => {
  it("accepts cases that name only what the catalog has", () => {
    expect(caseProblems(
      file([
        { expect: [{ kind: "calls-tool", tool: "catalog" }, { kind: "outcome", is: "refused" }] },
        {
          surface: "ops-agent",
          expect: [{ kind: "never-calls", tool: "apply_change" }, { kind: "outcome", is: "handed-off" }]
        }
      ]),
      catalog
    )).toEqual([])
  })

  it("names duplicate ids, unknown surfaces, tools and outcomes by JSON path", () => {
    expect(caseProblems(
      file([
        { id: "same" },
        { id: "same", surface: "chat" },
        { expect: [{ kind: "calls-tool", tool: "deploy" }, { kind: "never-calls", tool: "catalgo" }] },
        { expect: [{ kind: "outcome", is: "handed-off" }] }
      ]),
      catalog
    )).toEqual([
      { path: "$.cases[1].id", message: "duplicate id \"same\" (first at $.cases[0])" },
      { path: "$.cases[1].surface", message: "unknown surface \"chat\"; the catalog has docs, ops-agent" },
      {
        path: "$.cases[2].expect[0].tool",
        message: "unknown tool \"deploy\" on surface \"docs\"; its tools are search_docs, catalog"
      },
      {
        path: "$.cases[2].expect[1].tool",
        message: "unknown tool \"catalgo\" on surface \"docs\"; its tools are search_docs, catalog"
      },
      {
        path: "$.cases[3].expect[0].is",
        message:
          "unknown outcome \"handed-off\" on surface \"docs\"; its outcomes are answered, refused, awaiting-approval, error"
      }
    ])
  })

  it("checks the tools the trajectory kinds name against the case's surface, each at its path", () => {
    const unknown = (path: string, tool: string) => ({
      path,
      message: `unknown tool "${tool}" on surface "docs"; its tools are search_docs, catalog`
    })
    expect(caseProblems(
      file([{
        expect: [
          { kind: "calls-in-order", tools: ["search_docs", "deploy", "catalog", "read_config"] },
          { kind: "calls-at-most", tool: "serch_docs", times: 3 },
          { kind: "no-repeated-calls", tool: "apply_change" },
          { kind: "calls-tool", tool: "catalgo", with: { service: "search-api" } }
        ]
      }]),
      catalog
    )).toEqual([
      unknown("$.cases[0].expect[0].tools[1]", "deploy"),
      unknown("$.cases[0].expect[0].tools[3]", "read_config"),
      unknown("$.cases[0].expect[1].tool", "serch_docs"),
      unknown("$.cases[0].expect[2].tool", "apply_change"),
      unknown("$.cases[0].expect[3].tool", "catalgo")
    ])
  })

  it("accepts the new kinds when they name only the surface's tools, or none", () => {
    expect(caseProblems(
      file([{
        expect: [
          { kind: "calls-in-order", tools: ["catalog", "search_docs", "catalog"], exact: true },
          { kind: "calls-at-most", tool: "search_docs", times: 3 },
          { kind: "calls-at-most", times: 0 },
          { kind: "no-repeated-calls", tool: "catalog" },
          { kind: "no-repeated-calls" },
          { kind: "calls-tool", tool: "catalog", with: { tool: "deploy" } },
          { kind: "answer-matches", pattern: "deploy" },
          { kind: "cites-all", paths: ["/docs/a"] },
          { kind: "within-budget", tokens: 4000 }
        ]
      }, { surface: "ops-agent", expect: [{ kind: "calls-in-order", tools: ["apply_change", "apply_change"] }] }]),
      catalog
    )).toEqual([])
  })

  it("does not take a surface name from the object prototype", () => {
    expect(caseProblems(file([{ surface: "constructor" }, { surface: "__proto__" }]), catalog).map((p) => p.path))
      .toEqual([
        "$.cases[0].surface",
        "$.cases[1].surface"
      ])
  })
})
