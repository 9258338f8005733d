/**
 * writeReports: the reporters over one result and context, writing files and the GitHub step summary
 * as they do for a user. The summaries point to the HTML report when one was written to a file.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { ConfigProvider, Effect, Layer } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { htmlReportOf, type ReporterSpec, writeReports } from "../../src/Reporters/Reports.js"
import { plainRun } from "../Scorecard/Render/results.js"

const pointer = "The full report: `reports/turn-eval.html` (an HTML page; in CI, upload it as an artifact)"

/** The environment of a GitHub Actions step that has a summary file and no annotations to write. */
const inActions = (summary: string) =>
  Layer.setConfigProvider(ConfigProvider.fromMap(new Map([["GITHUB_ACTIONS", ""], ["GITHUB_STEP_SUMMARY", summary]])))

describe("writeReports", () => {
  it.effect("points the Markdown summary and the step summary to the HTML report", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "eval-report-"))
      const summary = join(dir, "step-summary.md")
      writeFileSync(summary, "")
      const markdown = join(dir, "summary.md")
      const reporters: ReadonlyArray<ReporterSpec> = [{ name: "markdown", file: markdown }, { name: "github" }]
      yield* writeReports(plainRun, reporters, {
        casesFile: "cases/golden-cases.json",
        noFloor: "no floor",
        htmlReport: "reports/turn-eval.html"
      }).pipe(Effect.provide(inActions(summary)))
      expect(readFileSync(markdown, "utf8").split("\n")).toContain(pointer)
      expect(readFileSync(summary, "utf8").split("\n")).toContain(pointer)

      writeFileSync(summary, "")
      yield* writeReports(plainRun, reporters, { casesFile: "cases/golden-cases.json", noFloor: "no floor" })
        .pipe(Effect.provide(inActions(summary)))
      expect(readFileSync(markdown, "utf8")).not.toContain("The full report")
      expect(readFileSync(summary, "utf8")).toContain("**3/5 passed**")
      expect(readFileSync(summary, "utf8")).not.toContain("The full report")
    }).pipe(Effect.provide(NodeContext.layer)))
})

describe("htmlReportOf", () => {
  it("is the file of the reporter named html, and nothing when it writes to standard output or is absent", () => {
    // The html reporter is named as a user names it on the command line.
    const html = (file?: string) =>
      ({ name: "html", ...(file === undefined ? {} : { file }) }) as unknown as ReporterSpec
    expect(htmlReportOf([{ name: "pretty" }, html("reports/turn-eval.html"), { name: "junit", file: "r.xml" }]))
      .toBe("reports/turn-eval.html")
    expect(htmlReportOf([{ name: "pretty" }, html()])).toBeUndefined()
    expect(htmlReportOf([{ name: "pretty" }, { name: "markdown", file: "summary.html" }])).toBeUndefined()
  })
})
