/**
 * The HTML report in a real headless Chromium, opened from `file://`: the committed golden set's
 * offline run through the built CLI (`run --reporter html=FILE`, `merge`, `run --compare`), its verdict
 * and counts, a failing case's facts and trace, the filters, a link to a case, the comparison's marks,
 * the floor's history, a version 1 results file — and on every page no request beyond the file itself
 * and no console error. The golden run's page is also the screenshot in the docs.
 */
import { Schema } from "effect"
import { copyFileSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { type CaseResult, RunResult } from "../../src/Schema/Result.js"
import { pageVerdict, renderHtml } from "../../src/Scorecard/Render/Html.js"
import { showRate } from "../../src/Scorecard/Scorecard.js"
import { foreignRequests, launchBrowser, type OpenedPage, openReport, viewport } from "../support/browser.js"
import { evalCliAsync, scratchProject } from "../support/cli.js"

const readResults = (file: string): RunResult =>
  Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(file, "utf8")))

let browser: Browser
const work = mkdtempSync(join(tmpdir(), "eval-html-"))
const project = scratchProject()
// The committed floor too, so the run is held to it as in a checkout.
copyFileSync("baseline.json", join(project, "baseline.json"))
let results: RunResult
let golden: OpenedPage

/** Opens a report and, once the test is done with it, holds it to no foreign request and no error. */
const opened: Array<OpenedPage> = []
const open = async (file: string, options: Parameters<typeof openReport>[2] = {}): Promise<OpenedPage> => {
  const page = await openReport(browser, file, options)
  opened.push(page)
  return page
}

// The README's command, run as it is shown; the same run's results file is what the page is checked against.
const readmeCommand = readFileSync("README.md", "utf8").split("\n")
  .find((line) => line.startsWith("npx turn-eval run --fixtures cases/fixtures --reporter html="))!
const goldenArgs = readmeCommand.replace(/^npx turn-eval /, "").split(" ")
const goldenPage = join(project, goldenArgs.find((arg) => arg.startsWith("html="))!.slice("html=".length))

beforeAll(async () => {
  browser = await launchBrowser()
  const shown = await evalCliAsync(goldenArgs, { cwd: project })
  expect(shown.code, shown.stderr).toBe(0)
  const run = await evalCliAsync(["run", "--fixtures", "cases/fixtures", "--json", "results.json"], { cwd: project })
  expect(run.code, run.stderr).toBe(0)
  results = readResults(join(project, "results.json"))
  golden = await open(goldenPage)
}, 60_000)

afterAll(async () => {
  await browser?.close()
})

const failing = (): ReadonlyArray<CaseResult> => results.cases.filter((c) => !c.passed)
const countOf = (verdict: string) => results.cases.filter((c) => pageVerdict(c) === verdict).length
const rowOf = (page: OpenedPage, id: string) =>
  page.page.locator("li.case").filter({ has: page.page.getByRole("button", { name: id, exact: true }) })

