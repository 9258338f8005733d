import { describe, expect, it } from "@effect/vitest"
import { Either, Schema } from "effect"
import { citationsIn, identifiersIn } from "../../src/Evidence/Derive.js"
import type { ReadTurn } from "../../src/Otel/Conventions.js"
import { toTurn } from "../../src/Otel/Turn.js"
import { resolveOtelRules } from "../../src/Schema/Otel.js"
import { Catalog } from "../../src/Schema/Surface.js"
import { catalogProblems } from "../../src/Schema/Validate.js"

const read = (over: Partial<ReadTurn>): ReadTurn => ({
  file: "t.json",
  traceId: "0af7651916cd43dd8448eb211c80319c",
  spanId: "00f067aa0ba902b7",
  convention: "gen-ai",
  start: 1n,
  agentName: "docs",
  caseId: undefined,
  question: "q",
  answer: "",
  answerAttribute: "gen_ai.output.messages",
  failed: false,
  finished: true,
  toolCalls: [],
  waiting: [],
  retrieved: [],
  ...over
})

describe("surfaced items", () => {
  it("finds identifier fields at any depth, inside JSON text too, and numbers as text", () => {
    const value = {
      hits: [{ path: "docs/a.md" }, { meta: { url: "https://x.test/b" } }],
      content: "{\"id\": 7, \"source\": \"kb/c\"}",
      title: "path"
    }
    expect([...identifiersIn(value, ["path", "url", "id", "source"])].sort()).toEqual([
      "7",
      "docs/a.md",
      "https://x.test/b",
      "kb/c"
    ])
    expect([...identifiersIn(value, ["path"])]).toEqual(["docs/a.md"])
  })
})

describe("citations in an answer", () => {
  const rules = (prefixes: ReadonlyArray<string> = [], pattern?: string) =>
    resolveOtelRules("docs", {
      citationPrefixes: prefixes,
      ...(pattern === undefined ? {} : { citationPattern: pattern })
    })

  it("are markdown link targets by default, not images or anchors, each once, in order", () => {
    expect(
      citationsIn(
        "See [b](docs/b.md), ![x](img.png), [a](<docs/a.md> \"A\"), [top](#top) and [b again](docs/b.md).",
        rules()
      )
    ).toEqual([
      "docs/b.md",
      "docs/a.md"
    ])
  })

  it("add path-like tokens under the surface's prefixes, without trailing sentence punctuation", () => {
    expect(citationsIn("Read docs/a.md. Also /docs/x and mydocs/no, then (docs/c/d).", rules(["docs/"]))).toEqual([
      "docs/a.md",
      "docs/c/d"
    ])
    expect(citationsIn("Only docs/ alone.", rules(["docs/"]))).toEqual([])
  })

  it("follow a surface's own pattern, its first group when it has one", () => {
    expect(citationsIn("As [[kb-12]] and [[kb-7]] say.", rules([], String.raw`\[\[([^\]]+)\]\]`))).toEqual([
      "kb-12",
      "kb-7"
    ])
  })
})

