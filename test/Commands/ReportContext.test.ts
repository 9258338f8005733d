/**
 * What the commands that report a run hand the reporters besides the results — the floor's history
 * from the baseline and, for a report of a results file, the comparison, the run's wall time and when
 * it ended — read from what the reporters write: the HTML page's embedded data and the JUnit report.
 * The commands run in this process, their output captured.
 */
import { describe, expect, it } from "@effect/vitest"
import { existsSync, readFileSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { noFloorYet } from "../../src/ProgramName.js"
import type { PageData } from "../../src/Scorecard/Render/Html.js"
import { scratchProject } from "../support/cli.js"
import { caseCount, committedFloor, offlineHolds, offlineTally, passingOnFixtures, rateOf } from "../support/golden.js"
import { cliInProcess } from "../support/inProcess.js"

/** Runs the CLI in this process and returns the exit code and everything it printed. */
const run = async (args: ReadonlyArray<string>) => {
  const { code, stderr, stdout } = await cliInProcess(args)
  return { code, output: [stdout, stderr].filter((text) => text !== "").join("\n") }
}

/** The data an HTML report was drawn from, as its page embeds it. */
const pageData = (file: string): PageData => {
  const html = readFileSync(file, "utf8")
  const found = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)
  expect(found, file).not.toBeNull()
  return JSON.parse(found![1]!) as PageData
}

/** Runs the CLI with an HTML report as well, and returns what the page was drawn from (none when no report was written). */
const cli = async (args: ReadonlyArray<string>, page: string) => {
  const result = await run([...args, "--reporter", `html=${page}`])
  return { ...result, data: existsSync(page) ? pageData(page) : undefined }
}

/** A scratch project and the arguments that point a command at its files. */
const project = (baseline = "baseline.json") => {
  const dir = scratchProject()
  const at = (file: string) => join(dir, file)
  const files = [
    "--cases",
    at("cases/golden-cases.json"),
    "--surfaces",
    at("cases/surfaces.json"),
    "--baseline",
    at(baseline)
  ]
  return { dir, at, files, run: ["run", "--silent", "--fixtures", at("cases/fixtures"), ...files] }
}

const history = [
  { date: "2026-10-01", from: null, to: 0.5, passed: 11, total: 22 },
  { date: "2026-11-30", from: 0.5, to: 0.8181, passed: 18, total: 22 }
]

describe("the floor's history, handed to the reporters", () => {
  it("is the baseline's history on run, whether or not the floor applies to the run", async () => {
    const p = project()
    writeFileSync(p.at("baseline.json"), JSON.stringify({ floor: committedFloor, history }))
    const full = await cli([...p.run, "--check"], p.at("full.html"))
    expect(full.code).toBe(0)
    expect(full.data?.history).toEqual(history)
    const filtered = await cli([...p.run, "--filter", "smoke"], p.at("filtered.html"))
    expect(filtered.code).toBe(0)
    expect(filtered.data?.history).toEqual(history)
  })

  it("is what an exact _comment log records for a baseline without history, and absent with no baseline", async () => {
    const p = project()
    writeFileSync(
      p.at("baseline.json"),
      JSON.stringify({ _comment: ["header", "2026-11-30: floor set to 0.8181 (18/22 passed)"], floor: 0.8181 })
    )
    expect((await cli(p.run, p.at("exact.html"))).data?.history).toEqual([{
      date: "2026-11-30",
      from: null,
      to: 0.8181,
      passed: 18,
      total: 22
    }])
    writeFileSync(p.at("baseline.json"), JSON.stringify({ _comment: ["raised by hand"], floor: 0.8181 }))
    const prose = await cli(p.run, p.at("prose.html"))
    expect(prose.code).toBe(0)
    expect(prose.data).toBeDefined()
    expect(prose.data).not.toHaveProperty("history")
    const bare = project("none.json")
    const none = await cli(bare.run, bare.at("none.html"))
    expect(none.code).toBe(0)
    expect(none.data).not.toHaveProperty("history")
  })

  it("is the baseline's history on merge", async () => {
    const p = project()
    writeFileSync(p.at("baseline.json"), JSON.stringify({ floor: committedFloor, history }))
    for (const i of [1, 2]) {
      expect((await run([...p.run, "--shard", `${i}/2`, "--json", p.at(`s${i}.json`)])).code).toBe(0)
    }
    const merged = await cli(["merge", p.at("s1.json"), p.at("s2.json"), ...p.files, "--check"], p.at("merged.html"))
    expect(merged.code, merged.output).toBe(0)
    expect(merged.output).toContain(offlineHolds)
    expect(merged.data?.history).toEqual(history)
  })
})