describe("the HTML report of the golden set's offline run", () => {
  it("puts the verdict first: holds or below, the pass rate against the floor, the counts, the case set, shard and repeat", async () => {
    const { page } = golden
    expect(results.floor).not.toBeNull()
    const header = page.locator("header.verdict")
    await expect.poll(() => header.locator(".headline").textContent()).toBe(
      results.passed ? "✓ Holds the floor" : "✗ Below the floor"
    )
    const text = (await header.textContent())!
    expect(text).toContain(`Pass rate ${showRate(results.passRate)} (${results.passedCount}/${results.total})`)
    expect(text).toContain(`floor ${showRate(results.floor!)}`)
    const stats = await header.locator(".stats > div").evaluateAll((items) =>
      items.map((item) => [item.querySelector("dt")!.textContent, item.querySelector("dd")!.textContent])
    )
    expect(Object.fromEntries(stats)).toEqual({
      Passed: String(countOf("passed")),
      Failed: String(countOf("failed")),
      Errored: String(countOf("errored")),
      Flaky: String(countOf("flaky")),
      Duration: "under 1 s",
      "Case set": results.caseSet.slice("sha256:".length, "sha256:".length + 12),
      Shard: "the whole set",
      Repeat: "1×"
    })
    expect(await header.locator("code[title]").getAttribute("title")).toBe(results.caseSet)
    expect(await page.title()).toBe(`turn-eval: ${results.passedCount}/${results.total} passed · holds the floor`)
  })

  it("draws a bar per surface of its passing and failing cases", async () => {
    const surfaces = [...new Set(results.cases.map((c) => c.surface))].sort()
    const bars = await golden.page.locator(".surfaces li .bar").evaluateAll((items) =>
      items.map((b) => b.getAttribute("aria-label"))
    )
    expect(bars).toEqual(surfaces.map((s) => {
      const of = results.cases.filter((c) => c.surface === s)
      return `${s}: ${of.filter((c) => c.passed).length} passing · ${of.filter((c) => !c.passed).length} failing`
    }))
  })

  it("lists the cases failing first, each with its surface, what it guards, its tags and each expectation with its fact", async () => {
    const { page } = golden
    const ids = await page.locator("li.case .toggle").allTextContents()
    expect(ids).toEqual([...failing(), ...results.cases.filter((c) => c.passed)].map((c) => c.id))
    const first = failing()[0]!
    const row = rowOf(golden, first.id)
    expect(await row.locator(".badge.surface").textContent()).toBe(`surface: ${first.surface}`)
    expect(await row.locator(".guards").first().textContent()).toBe(`Guards: ${first.guards}`)
    expect(await row.locator(".tags li").allTextContents()).toEqual(first.tags)
    const shown = await row.locator(".expectations li").evaluateAll((items) =>
      items.map((
        li
      ) => [li.querySelector(".kind")!.textContent, li.className, li.querySelector(".fact")?.textContent ?? null])
    )
    expect(shown).toEqual(first.expectations.map((e) => [e.kind, e.passed ? "held" : "broke", e.fact ?? null]))
    expect(await row.locator(".badge").first().textContent()).toBe("✗ failed")
  })

  it("opens a failing case: its question, its answer as text, and its trace as a timeline with the errored call marked", async () => {
    // The case whose tool errored.
    const c = failing().find((f) =>
      f.turn?.trace.toolExecutions.some((e) => typeof e.error === "string" && e.error !== "")
    )!
    expect(c, "a failing case with an errored tool").toBeDefined()
    const row = rowOf(golden, c.id)
    const toggle = row.getByRole("button", { name: c.id, exact: true })
    expect(await row.locator(".detail").isHidden()).toBe(true)
    await toggle.click()
    expect(await toggle.getAttribute("aria-expanded")).toBe("true")
    const detail = row.locator(".detail")
    await detail.waitFor({ state: "visible" })
    expect(await detail.locator("h4 + p").first().textContent()).toBe(c.question)
    expect(await detail.locator(".answer").textContent()).toBe(c.turn!.answer)
    const steps = detail.locator(".timeline > li")
    const executions = c.turn!.trace.toolExecutions
    expect(await steps.count()).toBe(executions.length)
    for (const [i, e] of executions.entries()) {
      const step = steps.nth(i)
      expect(await step.locator("code").first().textContent()).toBe(e.tool)
      const errored = typeof e.error === "string" && e.error !== ""
      expect(await step.getAttribute("class")).toBe(errored ? "errored" : "ran")
      if (errored) expect(await step.locator(".error").textContent()).toBe(`✗ errored: ${e.error}`)
      // The input is folded until asked for.
      const input = step.locator("details").filter({ hasText: "input" })
      expect(await input.locator("pre").isVisible()).toBe(false)
      await input.locator("summary").click()
      expect(JSON.parse((await input.locator("pre").textContent())!)).toEqual(e.input)
    }
    expect(await detail.textContent()).toContain(`outcome ${c.turn!.trace.outcome}`)
    await toggle.press("Enter")
    expect(await detail.isHidden()).toBe(true)
  })

  it("marks each citation path, quote or unsurfaced, beside the surfaced items", async () => {
    const c = failing().find((f) => f.turn?.trace.citations.some((x) => x.match === "unsurfaced"))!
    const row = rowOf(golden, c.id)
    await row.getByRole("button", { name: c.id, exact: true }).click()
    const citations = await row.locator("ul[aria-label=citations] > li").evaluateAll((items) =>
      items.map((li) => [li.querySelector(".badge")!.textContent, li.querySelector("code")!.textContent])
    )
    expect(citations).toEqual(c.turn!.trace.citations.map((x) => [x.match, x.path]))
    // Everything the turn surfaced, as the results kept it: its tools' items, not only the matched citations.
    const surfaced = await row.locator("ul[aria-label='surfaced items'] li").allTextContents()
    expect(surfaced).toEqual(c.turn!.surfaced)
    const matched = c.turn!.trace.citations.filter((x) => x.match !== "unsurfaced").map((x) => x.path)
    expect(surfaced).toEqual(expect.arrayContaining(matched))
    expect(surfaced.length).toBeGreaterThan(matched.length)
  })

  it("filters by verdict, surface, tag and free text, and says how many it shows", async () => {
    const { page } = golden
    const shownIds = () => page.locator("li.case .toggle").allTextContents()
    const status = page.getByRole("status")
    await page.getByLabel(/^Passing/).uncheck()
    expect(await shownIds()).toEqual(failing().map((c) => c.id))
    expect(await status.textContent()).toBe(`Showing ${failing().length} of ${results.total} cases`)
    await page.getByLabel(/^Passing/).check()
    await page.getByLabel(/^Failing/).uncheck()
    expect(await shownIds()).toEqual(results.cases.filter((c) => c.passed).map((c) => c.id))
    await page.getByLabel(/^Failing/).check()

    const surface = results.cases[results.cases.length - 1]!.surface
    await page.getByLabel("Surface", { exact: true }).selectOption(surface)
    const ofSurface = (await shownIds()).sort()
    expect(ofSurface).toEqual(results.cases.filter((c) => c.surface === surface).map((c) => c.id).sort())
    await page.getByLabel("Surface", { exact: true }).selectOption("")

    const tag = failing()[0]!.tags![0]!
    await page.getByLabel("Tag", { exact: true }).selectOption(tag)
    expect((await shownIds()).sort()).toEqual(
      results.cases.filter((c) => c.tags?.includes(tag)).map((c) => c.id).sort()
    )
    await page.getByLabel("Tag", { exact: true }).selectOption("")

    // Free text finds a case by a word of its fact, whatever the case; Escape clears it.
    const fact = failing()[0]!.expectations.find((e) => !e.passed)!.fact!
    const find = page.getByLabel("Find", { exact: true })
    await find.fill(fact.toUpperCase())
    await expect.poll(shownIds).toEqual(
      results.cases.filter((c) => c.expectations.some((e) => e.fact?.includes(fact))).map((c) => c.id)
    )
    await find.press("Escape")
    await expect.poll(async () => (await shownIds()).length).toBe(results.total)
    await find.fill("no case says this")
    await expect.poll(() => status.textContent()).toBe(`Showing 0 of ${results.total} cases`)
    await find.fill("")
    await expect.poll(async () => (await shownIds()).length).toBe(results.total)
  })

  it("can be used from the keyboard: / finds, a case's button opens and closes it with Enter and Space", async () => {
    const { page } = golden
    await page.locator("body").click({ position: { x: 2, y: 2 } })
    await page.keyboard.press("/")
    expect(await page.evaluate("document.activeElement.id")).toBe("filter-text")
    const first = failing()[0]!
    const toggle = rowOf(golden, first.id).getByRole("button", { name: first.id, exact: true })
    const before = await toggle.getAttribute("aria-expanded")
    await toggle.focus()
    await page.keyboard.press("Enter")
    expect(await toggle.getAttribute("aria-expanded")).toBe(before === "true" ? "false" : "true")
    await page.keyboard.press("Space")
    expect(await toggle.getAttribute("aria-expanded")).toBe(before)
  })

  it("opens the case a link names (#case=ID), scrolled to and focused, even when the filters hid it", async () => {
    // A one-question case: its row opens to its answer.
    const target = results.cases.filter((c) => c.passed && c.turns === undefined).at(-1)!
    const linked = await open(goldenPage, { hash: `#case=${encodeURIComponent(target.id)}` })
    const row = rowOf(linked, target.id)
    const toggle = row.getByRole("button", { name: target.id, exact: true })
    expect(await toggle.getAttribute("aria-expanded")).toBe("true")
    expect(await row.locator(".answer").textContent()).toBe(target.turn!.answer)
    expect(await linked.page.evaluate("document.activeElement.textContent")).toBe(target.id)
    expect(await row.isVisible()).toBe(true)
    // Each case's link is that link; following one with the case filtered out shows it again.
    expect(await row.getByRole("link").getAttribute("href")).toBe(`#case=${encodeURIComponent(target.id)}`)
    await linked.page.getByLabel(/^Passing/).uncheck()
    const other = results.cases.filter((c) => c.passed)[0]!
    await linked.page.evaluate(`location.hash = ${JSON.stringify(`#case=${encodeURIComponent(other.id)}`)}`)
    await expect.poll(() =>
      rowOf(linked, other.id).getByRole("button", { name: other.id, exact: true }).getAttribute("aria-expanded")
    )
      .toBe("true")
    expect(await linked.page.getByLabel(/^Passing/).isChecked()).toBe(true)
  })

  it("shows a conversation case's steps in order, each with its message, its facts and its own turn", async () => {
    const target = results.cases.find((c) => c.id === "agent.scale-approved-runs-as-proposed")!
    const recorded = JSON.parse(readFileSync(join(project, `cases/fixtures/${target.id}.json`), "utf8")) as {
      turns: ReadonlyArray<{ answer: string; trace: { turnId: string } }>
    }
    const page = await open(goldenPage, { hash: `#case=${encodeURIComponent(target.id)}` })
    const row = rowOf(page, target.id)
    // The row names the failing fact by its step.
    const broke = row.locator(".case-head ~ ul.expectations li.broke")
    expect(await broke.locator(".kind").allTextContents()).toEqual(["turn 2 (approve) · runs-as-proposed"])
    expect(await broke.locator(".fact").textContent()).toBe(target.expectations.find((e) => !e.passed)!.fact)
    const detail = row.locator(".detail")
    expect(await detail.getByRole("heading", { name: "Conversation" }).count()).toBe(1)
    expect(await detail.getByRole("heading", { name: "Question" }).count()).toBe(0)
    const steps = detail.locator(".attempt")
    expect(await steps.locator("h5").allTextContents()).toEqual(["Turn 1 (ask)", "Turn 2 (approve)"])
    expect(await steps.nth(0).locator("p").first().textContent()).toBe("Scale search-api to 10 replicas in production.")
    expect(await steps.locator(".answer").allTextContents()).toEqual(recorded.turns.map((t) => t.answer))
    // Each step's trace is its own: the approval's turn ran apply_change, with the count it ran.
    expect(await steps.nth(1).locator(".timeline code").allTextContents()).toEqual(["apply_change"])
    expect(await steps.nth(1).locator(".facts-line").first().textContent()).toContain(recorded.turns[1]!.trace.turnId)
    expect(await steps.nth(1).locator("li.broke .kind").allTextContents()).toEqual(["runs-as-proposed"])
  })

  it("is the screenshot in the docs, at a fixed viewport", async () => {
    // A fresh page, scrolled to the top with nothing opened, as a reader first sees it.
    const fresh = await open(goldenPage)
    // The page settles to one picture: Chromium's first, and now and then a later one, can differ from
    // the next in a few pixels, so it is taken until two in a row agree.
    let png = await fresh.page.screenshot()
    let settled = false
    for (let tries = 0; tries < 10 && !settled; tries++) {
      const next = await fresh.page.screenshot()
      settled = next.equals(png)
      png = next
    }
    expect(settled).toBe(true)
    const file = "docs/report.png"
    if (!existsSync(file) || !readFileSync(file).equals(png)) writeFileSync(file, png)
    expect(png.subarray(1, 4).toString()).toBe("PNG")
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([viewport.width, viewport.height])
  })
})

describe("the HTML report of other runs", () => {
  it("is written by merge, from the shards' results", async () => {
    for (const i of [1, 2]) {
      const run = await evalCliAsync([
        "run",
        "--fixtures",
        "cases/fixtures",
        "--shard",
        `${i}/2`,
        "--json",
        `shard-${i}.json`
      ], {
        cwd: project
      })
      expect(run.code, run.stderr).toBe(0)
    }
    const merge = await evalCliAsync(["merge", "shard-1.json", "shard-2.json", "--reporter", "html=merged.html"], {
      cwd: project
    })
    expect(merge.code, merge.stderr).toBe(0)
    const { page } = await open(join(project, "merged.html"))
    expect(await page.locator("li.case").count()).toBe(results.total)
    expect(await page.locator("header.verdict").textContent()).toContain(`Pass rate ${showRate(results.passRate)}`)
    expect(await page.locator(".stats").textContent()).toContain("Durationnot recorded")
  })

  it("names no path of the machine, given the files by their absolute paths", async () => {
    writeFileSync(join(project, "older-absolute.json"), JSON.stringify(results))
    const run = await evalCliAsync(
      [
        "run",
        "--fixtures",
        join(project, "cases/fixtures"),
        "--compare",
        join(project, "older-absolute.json"),
        "--reporter",
        "html=absolute.html"
      ],
      { cwd: project }
    )
    expect(run.code, run.stderr).toBe(0)
    const html = readFileSync(join(project, "absolute.html"), "utf8")
    expect(html).not.toContain(project)
    const page = await open(join(project, "absolute.html"))
    expect(await page.page.locator("header.verdict .note").textContent()).toMatch(
      /^Compared with older-absolute\.json:/
    )
  })

  it("marks, with --compare, the regressions and the fixes with the older run's facts", async () => {
    // An older run in which one of today's failures passed and two of today's passes failed.
    const regressed = failing()[0]!
    const fixed = results.cases.filter((c) => c.passed).slice(0, 2)
    const older = {
      ...results,
      cases: results.cases.map((c): CaseResult => {
        if (c.id === regressed.id) {
          return { ...c, passed: true, expectations: c.expectations.map((e) => ({ kind: e.kind, passed: true })) }
        }
        if (fixed.some((f) => f.id === c.id)) {
          return {
            ...c,
            passed: false,
            expectations: [{ kind: "answer-includes", passed: false, fact: `answer lacks: "${c.id} then"` }]
          }
        }
        return c
      })
    }
    const olderPassed = older.cases.filter((c) => c.passed).length
    Object.assign(older, { passedCount: olderPassed, passRate: olderPassed / older.total })
    writeFileSync(join(project, "older.json"), JSON.stringify(older))
    const run = await evalCliAsync(
      ["run", "--fixtures", "cases/fixtures", "--compare", "older.json", "--reporter", "html=compared.html"],
      { cwd: project }
    )
    expect(run.code, run.stderr).toBe(0)
    const page = await open(join(project, "compared.html"))
    const note = await page.page.locator("header.verdict .note").textContent()
    expect(note).toBe(
      `Compared with older.json: pass rate ${showRate(older.passRate)} → ${
        showRate(results.passRate)
      } (${older.passedCount}/${older.total} then); 1 regression, 2 fixes.`
    )
    const regressedRow = rowOf(page, regressed.id)
    expect(await regressedRow.locator(".case-head .badge.regression").textContent()).toBe("regressed")
    expect(await regressedRow.locator(".change").textContent()).toBe("regressed since older.json: it passed there.")
    for (const f of fixed) {
      const row = rowOf(page, f.id)
      expect(await row.locator(".case-head .badge.fix").textContent()).toBe("fixed")
      expect(await row.locator(".change .expectations li").allTextContents()).toEqual([
        `✗failed: answer-includesanswer lacks: "${f.id} then"`
      ])
    }
    expect(await page.page.locator(".case-head .badge.regression, .case-head .badge.fix").count()).toBe(3)
    // The previous run's rate is on the chart beside this one's.
    expect(await page.page.locator(".trend svg title").textContent()).toContain(
      `the previous run's pass rate was ${showRate(older.passRate)}; this run's is ${showRate(results.passRate)}`
    )
  })

  it("charts the floor's history from the baseline, with a table of its moves", async () => {
    const history = [
      { date: "2026-09-01", from: null, to: 0.5, passed: 11, total: 22 },
      { date: "2026-10-15", from: 0.5, to: 0.7727, passed: 17, total: 22 },
      { date: "2026-11-30", from: 0.7727, to: 0.8181, passed: 18, total: 22 }
    ]
    const file = join(work, "history.html")
    writeFileSync(file, renderHtml(results, { history }))
    const { page } = await open(file)
    expect(await page.locator(".trend h2").textContent()).toBe("The floor over time")
    expect(await page.locator(".trend svg title").textContent()).toBe(
      `The floor rose from 0.5000 to 0.8181 over 3 moves; this run's is ${showRate(results.passRate)}.`
    )
    expect(await page.locator(".trend circle.step").count()).toBe(history.length)
    const path = await page.locator(".trend path.floor-line").getAttribute("d")
    expect(path!.match(/V/g)).toHaveLength(history.length)
    await page.getByText("The floor's moves as a table").click()
    expect(await page.locator(".trend tbody tr").evaluateAll((rows) => rows.map((r) => r.textContent))).toEqual([
      "2026-09-01set to 0.500011/22 passed",
      "2026-10-150.5000 → 0.772717/22 passed",
      "2026-11-300.7727 → 0.818118/22 passed"
    ])
  })

  it("renders a version 1 results file, which kept no turns, saying so", async () => {
    const v1 = {
      ...results,
      version: 1 as const,
      cases: results.cases.map(({ question: _q, guards: _g, tags: _t, turn: _turn, durationMs: _d, ...c }) => c)
    }
    delete (v1 as { durationMs?: number }).durationMs
    const file = join(work, "v1.html")
    writeFileSync(file, renderHtml(Schema.decodeUnknownSync(RunResult)(v1)))
    const { page } = await open(file)
    expect(await page.locator("header.verdict .note").textContent()).toContain("version 1")
    expect(await page.locator("li.case").count()).toBe(results.total)
    const first = failing()[0]!
    const row = rowOf({ page } as OpenedPage, first.id)
    expect(await row.locator(".expectations li .fact").allTextContents()).toEqual(
      first.expectations.flatMap((e) => (e.fact === undefined ? [] : [e.fact]))
    )
    await row.getByRole("button", { name: first.id, exact: true }).click()
    expect(await row.locator(".detail").textContent()).toBe(
      `QuestionThe question was not kept (results version 1).turn ${first.turnId}The turn was not kept: this results ` +
        `file was written before turns were (version 1).`
    )
    expect(await page.locator(".stats").textContent()).toContain("Durationnot recorded")
  })
})

describe("the HTML report of a large run", () => {
  // The golden set's cases again and again under new ids: more than the first rows the page draws.
  const large = (count: number): RunResult => {
    const cases = Array.from({ length: count }, (_, i) => {
      const c = results.cases[i % results.cases.length]!
      return { ...c, id: `${c.id}.${Math.floor(i / results.cases.length)}` }
    })
    const passedCount = cases.filter((c) => c.passed).length
    return { ...results, cases, total: count, passedCount, passRate: passedCount / count }
  }

  it("draws its rows a chunk at a time — as asked, as scrolled to, all of them to print — and opens a link to the last", async () => {
    const run = large(450)
    const file = join(work, "large.html")
    writeFileSync(file, renderHtml(run))
    const opened = await open(file)
    const { page } = opened
    const rows = () => page.locator("li.case").count()
    expect(await rows()).toBe(100)
    expect(await page.getByRole("status").textContent()).toBe("Showing 450 of 450 cases")
    // Clicked where it is, not scrolled to first as a pointer click is: scrolled to, it also draws a chunk.
    await page.getByRole("button", { name: "Show 200 more (350 not shown)" }).dispatchEvent("click")
    expect(await rows()).toBe(300)
    await page.locator("button.more").scrollIntoViewIfNeeded()
    await expect.poll(rows).toBe(450)
    expect(await page.locator("button.more").isHidden()).toBe(true)

    const last = [...run.cases].sort((a, b) => Number(a.passed) - Number(b.passed)).at(-1)!
    const linked = await open(file, { hash: `#case=${encodeURIComponent(last.id)}` })
    expect(
      await rowOf(linked, last.id).getByRole("button", { name: last.id, exact: true }).getAttribute("aria-expanded")
    ).toBe("true")

    // Printed, every row is there and the controls are not.
    const fresh = await open(file)
    expect(await fresh.page.locator("li.case").count()).toBe(100)
    await fresh.page.emulateMedia({ media: "print" })
    const pdf = await fresh.page.pdf()
    expect(pdf.subarray(0, 4).toString()).toBe("%PDF")
    expect(await fresh.page.locator("li.case").count()).toBe(450)
    expect(await fresh.page.locator(".filters").isVisible()).toBe(false)
    expect(await fresh.page.locator("header.verdict").isVisible()).toBe(true)
  })
})

describe("every page above", () => {
  it("requested nothing beyond its own file and logged no error", () => {
    expect(opened.length).toBeGreaterThanOrEqual(6)
    for (const page of opened) {
      expect(page.requests, page.url).toContain(page.url.replace(/#.*$/s, ""))
      expect(foreignRequests(page), page.url).toEqual([])
      expect(page.errors, page.url).toEqual([])
    }
  })
})
