import { describe, expect, it } from "@effect/vitest"
import type { CaseResult, RunResult } from "../../../src/Schema/Result.js"
import { caseLine, renderPretty, showCaseDuration, surfaceWidth } from "../../../src/Scorecard/Render/Pretty.js"
import { hostile, plainRun, repeatedRun } from "./results.js"

/** A run of these cases, its counts following from them, held to `floor`. */
const runOf = (cases: ReadonlyArray<CaseResult>, floor: number | null): RunResult => {
  const passedCount = cases.filter((c) => c.passed).length
  const passRate = passedCount / cases.length
  const passed = floor === null ? null : passRate >= floor
  return { ...plainRun, cases, total: cases.length, passedCount, passRate, floor, passed }
}

const passing = plainRun.cases[0]!

describe("renderPretty", () => {
  it("lists each case in order, its failing facts under it, then the tally below the floor", () => {
    const lines = renderPretty(plainRun, { color: false }).split("\n")
    expect(lines.slice(0, 3)).toEqual([
      "✓ docs       docs.refund-window",
      "✗ docs       docs.proration",
      "    cites-only-surfaced  unsurfaced: /docs/billing/refunds-2023"
    ])
    expect(lines.slice(4)).toEqual([
      "✓ docs       docs.rollback",
      "✗ ops-agent  ops.no-turn",
      "    turn error  HTTP 500 <html>&amp;</html>",
      "✓ ops-agent  ops.approval",
      "",
      "3/5 passed · pass rate 0.6000 · floor 0.8000 · below the floor"
    ])
    // The assistant's text stays on its line, escaped, never interpreted by the terminal.
    expect(lines[3]).toMatch(/^ {4}answer-excludes {2}answer contains: "\]\]> <script>/)
    expect(lines[3]).toContain("\\u0000\\u0007\\u001b[31m\\u007f")
    expect(lines[3]).toContain("@team #1\\r\\n- item\\n::error::injected\"")
    expect(lines[3]).not.toMatch(/[\u0000-\u001f\u007f]/)
    expect(hostile).toContain("\n::error::injected")
  })

  it("says a run that passed holds the floor, one at exactly its floor too", () => {
    const atFloor = runOf([passing, plainRun.cases[1]!], 0.5)
    expect(atFloor.passed).toBe(true)
    expect(renderPretty(atFloor, { color: false }).split("\n").at(-1)).toBe(
      "1/2 passed · pass rate 0.5000 · floor 0.5000 · holds the floor"
    )
  })

  it("says why a run has no floor: none committed yet, or the reason it was given", () => {
    const run = runOf([passing], null)
    expect(renderPretty(run, { color: false }).split("\n").at(-1)).toBe(
      "1/1 passed · pass rate 1.0000 · no floor committed yet: run `turn-eval ratchet` to set one"
    )
    const noFloor = "the floor is not applied to a --filter'ed run"
    const filtered = renderPretty(run, { color: false, noFloor })
    expect(filtered.split("\n").at(-1)).toBe(`1/1 passed · pass rate 1.0000 · ${noFloor}`)
  })

  it("marks flaky cases with each failing attempt's facts, and cases failing every attempt with the first", () => {
    expect(renderPretty(repeatedRun, { color: false })).toBe(
      [
        "✓ docs       docs.steady",
        "~ docs       docs.flaky",
        "    flaky  2 of 3 attempts passed",
        "    attempt 2  answer-includes  answer lacks: \"30 days\"",
        "✗ docs       docs.broken",
        "    failed  all 3 attempts; the first:",
        "    answer-includes  answer lacks: \"Refund\"",
        "✗ ops-agent  ops.down",
        "    failed  all 3 attempts; the first:",
        "    turn error  connection refused",
        "",
        "1/4 passed all 3 attempts · 1 flaky · pass rate 0.2500 · " +
        "no floor committed yet: run `turn-eval ratchet` to set one"
      ].join("\n")
    )
  })

  it("paints marks, surfaces, the tally and the verdict only when asked", () => {
    const held = runOf([passing], 0.8)
    expect(renderPretty(held, { color: true })).toBe(
      "\u001b[32m✓\u001b[0m \u001b[2mdocs\u001b[0m  docs.refund-window\n\n" +
        "\u001b[1m1/1 passed · pass rate 1.0000\u001b[0m · floor 0.8000 · \u001b[32mholds the floor\u001b[0m"
    )
    const below = renderPretty(plainRun, { color: true })
    expect(below).toContain("\u001b[31m✗\u001b[0m \u001b[2mdocs     \u001b[0m  docs.proration")
    expect(below).toContain("    \u001b[31mcites-only-surfaced\u001b[0m  unsurfaced: /docs/billing/refunds-2023")
    expect(below.endsWith("\u001b[31mbelow the floor\u001b[0m")).toBe(true)
    expect(renderPretty(repeatedRun, { color: true })).toContain("\u001b[33m~\u001b[0m")
    expect(renderPretty(plainRun, { color: false })).not.toContain("\u001b")
  })
})

describe("the case line", () => {
  it("pads the surface to the widest one shown, and shows a name clipped and inert", () => {
    expect(surfaceWidth(["docs", "ops-agent"])).toBe(9)
    expect(surfaceWidth([])).toBe(0)
    expect(caseLine(passing, 9, false)).toBe("✓ docs       docs.refund-window")
    const odd = { ...passing, id: "docs.\u001b[2Jx", surface: "s".repeat(300) }
    expect(caseLine(odd, surfaceWidth([odd.surface]), false)).toBe(`✓ ${"s".repeat(200)}…  docs.\\u001b[2Jx`)
    expect(surfaceWidth([odd.surface])).toBe(201)
  })

  it("shows a case's wall time in milliseconds, seconds, or minutes and seconds", () => {
    expect([0, 412, 999, 1000, 2345, 59_900, 60_000, 65_000, 600_400].map(showCaseDuration)).toEqual([
      "0ms",
      "412ms",
      "999ms",
      "1.0s",
      "2.3s",
      "59.9s",
      "1m00s",
      "1m05s",
      "10m00s"
    ])
  })
})
