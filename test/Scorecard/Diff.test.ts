import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import type { CaseResult } from "../../src/Schema/Result.js"
import { diffRuns } from "../../src/Scorecard/Diff.js"
import { renderDiffMarkdown } from "../../src/Scorecard/Render/DiffMarkdown.js"
import { renderDiffPretty, showRateChange } from "../../src/Scorecard/Render/DiffText.js"
import { summarize } from "../../src/Scorecard/Scorecard.js"

const setA = "sha256:" + "a".repeat(64)
const setB = "sha256:" + "b".repeat(64)
const ok = (id: string): CaseResult => ({
  id,
  surface: "docs",
  passed: true,
  expectations: [{ kind: "cites-only-surfaced", passed: true }]
})
const bad = (id: string, fact = "unsurfaced: /docs/x"): CaseResult => ({
  id,
  surface: "docs",
  passed: false,
  expectations: [{ kind: "cites-only-surfaced", passed: false, fact }]
})

describe("diffRuns", () => {
  const older = summarize([ok("a"), bad("b"), ok("c"), ok("gone")], setA, null)
  const newer = summarize([bad("a", "unsurfaced: /docs/new"), ok("b"), ok("c"), bad("fresh")], setA, null)

  it("names regressions with their new facts, fixes, new and removed cases, and the rate change", () => {
    const diff = Either.getOrThrow(diffRuns(older, newer))
    expect(diff.regressions.map((c) => [c.id, c.now.expectations[0]?.fact])).toEqual([["a", "unsurfaced: /docs/new"]])
    expect(diff.fixes.map((c) => c.id)).toEqual(["b"])
    expect(diff.added).toEqual([{ id: "fresh", surface: "docs", passed: false }])
    expect(diff.removed).toEqual([{ id: "gone", surface: "docs", passed: true }])
    expect(diff.passRate).toEqual({ from: 0.75, to: 0.5 })
    expect(diff.passed).toEqual({ from: 3, to: 2 })
  })

  it("refuses runs over different case sets unless told otherwise, naming no CLI flag", () => {
    const elsewhere = { ...newer, caseSet: setB }
    const refused = diffRuns(older, elsewhere, { names: ["old.json", "new.json"] })
    expect(Either.isLeft(refused) && refused.left.message).toBe(
      "old.json and new.json ran over different case sets (aaaaaaaaaaaa and bbbbbbbbbbbb): " +
        "a golden set was edited, filtered or sharded between them"
    )
    const allowed = Either.getOrThrow(diffRuns(older, elsewhere, { allowDifferentSets: true }))
    expect(allowed.sameSet).toBe(false)
    expect(allowed.regressions.map((c) => c.id)).toEqual(["a"])
  })

  it("renders for the terminal and for Markdown, with assistant text inert or escaped", () => {
    const hostile = summarize([bad("a", "unsurfaced: /docs/x\u001b[31m | <b>")], setA, null)
    const diff = Either.getOrThrow(diffRuns(older, hostile, { allowDifferentSets: true }))
    const text = renderDiffPretty(diff, { color: false, against: "old.json" })
    expect(text).toContain("regressed 1:")
    expect(text).not.toContain("\u001b")
    const markdown = renderDiffMarkdown(diff, "old.json")
    const row = markdown.split("\n").find((line) => line.startsWith("| docs"))!
    // The pipe in the fact is escaped: the row still has exactly three cells.
    expect(row.split(/(?<!\\)\|/).length - 2).toBe(3)
    expect(markdown).not.toContain("<b>")
  })

  it("shows the change between the rates as the scorecard shows them", () => {
    expect(showRateChange(18 / 22, 17 / 22)).toBe("−0.0454")
    expect(showRateChange(0.5, 0.75)).toBe("+0.2500")
    expect(showRateChange(0.5, 0.5)).toBe("±0")
  })
})
