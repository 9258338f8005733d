import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { inert } from "../../../src/Schema/Inert.js"
import type { RunResult } from "../../../src/Schema/Result.js"
import { renderMarkdown } from "../../../src/Scorecard/Render/Markdown.js"
import { hostile, plainRun, repeatedRun } from "./results.js"

// The summary read back: its heading, the sections under `###`, and the folded passing list.
interface Summary {
  readonly heading: string
  readonly intro: Array<string>
  readonly sections: Map<string, Array<string>>
  readonly details: Array<string>
  readonly rest: string
}

const readSummary = (markdown: string): Summary => {
  const [main, rest = ""] = markdown.split(/\n<\/details>(?:\n|$)/)
  const [body, details = ""] = main!.split("\n<details>\n")
  const [heading, ...lines] = body!.split("\n")
  const sections = new Map<string, Array<string>>()
  const intro: Array<string> = []
  let current = intro
  for (const line of lines) {
    if (line.startsWith("### ")) sections.set(line.slice(4), current = [])
    else if (line !== "") current.push(line)
  }
  return { heading: heading!, intro, sections, details: details.split("\n").filter((l) => l !== ""), rest: rest.trim() }
}

// A table trims the spaces and tabs around a cell's text.
const trimCell = (text: string): string => text.replace(/^[ \t]+|[ \t]+$/g, "")

// A table row's cells, split on the pipes that are not escaped.
const cells = (row: string): Array<string> => {
  const found: Array<string> = []
  let cell = ""
  for (let i = 0; i < row.length; i++) {
    const c = row[i]!
    if (c === "\\") {
      cell += c + (row[i + 1] ?? "")
      i++
    } else if (c === "|") {
      found.push(trimCell(cell))
      cell = ""
    } else cell += c
  }
  if (trimCell(cell) !== "") throw new Error(`row does not end with a pipe: ${row}`)
  return found.slice(1)
}

