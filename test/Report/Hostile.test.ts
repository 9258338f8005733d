/**
 * Hostile text from a turn, in a real browser: markup, a closing script tag inside the page's data,
 * event-handler attributes, `javascript:` links, bidi controls and 10 MB strings, in every field a
 * results file carries. None of it runs — a script that would set a global never does — none of it
 * loads anything, and none of it widens the page or reorders its text.
 */
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Browser } from "playwright-core"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import type { CaseResult, KeptTurn, RunResult } from "../../src/Schema/Result.js"
import { renderHtml } from "../../src/Scorecard/Render/Html.js"
import { foreignRequests, launchBrowser, type OpenedPage, openReport, viewport } from "../support/browser.js"

/** Each would set `window.pwned` if the page ever parsed it as markup, followed it or ran it. */
const payloads = [
  "</script><script>window.pwned = 1</script>",
  "</SCRIPT ><script>window.pwned = 2</script>",
  "<!--<script>window.pwned = 3</script>",
  "<img src=x onerror=\"window.pwned = 4\">",
  "<svg onload=\"window.pwned = 5\"></svg>",
  "\"><a href=\"javascript:window.pwned = 6\" autofocus onfocus=\"window.pwned = 7\">x</a>",
  "javascript:window.pwned = 8",
  "<iframe srcdoc=\"<script>parent.pwned = 9</script>\"></iframe>",
  "<style>body { display: none }</style><link rel=stylesheet href=http://127.0.0.1:9/x.css>",
  "\u2028\u2029<base href=\"http://127.0.0.1:9/\">"
]
const hostile = payloads.join(" ")
/** Right-to-left override and isolate controls, which would show "evil" reversed and move what follows. */
const bidi = "safe \u202eevil\u202c \u2067isolated\u2069 \u200bzero-width"
const huge = "A".repeat(10 * 1024 * 1024)

const turn = (answer: string): KeptTurn => ({
  answer,
  trace: {
    turnId: `turn ${hostile}`,
    surface: "docs",
    outcome: `answered ${hostile}`,
    citations: [
      { path: "javascript:window.pwned = 10", match: "path" },
      { path: hostile, quote: `${hostile} ${bidi}`, match: "quote" },
      { path: huge, match: "unsurfaced" }
    ],
    toolExecutions: [
      { tool: hostile, input: { html: hostile, bidi }, output: `${hostile} ${huge}`, error: null },
      { tool: "search_docs", input: { query: huge }, error: hostile, durationMs: 12 }
    ],
    proposal: { id: hostile, summary: bidi, status: hostile, actions: [{ html: hostile }] },
    usage: { inputTokens: 10, outputTokens: 20 }
  }
})

const hostileCase = (id: string, answer: string): CaseResult => ({
  id,
  surface: "docs",
  passed: false,
  question: `${hostile} ${bidi}`,
  guards: hostile,
  tags: [hostile, bidi, "javascript:window.pwned = 11"],
  turnId: hostile,
  expectations: [
    { kind: "answer-excludes", passed: false, fact: `answer contains: "${hostile}"` },
    { kind: "cites-only-surfaced", passed: false, fact: `unsurfaced: ${huge}` }
  ],
  turn: turn(answer)
})

const run: RunResult = {
  version: 2,
  passRate: 0,
  floor: 0.5,
  passed: false,
  total: 4,
  passedCount: 0,
  caseSet: `sha256:${"ab".repeat(32)}`,
  durationMs: 5,
  cases: [
    hostileCase(`case ${hostile}`, `${hostile}\n${bidi}\n[click me](javascript:window.pwned = 12)`),
    hostileCase(`huge ${huge}`, huge),
    hostileCase(`bidi ${bidi}`, bidi),
    {
      id: hostile,
      surface: hostile,
      passed: false,
      error: `HTTP 500: ${hostile} ${huge}`,
      expectations: []
    }
  ]
}

let browser: Browser
let opened: OpenedPage
const file = join(mkdtempSync(join(tmpdir(), "eval-html-hostile-")), "hostile.html")

beforeAll(async () => {
  browser = await launchBrowser()
  const html = renderHtml(run, { noFloor: hostile })
  writeFileSync(file, html)
  opened = await openReport(browser, file)
  // Every case open, every folded input and output unfolded, so all of the text is in the document.
  for (const toggle of await opened.page.locator(".toggle").all()) await toggle.click()
  for (const summary of await opened.page.locator(".detail summary").all()) await summary.click()
}, 60_000)

afterAll(async () => {
  await browser?.close()
})

describe("hostile text in the HTML report", () => {
  it("never runs: no payload set its global, and the page's scripts are its own two", async () => {
    expect(await opened.page.evaluate("typeof window.pwned")).toBe("undefined")
    expect(await opened.page.evaluate("document.scripts.length")).toBe(2)
    expect(
      await opened.page.evaluate(
        "document.querySelectorAll('img, svg[onload], iframe, object, embed, base, link, style').length"
      )
    ).toBe(
      1
    )
    expect(await opened.page.evaluate("document.querySelectorAll('style').length")).toBe(1)
    // No element carries an event handler, and every link is one of the page's own to a case.
    expect(
      await opened.page.evaluate(
        "[...document.querySelectorAll('*')].filter((e) => [...e.attributes].some((a) => /^on/i.test(a.name))).length"
      )
    )
      .toBe(0)
    const hrefs = await opened.page.locator("a").evaluateAll((links) => links.map((a) => a.getAttribute("href")))
    expect(hrefs.length).toBe(run.cases.length)
    for (const href of hrefs) expect(href).toMatch(/^#case=[^:]*$/)
  })

  it("loads nothing and logs no error", () => {
    expect(foreignRequests(opened)).toEqual([])
    expect(opened.errors).toEqual([])
  })

  it("shows the text as text: the answer holds the markup as characters", async () => {
    const answer = (await opened.page.locator(".answer").first().textContent())!
    for (const payload of payloads.slice(0, 8)) expect(answer).toContain(payload)
    expect(answer).toContain("[click me](javascript:window.pwned = 12)")
    expect(await opened.page.locator(".guards").first().textContent()).toContain(
      "</script><script>window.pwned = 1</script>"
    )
  })

  it("shows bidi and zero-width controls as their escapes, so nothing is reordered or hidden", async () => {
    const text = (await opened.page.evaluate("document.body.innerText")) as string
    expect(text).not.toMatch(/[\u202a-\u202e\u2066-\u2069\u200b\u2028\u2029]/)
    expect(text).toContain("safe \\u202eevil\\u202c \\u2067isolated\\u2069 \\u200bzero-width")
  })

  it("clips 10 MB strings and keeps the page its own width", async () => {
    const { page } = opened
    const lengths = (await page.locator(".answer").allTextContents()).map((a) => a.length)
    expect(Math.max(...lengths)).toBeLessThanOrEqual(4_001)
    const widest = await page.evaluate("document.documentElement.scrollWidth")
    expect(widest).toBeLessThanOrEqual(viewport.width)
    // Each case row is no wider than the list it sits in.
    const overflowing = await page.evaluate(
      "[...document.querySelectorAll('li.case, li.case *')].filter((e) => e.getBoundingClientRect().right > " +
        "document.documentElement.clientWidth + 1).length"
    )
    expect(overflowing).toBe(0)
  })
})
