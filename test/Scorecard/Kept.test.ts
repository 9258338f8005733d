/** A results file keeps each graded turn clipped by the limits facts have, the answer to 4,000 characters. */
import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { KeptTurn } from "../../src/Schema/Result.js"
import { keptTurn, maxKeptAnswer, maxKeptValue, surfacedItems } from "../../src/Scorecard/Kept.js"
import { cite, turn } from "../support/turns.js"

describe("keptTurn", () => {
  it("keeps an ordinary turn as it is", () => {
    const t = turn({
      toolExecutions: [{
        tool: "catalog",
        input: { service: "payments-api" },
        output: { owner: "team-billing" },
        error: null,
        durationMs: 12
      }],
      citations: [{ path: "/docs/a", quote: "roll back", match: "quote" }],
      proposal: { id: "chg_1", summary: "Scale", status: "pending", actions: [{ tool: "apply_change" }] },
      usage: { inputTokens: 10, outputTokens: 2 }
    }, "The answer.")
    expect(keptTurn(t)).toEqual({ answer: t.answer, trace: t.trace })
    expect(Schema.is(KeptTurn)(keptTurn(t))).toBe(true)
  })

  it("clips the answer, every string, each input and output, and counts the executions and citations past 20", () => {
    const huge = "x".repeat(10_000_000)
    const t = turn({
      turnId: huge,
      outcome: huge,
      toolExecutions: Array.from(
        { length: 25 },
        (_, i) => ({ tool: i === 0 ? huge : "search_docs", input: { query: huge }, output: huge, error: huge })
      ),
      citations: Array.from({ length: 30 }, () => cite(huge)),
      proposal: { id: huge, summary: huge, actions: Array.from({ length: 30 }, () => ({ tool: huge })) }
    }, huge)
    const kept = keptTurn(t)
    expect(kept.answer).toBe(`${"x".repeat(maxKeptAnswer)}…`)
    expect(kept.trace.turnId).toBe(`${"x".repeat(200)}…`)
    expect(kept.trace.outcome).toBe(`${"x".repeat(200)}…`)
    expect(kept.trace.toolExecutions).toHaveLength(20)
    expect(kept.trace.citations).toHaveLength(20)
    expect(kept.omitted).toEqual({ toolExecutions: 5, citations: 10 })
    const [first] = kept.trace.toolExecutions
    expect(first!.tool).toBe(`${"x".repeat(200)}…`)
    // A tool's input and output are kept to 8,000 characters of JSON, a whole retrieval's worth.
    expect(first!.input).toBe(`{"query":"${"x".repeat(maxKeptValue - 10)}…`)
    expect(first!.output).toBe(`${"x".repeat(maxKeptValue)}…`)
    expect(first!.error).toBe(`${"x".repeat(200)}…`)
    expect(kept.trace.proposal!.actions).toHaveLength(20)
    expect(JSON.stringify(kept).length).toBeLessThan(20 * 2 * maxKeptValue + 60_000)
    expect(Schema.is(KeptTurn)(kept)).toBe(true)
  })

  it("keeps a retrieval's whole output, past the 200 characters a fact shows", () => {
    const results = Array.from({ length: 12 }, (_, i) => ({
      path: `docs/page-${i}.md`,
      title: `Page ${i}`,
      snippet: "a paragraph of the page, as a search returns it ".repeat(4)
    }))
    const t = turn({ toolExecutions: [{ tool: "search_docs", input: { query: "refunds" }, output: { results } }] })
    const [kept] = keptTurn(t).trace.toolExecutions
    expect(JSON.stringify(kept!.output).length).toBeGreaterThan(2_000)
    expect(kept!.output).toEqual({ results })
  })

  it("keeps everything the turn surfaced, by the identifier fields: its tools' items, then its matched citations", () => {
    const t = turn({
      toolExecutions: [
        { tool: "search_docs", output: { results: [{ path: "/docs/a" }, { path: "/docs/b" }] } },
        { tool: "catalog", error: "timeout", output: { path: "/docs/errored" } }
      ],
      citations: [cite("/docs/a"), cite("/docs/c"), cite("/docs/old", "unsurfaced")]
    })
    const items = surfacedItems(t.trace, ["path"])
    // The tools' items first (the errored call's none), then the matched citations the tools did not hold.
    expect([...items].slice(0, 2).sort()).toEqual(["/docs/a", "/docs/b"])
    expect(items).toHaveLength(3)
    expect(items[2]).toBe("/docs/c")
    expect(keptTurn(t, items).surfaced).toEqual(items)
    const many = Array.from({ length: 25 }, (_, i) => `/docs/${i}`)
    expect(keptTurn(t, many).surfaced).toHaveLength(20)
    expect(keptTurn(t, many).omitted).toEqual({ surfaced: 5 })
    expect("surfaced" in keptTurn(t)).toBe(false)
  })
})