// What a cell or item reads as: escapes undone, `<br>` back to a line break, code spans unwrapped.
const read = (markdown: string): string =>
  markdown.replace(/<br>/g, "\n").replace(/\\(.)|\*\*|`/gs, (_, escaped: string | undefined) => escaped ?? "")

const tableRows = (lines: ReadonlyArray<string>): Array<Array<string>> => {
  const rows = lines.filter((l) => l.startsWith("|"))
  expect(rows[0]).toBe("| Case | Surface | Facts |")
  expect(rows[1]).toBe("| --- | --- | --- |")
  return rows.slice(2).map(cells)
}

// Raw HTML the summary may hold: its own line breaks and folding, and nothing from the results.
const strayHtml = (markdown: string): Array<string> =>
  [...markdown.replace(/\\./g, "").matchAll(/<\/?[^>]*>?/g)]
    .map((m) => m[0])
    .filter((tag) => !["<br>", "<details>", "</details>", "<summary>", "</summary>"].includes(tag))

describe("renderMarkdown", () => {
  it("heads the summary with the verdict, the count, the pass rate and the floor", () => {
    const summary = readSummary(renderMarkdown(plainRun))
    expect(summary.heading).toBe("## turn\\-eval: ❌ below the floor")
    expect(summary.intro).toEqual(["**3/5 passed** · pass rate **0.6000** · floor **0.8000**"])
    const holding = readSummary(renderMarkdown({ ...plainRun, floor: 0.6, passed: true }, { title: "evals" }))
    expect(holding.heading).toBe("## evals: ✅ holds the floor")
    expect(holding.intro).toEqual(["**3/5 passed** · pass rate **0.6000** · floor **0.6000**"])
  })

  it("says the K of a repeated run, its shard, and what no floor means", () => {
    const summary = readSummary(renderMarkdown(repeatedRun, { noFloor: "no floor for `--repeat 3` yet" }))
    expect(summary.heading).toBe("## turn\\-eval: ➖ no floor")
    expect(summary.intro).toEqual([
      "**1/4 passed** · pass rate **0.2500** · no floor for `--repeat 3` yet",
      "Each case ran 3× and passes only if every attempt passed (pass^3) · shard 2 of 4"
    ])
    expect(readSummary(renderMarkdown(repeatedRun)).intro[0]).toContain("no floor committed yet")
  })

  it("says where the full HTML report was written, under the verdict, and nothing of one when none was", () => {
    const summary = readSummary(renderMarkdown(plainRun, { htmlReport: "reports/turn-eval.html" }))
    expect(summary.intro).toEqual([
      "**3/5 passed** · pass rate **0.6000** · floor **0.8000**",
      "The full report: `reports/turn-eval.html` (an HTML page; in CI, upload it as an artifact)"
    ])
    expect(renderMarkdown(plainRun)).not.toContain("The full report")
    // A path that is not plain shows as the text it is, with nothing of it read as Markdown or HTML.
    const odd = renderMarkdown(plainRun, { htmlReport: "out/<b>run</b> [1].html" })
    const line = readSummary(odd).intro[1]!
    expect(read(line)).toBe("The full report: out/<b>run</b> [1].html (an HTML page; in CI, upload it as an artifact)")
    expect(strayHtml(odd)).toEqual([])
  })

  it("tables the failing cases with each failing fact", () => {
    const summary = readSummary(renderMarkdown(plainRun))
    expect([...summary.sections.keys()]).toEqual(["❌ Failing (2)"])
    const rows = tableRows(summary.sections.get("❌ Failing (2)")!)
    expect(rows.map((r) => r.length)).toEqual([3, 3])
    expect(rows.map((r) => r.map(read))).toEqual([
      [
        "docs.proration",
        "docs",
        `cites-only-surfaced: unsurfaced: /docs/billing/refunds-2023\nanswer-excludes: ${
          inert(`answer contains: "${hostile}"`).replace("\ud800", "\\ud800")
        }`
      ],
      ["ops.no-turn", "ops-agent", "turn error: HTTP 500 <html>&amp;</html>"]
    ])
  })

  it("keeps hostile text in its cell: no raw HTML, no pipe, line break or control character gets out", () => {
    const markdown = renderMarkdown(plainRun)
    expect(strayHtml(markdown)).toEqual([])
    expect(markdown).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/)
    expect(markdown).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])/)
    const table = readSummary(markdown).sections.get("❌ Failing (2)")!
    expect(table).toHaveLength(4)
    expect(strayHtml("x <b>y</b> <br>")).toEqual(["<b>", "</b>"])
  })

  it("keeps any text inside its table cell", () => {
    FastCheck.assert(
      FastCheck.property(FastCheck.string({ unit: "grapheme-ascii" }), FastCheck.fullUnicodeString(), (a, b) => {
        const text = a + b
        const result: RunResult = {
          ...plainRun,
          cases: [{
            id: "x",
            surface: "docs",
            passed: false,
            expectations: [{ kind: "answer-includes", passed: false, fact: text }]
          }]
        }
        const markdown = renderMarkdown(result)
        const [row] = tableRows(readSummary(markdown).sections.get("❌ Failing (1)")!)
        expect(row?.map(read)).toEqual(["x", "docs", trimCell(`answer-includes: ${inert(text)}`)])
        expect(strayHtml(markdown)).toEqual([])
      }),
      { numRuns: 300, seed: 11, examples: [["end\n", " "], ["\t| a \\", "\\"], ["", "<br>"]] }
    )
  })

  it("lists flaky cases apart from failing ones, with each attempt's facts", () => {
    const summary = readSummary(renderMarkdown(repeatedRun))
    expect([...summary.sections.keys()]).toEqual(["❌ Failing (2)", "⚠️ Flaky (1)"])
    expect(tableRows(summary.sections.get("❌ Failing (2)")!).map((r) => r.map(read))).toEqual([
      [
        "docs.broken",
        "docs",
        "attempt 1: answer-includes: answer lacks: \"Refund\"\nattempt 2: answer-includes: answer lacks: " +
        "\"Refund\"\nattempt 3: turn error: timeout after 30s"
      ],
      [
        "ops.down",
        "ops-agent",
        "attempt 1: turn error: connection refused\nattempt 2: turn error: connection refused\nattempt 3: turn error: connection refused"
      ]
    ])
    const flaky = summary.sections.get("⚠️ Flaky (1)")!.filter((l) => /^\s*- /.test(l))
    expect(flaky.map(read)).toEqual([
      "- docs.flaky (docs): 2 of 3 attempts passed",
      "  - attempt 1: passed",
      "  - attempt 2: failed: answer-includes: answer lacks: \"30 days\"",
      "  - attempt 3: passed"
    ])
  })

  it("folds the passing cases away", () => {
    const summary = readSummary(renderMarkdown(plainRun))
    expect(renderMarkdown(plainRun).endsWith("\n</details>")).toBe(true)
    expect(summary.details).toEqual([
      "<summary>✅ Passing (3)</summary>",
      "- `docs.refund-window` (`docs`)",
      "- `docs.rollback` (`docs`)",
      "- `ops.approval` (`ops-agent`)"
    ])
    const none: RunResult = { ...plainRun, cases: plainRun.cases.filter((c) => !c.passed) }
    expect(renderMarkdown(none)).not.toContain("<details>")
  })

  it("appends the extra sections at the end, in order", () => {
    const markdown = renderMarkdown(plainRun, {
      extraSections: ["### Compared with main\n\n1 regression", "### Notes"]
    })
    expect(readSummary(markdown).rest).toBe("### Compared with main\n\n1 regression\n\n### Notes")
    expect(markdown.endsWith("\n\n### Compared with main\n\n1 regression\n\n### Notes")).toBe(true)
    expect(renderMarkdown(plainRun, { extraSections: [] })).toBe(renderMarkdown(plainRun))
  })

  it("shows a name that is not a plain identifier escaped rather than as code", () => {
    const result: RunResult = {
      ...plainRun,
      cases: [{ id: "a`b|c", surface: "<img src=x>", passed: false, error: "down", expectations: [] }]
    }
    const markdown = renderMarkdown(result)
    const [row] = tableRows(readSummary(markdown).sections.get("❌ Failing (1)")!)
    expect(row).toEqual(["a\\`b\\|c", "\\<img src\\=x\\>", "**turn error**: down"])
    expect(strayHtml(markdown)).toEqual([])
  })
})
