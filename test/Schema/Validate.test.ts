import { describe, expect, it } from "@effect/vitest"
import type { CasesFile } from "../../src/Schema/Case.js"
import type { Catalog } from "../../src/Schema/Surface.js"
import { caseProblems, catalogProblems } from "../../src/Schema/Validate.js"

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
    expect(catalogProblems({ surfaces: {} })).toEqual([{ path: "$.surfaces", message: "expected at least one surface" }])
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
      { path: "$.routes.trace", message: "expected a path starting with \"/\" that holds {turnId}, got \"turns/{turnId}\"" }
    ])
  })

  it("takes a ratings route with a query, and rejects one that is not a path", () => {
    const docs = { endpoint: "/ask", tools: [] }
    expect(catalogProblems({ surfaces: { docs }, routes: { ratings: "/v2/feedback?thumbs=down" } })).toEqual([])
    expect(catalogProblems({ surfaces: { docs }, routes: { ratings: "feedback" } })).toEqual([
      { path: "$.routes.ratings", message: "expected a path starting with \"/\" (a query is allowed), got \"feedback\"" }
    ])
  })
})

describe("caseProblems", () => {
  it("accepts cases that name only what the catalog has", () => {
    expect(caseProblems(
      file([
        { expect: [{ kind: "calls-tool", tool: "catalog" }, { kind: "outcome", is: "refused" }] },
        { surface: "ops-agent", expect: [{ kind: "never-calls", tool: "apply_change" }, { kind: "outcome", is: "handed-off" }] }
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
        message: "unknown outcome \"handed-off\" on surface \"docs\"; its outcomes are answered, refused, awaiting-approval, error"
      }
    ])
  })

  it("does not take a surface name from the object prototype", () => {
    expect(caseProblems(file([{ surface: "constructor" }, { surface: "__proto__" }]), catalog).map((p) => p.path)).toEqual([
      "$.cases[0].surface",
      "$.cases[1].surface"
    ])
  })
})