describe("the turn", () => {
  const docs = resolveOtelRules("docs", { citationPrefixes: ["docs/"], proposalTools: ["propose_change"] })

  it("matches a citation by path only when a successful tool or a retriever surfaced it", () => {
    const turn = Either.getOrThrow(toTurn(
      read({
        answer: "See docs/a.md, docs/b.md and docs/c.md.",
        toolCalls: [
          { tool: "search_docs", output: { path: "docs/a.md" }, error: null, callId: "1", start: 1n },
          { tool: "search_docs", error: "timeout", output: { path: "docs/b.md" }, callId: "2", start: 2n }
        ],
        retrieved: [{ id: "doc-9", metadata: { path: "docs/c.md" } }]
      }),
      "docs",
      docs
    ))
    expect(turn.trace.citations).toEqual([
      { path: "docs/a.md", match: "path" },
      { path: "docs/b.md", match: "unsurfaced" },
      { path: "docs/c.md", match: "path" }
    ])
    expect(turn.trace).toMatchObject({
      outcome: "answered",
      proposal: null,
      turnId: "0af7651916cd43dd8448eb211c80319c:00f067aa0ba902b7"
    })
  })

  it("is awaiting approval when it ended on a proposal tool, whose result is the proposal; a failed root is an error", () => {
    const proposal = {
      tool: "propose_change",
      output: { id: "chg_1", title: "Scale", actions: [{ op: "scale" }] },
      error: null,
      callId: "c2",
      start: 5n
    }
    const turn = Either.getOrThrow(
      toTurn(
        read({
          answer: undefined,
          toolCalls: [{ tool: "read_config", error: null, callId: "c1", start: 1n }, proposal]
        }),
        "docs",
        docs
      )
    )
    expect(turn.trace.outcome).toBe("awaiting-approval")
    expect(turn.trace.proposal).toEqual({ id: "chg_1", summary: "Scale", actions: [{ op: "scale" }] })
    const later = toTurn(
      read({ answer: "done", toolCalls: [proposal, { tool: "apply_change", error: null, callId: "c3", start: 9n }] }),
      "docs",
      docs
    )
    expect(Either.getOrThrow(later).trace.outcome).toBe("answered")
    const failed = toTurn(read({ answer: undefined, failed: true, toolCalls: [proposal] }), "docs", docs)
    expect(Either.getOrThrow(failed).trace).toMatchObject({ outcome: "error", proposal: null })
    expect(Either.getOrThrow(failed).answer).toBe("")
  })

  it("is awaiting approval when calls wait for it: the first call's id, every waiting tool, each call an action", () => {
    const proposal = { tool: "propose_change", output: { id: "chg_1" }, error: null, callId: "c1", start: 5n }
    const waiting = [
      { tool: "apply_change", input: { replicas: 4 }, callId: "c2" },
      { tool: "restart", callId: "c3" }
    ]
    const turn = Either.getOrThrow(toTurn(read({ answer: undefined, toolCalls: [proposal], waiting }), "docs", docs))
    expect(turn.answer).toBe("")
    expect(turn.trace).toMatchObject({
      outcome: "awaiting-approval",
      proposal: {
        id: "c2",
        summary: "apply_change, restart",
        actions: [{ tool: "apply_change", input: { replicas: 4 } }, { tool: "restart" }]
      }
    })
    expect(turn.trace.toolExecutions.map((e) => e.tool)).toEqual(["propose_change"])
  })

  it("is an error when the run never finished, whatever it ended on or left waiting; its unrecorded answer is empty", () => {
    const proposal = { tool: "propose_change", output: { id: "chg_1" }, error: null, callId: "c1", start: 5n }
    const waiting = [{ tool: "apply_change", callId: "c2" }]
    const unfinished = read({ answer: undefined, finished: false, toolCalls: [proposal], waiting })
    const turn = Either.getOrThrow(toTurn(unfinished, "docs", docs))
    expect(turn).toEqual({ answer: "", trace: expect.objectContaining({ outcome: "error", proposal: null }) })
  })

  it("records the tokens the read turn used, whatever its outcome; a turn whose spans counted none has no usage", () => {
    const usage = { inputTokens: 42, outputTokens: 13 }
    expect(Either.getOrThrow(toTurn(read({ usage }), "docs", docs)).trace.usage).toEqual(usage)
    expect(Either.getOrThrow(toTurn(read({ usage, failed: true }), "docs", docs)).trace).toMatchObject({
      outcome: "error",
      usage
    })
    expect(Object.keys(Either.getOrThrow(toTurn(read({}), "docs", docs)).trace)).not.toContain("usage")
  })

  it("refuses an answered turn whose answer was not recorded, naming the attribute", () => {
    expect(toTurn(read({ answer: undefined }), "docs", docs)).toEqual(
      Either.left("gen_ai.output.messages: missing: it records the answer (are outputs recorded?)")
    )
  })
})

describe("the catalog's otel rules", () => {
  const check = (surfaces: unknown) => catalogProblems(Schema.decodeUnknownSync(Catalog)({ surfaces }))

  it("are checked: the pattern compiles, proposal tools are the surface's, agent names are not shared", () => {
    expect(check({
      docs: { endpoint: "/a", tools: ["search"], otel: { citationPattern: "([", proposalTools: ["propose"] } },
      ops: { endpoint: "/b", tools: [], otel: { agentNames: ["docs"], citationPattern: "x*" } }
    })).toEqual([
      {
        path: "$.surfaces.docs.otel.citationPattern",
        message: expect.stringMatching(/^not a valid regular expression: /)
      },
      {
        path: "$.surfaces.docs.otel.proposalTools[0]",
        message: "proposal tool \"propose\" is not one of the surface's tools (search)"
      },
      { path: "$.surfaces.ops.otel.citationPattern", message: "matches the empty text, so every answer would cite" },
      {
        path: "$.surfaces.ops.otel.agentNames[0]",
        message: "agent name \"docs\" is already surface \"docs\"'s; give one of them other otel.agentNames"
      }
    ])
    expect(check({ docs: { endpoint: "/a", tools: ["search"], otel: { citationPrefixes: ["docs/"] } } })).toEqual([])
  })
})
