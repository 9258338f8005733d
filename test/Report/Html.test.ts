/**
 * The HTML page as text, before any browser: the policy that allows exactly its own script and style,
 * data that no string can close, the cases failing first with their verdicts and counts, every string
 * clipped and made inert, and `--reporter html` on standard output as the one document there.
 */
import { createHash } from "node:crypto"
import { describe, expect, it } from "vitest"
import type { CaseResult, RunResult } from "../../src/Schema/Result.js"
import { cspHash, type PageData, pageData, renderHtml, scriptJson } from "../../src/Scorecard/Render/Html.js"
import { pageScript } from "../../src/Scorecard/Render/Html/Script.js"
import { pageStyle } from "../../src/Scorecard/Render/Html/Style.js"
import { hostile, plainRun, repeatedRun } from "../Scorecard/Render/results.js"
import { evalCliAsync } from "../support/cli.js"

const sha256 = (text: string) => createHash("sha256").update(text).digest("base64")

/** The page's parts: its policy, its inline scripts (type and text) and its styles. */
const parts = (html: string) => ({
  policy: /<meta http-equiv="Content-Security-Policy" content="([^"]*)">/.exec(html)?.[1],
  scripts: [...html.matchAll(/<script([^>]*)>([\s\S]*?)<\/script>/g)].map((m) => ({ attributes: m[1]!, text: m[2]! })),
  styles: [...html.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1]!)
})

const dataOf = (html: string): PageData => JSON.parse(parts(html).scripts[0]!.text) as PageData