describe("eval report, in this process", () => {
  it("hands the reporters the baseline's history, the diff against --compare, and the run's time and end", async () => {
    const p = project()
    writeFileSync(p.at("baseline.json"), JSON.stringify({ floor: committedFloor, history }))
    expect((await run([...p.run, "--json", p.at("before.json")])).code).toBe(0)
    expect((await run([...p.run, "--json", p.at("r.json")])).code).toBe(0)
    const ended = new Date("2026-11-30T12:00:00Z")
    utimesSync(p.at("r.json"), ended, ended)
    const report = await cli(
      [
        "report",
        p.at("r.json"),
        "--baseline",
        p.at("baseline.json"),
        "--compare",
        p.at("before.json"),
        "--reporter",
        `junit:file-attribute=${p.at("r.xml")}`
      ],
      p.at("r.html")
    )
    expect(report.code, report.output).toBe(0)
    expect(report.output).toContain(offlineHolds)
    const rate = rateOf(passingOnFixtures)
    expect(report.output).toContain(`compared with ${p.at("before.json")}: pass rate ${rate} → ${rate}`)
    const data = report.data!
    expect(data.history).toEqual(history)
    expect(data.compare).toMatchObject({
      // The page names the earlier run's file by its name alone: it is outside the working folder.
      against: "before.json",
      regressions: 0,
      fixes: 0,
      sameSet: true,
      passed: passingOnFixtures,
      total: caseCount
    })
    const results = JSON.parse(readFileSync(p.at("r.json"), "utf8")) as { durationMs: number }
    expect(data.run.durationMs).toBe(results.durationMs)
    // JUnit dates the run from when the results file was written, less the run's wall time; its
    // file attributes name the default golden-set file.
    expect(statSync(p.at("r.json")).mtime.toISOString()).toBe(ended.toISOString())
    const junit = readFileSync(p.at("r.xml"), "utf8")
    const began = new Date(ended.getTime() - results.durationMs).toISOString().slice(0, 19)
    expect(junit).toContain(`timestamp="${began}"`)
    expect(junit).toContain(`file="cases/golden-cases.json"`)
  })

  it("reports with no baseline and no cases file, and refuses what it cannot read before writing anything", async () => {
    const p = project()
    expect((await run([...p.run, "--filter", "smoke", "--json", p.at("smoke.json")])).code).toBe(0)
    expect((await run([...p.run, "--json", p.at("r.json")])).code).toBe(0)
    const bare = await cli([
      "report",
      p.at("r.json"),
      "--baseline",
      p.at("none.json"),
      "--cases",
      p.at("none-cases.json")
    ], p.at("bare.html"))
    expect(bare.code, bare.output).toBe(0)
    expect(bare.data).not.toHaveProperty("history")
    expect(bare.data?.run.noFloor).toBe(noFloorYet)
    expect(bare.output).toContain(`${offlineTally} · no floor committed yet`)

    const refused = await cli([
      "report",
      p.at("r.json"),
      "--compare",
      p.at("smoke.json"),
      "--baseline",
      p.at("none.json")
    ], p.at("refused.html"))
    expect(refused.code).toBe(2)
    expect(refused.output).toContain(`${p.at("smoke.json")} and ${p.at("r.json")} ran over different case sets`)
    expect(refused.data).toBeUndefined()
    const allowed = await cli(
      [
        "report",
        p.at("r.json"),
        "--compare",
        p.at("smoke.json"),
        "--allow-different-sets",
        "--baseline",
        p.at("none.json")
      ],
      p.at("allowed.html")
    )
    expect(allowed.code).toBe(0)
    const smoke = JSON.parse(readFileSync(p.at("smoke.json"), "utf8")) as { total: number }
    expect(allowed.data?.compare).toMatchObject({ sameSet: false, total: smoke.total })

    writeFileSync(p.at("baseline.json"), "{\"floor\": 2}")
    const corrupt = await cli(["report", p.at("r.json"), "--baseline", p.at("baseline.json")], p.at("corrupt.html"))
    expect(corrupt.code).toBe(2)
    expect(corrupt.output).toBe(`${p.at("baseline.json")}: $.floor: expected a floor between 0 and 1, got 2`)
    expect(corrupt.data).toBeUndefined()
  })
})
