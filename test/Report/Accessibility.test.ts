/**
 * The HTML report checked with axe-core inside the same headless Chromium, light and dark: the golden
 * set's page with a failing case open (its trace, its citations), and a repeated run compared with an
 * earlier one and charted against the floor's history (attempts side by side, the marks, the chart).
 * No serious or critical violation is allowed.
 */
import { Schema } from "effect"
import { copyFileSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser, Page } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { RunResult } from "../../src/Schema/Result.js"
import { diffRuns } from "../../src/Scorecard/Diff.js"
import { renderHtml } from "../../src/Scorecard/Render/Html.js"
import { foreignRequests, launchBrowser, openReport } from "../support/browser.js"
import { evalCliAsync, scratchProject } from "../support/cli.js"

const axeSource = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8")

interface Violation {
  readonly id: string
  readonly impact: string | null
  readonly help: string
  readonly nodes: ReadonlyArray<{ readonly target: ReadonlyArray<unknown> }>
}

/** axe's violations on the page as it stands, the serious and critical ones. */
const severeViolations = async (page: Page): Promise<ReadonlyArray<string>> => {
  // Evaluated through the browser's debugging protocol, which the page's own policy does not govern.
  await page.evaluate(axeSource)
  const violations = (await page.evaluate(
    "axe.run(document, { resultTypes: ['violations'] }).then((r) => r.violations)"
  )) as ReadonlyArray<Violation>
  return violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => `${v.impact} ${v.id}: ${v.help} at ${v.nodes.map((n) => JSON.stringify(n.target)).join(", ")}`)
}

let browser: Browser
const work = mkdtempSync(join(tmpdir(), "eval-html-axe-"))
let golden: string
let repeated: string

beforeAll(async () => {
  browser = await launchBrowser()
  const project = scratchProject()
  copyFileSync("baseline.json", join(project, "baseline.json"))
  const run = await evalCliAsync(
    ["run", "--fixtures", "cases/fixtures", "--reporter", "html=report.html", "--json", "results.json"],
    { cwd: project }
  )
  expect(run.code, run.stderr).toBe(0)
  golden = join(project, "report.html")
  // A --repeat 2 run in which one case is flaky and one errored, compared with the plain run.
  const plain = Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(join(project, "results.json"), "utf8")))
  const [first, second, ...rest] = plain.cases
  const flaky = {
    ...first!,
    passed: false,
    attempts: [
      { passed: true, expectations: first!.expectations, ...(first!.turn === undefined ? {} : { turn: first!.turn }) },
      {
        passed: false,
        expectations: [{ kind: "answer-includes" as const, passed: false, fact: "answer lacks: \"30 days\"" }],
        ...(first!.turn === undefined ? {} : { turn: first!.turn })
      }
    ]
  }
  const errored = {
    ...second!,
    passed: false,
    error: "HTTP 500",
    expectations: [],
    attempts: [{ passed: false, error: "HTTP 500", expectations: [] }, {
      passed: false,
      error: "HTTP 502",
      expectations: []
    }]
  }
  const { turn: _turn, ...erroredWithoutTurn } = errored
  const cases = [flaky, erroredWithoutTurn, ...rest.map((c) => ({ ...c, attempts: [attemptOf(c), attemptOf(c)] }))]
  const passedCount = cases.filter((c) => c.passed).length
  const newer = Schema.decodeUnknownSync(RunResult)({
    ...plain,
    repeat: 2,
    cases,
    passedCount,
    passRate: passedCount / cases.length
  })
  const diff = diffRuns(plain, newer, { allowDifferentSets: true })
  if (diff._tag === "Left") throw diff.left
  repeated = join(work, "repeated.html")
  writeFileSync(
    repeated,
    renderHtml(newer, {
      diff: { diff: diff.right, against: "main.json" },
      history: [{ date: "2026-10-01", from: null, to: 0.75, passed: 3, total: 4 }, {
        date: "2026-11-30",
        from: 0.75,
        to: 0.8181,
        passed: 18,
        total: 22
      }]
    })
  )
}, 60_000)

const attemptOf = (c: RunResult["cases"][number]) => ({
  passed: c.passed,
  expectations: c.expectations,
  ...(c.error === undefined ? {} : { error: c.error }),
  ...(c.turn === undefined ? {} : { turn: c.turn })
})

afterAll(async () => {
  await browser?.close()
})

describe("the HTML report's accessibility, by axe-core", () => {
  for (const colorScheme of ["light", "dark"] as const) {
    it(`has no serious or critical violation on the golden set's page, a failing case open (${colorScheme})`, async () => {
      const opened = await openReport(browser, golden, { colorScheme })
      // The page follows the system's setting.
      expect(await opened.page.evaluate("getComputedStyle(document.documentElement).backgroundColor")).toBe(
        colorScheme === "light" ? "rgb(255, 255, 255)" : "rgb(13, 17, 23)"
      )
      const toggle = opened.page.locator("li.case.failed .toggle").first()
      await toggle.click()
      await opened.page.locator("li.case.failed .detail summary").first().click()
      expect(await severeViolations(opened.page)).toEqual([])
      expect(foreignRequests(opened)).toEqual([])
      expect(opened.errors).toEqual([])
    })

    it(`has no serious or critical violation with attempts side by side, the compare marks and the chart (${colorScheme})`, async () => {
      const opened = await openReport(browser, repeated, { colorScheme })
      const { page } = opened
      await page.locator("li.case.flaky .toggle").first().click()
      await page.locator("li.case.errored .toggle").first().click()
      expect(await page.locator("li.case.flaky .attempt").count()).toBe(2)
      expect(await page.locator(".trend svg").count()).toBe(1)
      expect(await page.locator(".case-head .badge.regression").count()).toBeGreaterThan(0)
      expect(await severeViolations(page)).toEqual([])
      expect(foreignRequests(opened)).toEqual([])
      expect(opened.errors).toEqual([])
    })
  }
})