describe("the HTML page", () => {
  it("allows by hash exactly its one script and its one style, and nothing else to load", () => {
    const html = renderHtml(plainRun)
    const { policy, scripts, styles } = parts(html)
    expect(scripts.map((s) => s.attributes)).toEqual([" type=\"application/json\" id=\"report-data\"", ""])
    expect(styles).toEqual([pageStyle])
    expect(scripts[1]!.text).toBe(pageScript)
    expect(policy).toBe(
      `default-src 'none'; script-src 'sha256-${sha256(pageScript)}'; style-src 'sha256-${
        sha256(pageStyle)
      }'; img-src data:; base-uri 'none'; form-action 'none'`
    )
    expect(cspHash("a")).toBe(`'sha256-${sha256("a")}'`)
    // The policy comes before anything it governs.
    expect(html.indexOf("Content-Security-Policy")).toBeLessThan(html.indexOf("<style>"))
    expect(html).not.toMatch(/\b(src|href)=/)
  })

  it("carries the page's own code with no character that could end its element or a template", () => {
    for (const code of [pageScript, pageStyle]) {
      expect(code).not.toMatch(/<\/(script|style)/i)
      expect(code).not.toContain("<!--")
    }
  })

  it("embeds data that no string can close or break: every < escaped, the line separators too", () => {
    const text = "</script><script>x()</script> <!-- \u2028\u2029 </SCRIPT"
    const json = scriptJson({ text })
    expect(json).not.toMatch(/[<\u2028\u2029]/)
    expect(JSON.parse(json)).toEqual({ text })
    const html = renderHtml({ ...plainRun, cases: [{ ...plainRun.cases[0]!, id: text, guards: hostile }] })
    // Still exactly the page's two scripts, however the data reads.
    expect(parts(html).scripts).toHaveLength(2)
    expect(html.match(/<\/script>/g)).toHaveLength(2)
  })

  it("lists the cases failing first — failed, errored, flaky, passed — each group in golden-set order", () => {
    const data = pageData(plainRun)
    expect(data.cases.map((c) => [c.id, c.verdict])).toEqual([
      ["docs.proration", "failed"],
      ["ops.no-turn", "errored"],
      ["docs.refund-window", "passed"],
      ["docs.rollback", "passed"],
      ["ops.approval", "passed"]
    ])
    expect(data.run.counts).toEqual({ failed: 1, errored: 1, flaky: 0, passed: 3 })
    expect(data.run.verdict).toBe("below")
    expect(data.surfaces).toEqual([{ name: "docs", passing: 2, failing: 1 }, {
      name: "ops-agent",
      passing: 1,
      failing: 1
    }])
    const repeated = pageData(repeatedRun)
    expect(repeated.run).toMatchObject({ verdict: "none", repeat: 3, shard: { index: 2, count: 4 } })
    // One case passes every attempt, one is flaky, one fails every attempt, one errors every attempt.
    expect(repeated.run.counts).toEqual({ failed: 1, errored: 1, flaky: 1, passed: 1 })
    const flaky = repeated.cases.find((c) => c.verdict === "flaky")!
    expect(flaky.attempts).toHaveLength(3)
    expect(flaky.passedAttempts).toBe(2)
  })

  it("clips every string and shows control, bidi and zero-width characters as their escapes", () => {
    const huge = "x".repeat(5_000_000)
    const c: CaseResult = {
      id: `id ${huge}`,
      surface: "docs\u202e",
      passed: false,
      question: `line one\r\nline two \u2067${huge}`,
      expectations: [{ kind: "answer-includes", passed: false, fact: `lacks \u200b${huge}` }],
      turn: {
        answer: `a\nb\u202ec\u0007`,
        trace: {
          turnId: "t",
          surface: "docs",
          outcome: "answered",
          citations: [{ path: "/x\u202e", match: "unsurfaced" }, { path: "/y", match: "path" }, {
            path: "/y",
            quote: "q",
            match: "quote"
          }],
          toolExecutions: [{ tool: "search", input: { q: huge }, output: { hits: [1, 2] }, error: "" }],
          proposal: null
        }
      }
    }
    const run: RunResult = { ...plainRun, total: 1, passedCount: 0, passRate: 0, cases: [c] }
    const html = renderHtml(run)
    expect(html.length).toBeLessThan(100_000)
    const shown = dataOf(html).cases[0]!
    expect(shown.id.length).toBe(4_001)
    expect(shown.surface).toBe("docs\\u202e")
    expect(shown.question!.startsWith("line one\nline two \\u2067xxx")).toBe(true)
    expect(shown.expectations[0]!.fact!.startsWith("lacks \\u200bxxx")).toBe(true)
    expect(shown.turn!.answer).toBe("a\nb\\u202ec\\u0007")
    expect(shown.turn!.citations[0]!.path).toBe("/x\\u202e")
    expect(shown.turn!.surfaced).toEqual(["/y"])
    // An empty error is no error; an input too long to keep is clipped JSON text.
    const execution = shown.turn!.executions[0]!
    expect(execution.error).toBeUndefined()
    expect(execution.input!.endsWith("…")).toBe(true)
    expect(execution.output).toBe(JSON.stringify({ hits: [1, 2] }, null, 2))
  })

  it("marks, with a comparison, the regressions and fixes with the older run's facts", () => {
    const then: CaseResult = {
      ...plainRun.cases[0]!,
      passed: false,
      expectations: [{ kind: "cites", passed: false, fact: "not cited: /x" }]
    }
    const now = plainRun.cases[0]!
    const regressedNow = plainRun.cases[1]!
    const data = pageData(plainRun, {
      diff: {
        against: "main.json",
        diff: {
          regressions: [{
            id: regressedNow.id,
            surface: "docs",
            now: regressedNow,
            then: { ...regressedNow, passed: true, expectations: [] }
          }],
          fixes: [{ id: now.id, surface: "docs", now, then }],
          added: [],
          removed: [],
          passRate: { from: 0.5, to: 0.6 },
          passed: { from: 2, to: 3 },
          total: { from: 5, to: 5 },
          sameSet: true,
          repeat: { from: 1, to: 1 }
        }
      }
    })
    expect(data.compare).toEqual({
      against: "main.json",
      passRate: 0.5,
      passRateShown: "0.5000",
      passed: 2,
      total: 5,
      regressions: 1,
      fixes: 1,
      sameSet: true
    })
    expect(data.cases.find((c) => c.id === now.id)!.change).toEqual({
      kind: "fix",
      then: { passed: false, facts: [{ kind: "cites", fact: "not cited: /x" }] }
    })
    expect(data.cases.find((c) => c.id === regressedNow.id)!.change).toEqual({
      kind: "regression",
      then: { passed: true, facts: [] }
    })
  })

  it("is written to standard output as the one document there by --reporter html", async () => {
    const run = await evalCliAsync(["run", "--fixtures", "cases/fixtures", "--reporter", "html"])
    expect(run.code, run.stderr).toBe(0)
    expect(run.stdout.startsWith("<!doctype html>\n")).toBe(true)
    expect(run.stdout.trimEnd().endsWith("</html>")).toBe(true)
    // The scorecard is not printed into the document.
    expect(run.stdout).not.toMatch(/^\d+\/\d+ passed · pass rate/m)
    const twice = await evalCliAsync([
      "run",
      "--fixtures",
      "cases/fixtures",
      "--reporter",
      "html",
      "--reporter",
      "markdown"
    ])
    expect(twice.code).toBe(2)
    expect(twice.stderr).toContain("html and markdown would both write to standard output")
    const option = await evalCliAsync(["run", "--fixtures", "cases/fixtures", "--reporter", "html:inline=r.html"])
    expect(option.code).toBe(2)
    expect(option.stderr).toContain("html has no option \"inline\"; it takes none")
  })
})
