/**
 * `report` through the built CLI: the reports of a results file written earlier are the ones the run
 * wrote itself, but for when they say the run happened; version 1 files render too, a missing golden
 * set or baseline does not stop a report, and a file that cannot be used ends it with exit 2.
 */
import { mkdirSync, readFileSync, statSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { questionCases } from "../../src/Schema/Case.js"
import { evalCli, scratchProject, stackFrame } from "../support/cli.js"
import {
  caseCount,
  failingOnFixtures,
  goldenCases,
  offlineHolds,
  passingOnFixtures,
  selectedBy
} from "../support/golden.js"
import { allElements, parseXml, validateJUnit } from "../support/junit.js"

/** Runs the CLI in `dir` outside GitHub Actions unless `env` says otherwise; never a stack trace. */
const inProject = (dir: string) => (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}) => {
  const run = evalCli(args, {
    cwd: dir,
    env: { GITHUB_ACTIONS: "", GITHUB_STEP_SUMMARY: "", GITHUB_WORKSPACE: "", CI: "", ...env }
  })
  expect(run.stderr).not.toMatch(stackFrame)
  return run
}

/** A scratch project with the committed floor. */
const project = () => {
  const dir = scratchProject()
  writeFileSync(join(dir, "baseline.json"), readFileSync("baseline.json"))
  return { dir, cli: inProject(dir), read: (file: string) => readFileSync(join(dir, file), "utf8") }
}

// When a JUnit report says the run happened: the one thing a later rendering cannot know for sure.
const timestamps = /(timestamp)="[^"]*"/g
const untimestamped = (xml: string) => xml.replace(timestamps, "$1=\"…\"")
const timestampOf = (xml: string) => Date.parse(`${/timestamp="([^"]*)"/.exec(xml)![1]}Z`)

describe("eval report", () => {
  it("renders the scorecard, JUnit and Markdown of a results file as the run wrote them", async () => {
    const p = project()
    const run = p.cli([
      "run",
      "--fixtures",
      "cases/fixtures",
      "--json",
      "r.json",
      "--reporter",
      "junit=run/eval.xml",
      "--reporter",
      "markdown=run/summary.md"
    ])
    expect(run.code, run.stderr).toBe(0)
    const report = p.cli([
      "report",
      "r.json",
      "--reporter",
      "pretty",
      "--reporter",
      "junit=report/eval.xml",
      "--reporter",
      "markdown=report/summary.md"
    ])
    expect(report.code, report.stderr).toBe(0)
    expect(report.stderr).toBe("")
    expect(report.stdout).toBe(run.stdout)
    expect(report.stdout).toContain(offlineHolds)
    expect(p.read("report/summary.md")).toBe(p.read("run/summary.md"))
    const [ran, reported] = [p.read("run/eval.xml"), p.read("report/eval.xml")]
    expect(untimestamped(reported)).toBe(untimestamped(ran))
    expect(await validateJUnit(reported)).toEqual([])
    // The run began its wall time before its results file was written: the report says so.
    const written = statSync(join(p.dir, "r.json")).mtimeMs
    const { durationMs } = JSON.parse(p.read("r.json")) as { durationMs: number }
    expect(Math.abs(timestampOf(reported) - Math.floor((written - durationMs) / 1000) * 1000)).toBeLessThanOrEqual(1000)
    expect(Math.abs(timestampOf(reported) - timestampOf(ran))).toBeLessThanOrEqual(2000)

    // The results themselves, as the json reporter writes them, are the file's (in the schema's key order).
    const json = p.cli(["report", "r.json", "--reporter", "json"])
    expect(json.code).toBe(0)
    expect(JSON.parse(json.stdout)).toEqual(JSON.parse(p.read("r.json")))
    // The default is the scorecard.
    expect(p.cli(["report", "r.json"]).stdout).toBe(run.stdout)
  })

  it(
    "shows the changes since --compare OLD.json as run --compare does, and refuses different case sets without " +
      "--allow-different-sets",
    () => {
      const p = project()
      expect(p.cli(["run", "--fixtures", "cases/fixtures", "--json", "before.json"]).code).toBe(0)
      const fixture = join(p.dir, "cases/fixtures/docs.refund-window-cites-source.json")
      const turn = JSON.parse(readFileSync(fixture, "utf8"))
      turn.trace.citations.push({ path: "/docs/billing/made-up", match: "unsurfaced" })
      writeFileSync(fixture, JSON.stringify(turn))
      const run = p.cli([
        "run",
        "--fixtures",
        "cases/fixtures",
        "--json",
        "after.json",
        "--compare",
        "before.json",
        "--reporter",
        "pretty",
        "--reporter",
        "markdown=run.md"
      ])
      expect(run.code).toBe(0)
      expect(run.stdout).toContain("regressed 1:")
      const report = p.cli([
        "report",
        "after.json",
        "--compare",
        "before.json",
        "--reporter",
        "pretty",
        "--reporter",
        "markdown=report.md"
      ])
      expect(report.code).toBe(0)
      expect(report.stdout).toBe(run.stdout)
      expect(p.read("report.md")).toBe(p.read("run.md"))
      expect(p.read("report.md")).toContain("**Regressions (1)**")

      expect(p.cli(["run", "--fixtures", "cases/fixtures", "--filter", "smoke", "--json", "smoke.json"]).code).toBe(0)
      const refused = p.cli(["report", "after.json", "--compare", "smoke.json"])
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain("smoke.json and after.json ran over different case sets")
      expect(refused.stderr).toMatch(/between them; pass --allow-different-sets to compare them case by case\n$/)
      expect(refused.stdout).toBe("")
      const allowed = p.cli(["report", "after.json", "--compare", "smoke.json", "--allow-different-sets"])
      expect(allowed.code).toBe(0)
      expect(allowed.stdout).toMatch(new RegExp(`^new ${caseCount - selectedBy("smoke").length}:`, "m"))
    }
  )

  it("annotates the golden-set file in GitHub Actions as the run did, and at line 1 of it when the file is not there", () => {
    const p = project()
    const summary = (name: string) => {
      writeFileSync(join(p.dir, name), "")
      return { GITHUB_ACTIONS: "true", GITHUB_STEP_SUMMARY: join(p.dir, name) }
    }
    const run = p.cli(
      ["run", "--fixtures", "cases/fixtures", "--json", "r.json", "--reporter", "github"],
      summary("run-summary.md")
    )
    expect(run.code).toBe(0)
    const report = p.cli(["report", "r.json", "--reporter", "github"], summary("report-summary.md"))
    expect(report.code).toBe(0)
    expect(report.stdout).toBe(run.stdout)
    expect(report.stdout.split("\n").filter((l) => l.startsWith("::error "))).toHaveLength(failingOnFixtures.length)
    expect(p.read("report-summary.md")).toBe(p.read("run-summary.md"))

    const elsewhere = p.cli(
      ["report", "r.json", "--reporter", "github", "--cases", "gone/golden-cases.json"],
      summary("gone-summary.md")
    )
    expect(elsewhere.code).toBe(0)
    const annotations = elsewhere.stdout.split("\n").filter((l) => l.startsWith("::error "))
    expect(annotations).toHaveLength(failingOnFixtures.length)
    for (const line of annotations) {
      expect(line).toMatch(/^::error file=gone\/golden-cases\.json,line=1,title=failed%3A /)
    }
    expect(elsewhere.stderr.trim()).toBe(
      "--reporter github: gone/golden-cases.json: no such file, so each annotation points at its first line"
    )
    expect(p.read("gone-summary.md")).toBe(p.read("run-summary.md"))
  })

  it("renders a version 1 results file, written before turns and durations were kept", async () => {
    const p = project()
    // A version 1 file knew no conversations: the golden set is its one-question cases.
    writeFileSync(
      join(p.dir, "cases/golden-cases.json"),
      JSON.stringify({ version: 1, cases: questionCases(goldenCases) })
    )
    const run = p.cli([
      "run",
      "--fixtures",
      "cases/fixtures",
      "--json",
      "r.json",
      "--reporter",
      "pretty",
      "--reporter",
      "markdown=run.md"
    ])
    expect(run.code).toBe(0)
    const v2 = JSON.parse(p.read("r.json"))
    const v1 = {
      ...v2,
      version: 1,
      durationMs: undefined,
      cases: v2.cases.map((c: Record<string, unknown>) => ({
        ...c,
        durationMs: undefined,
        question: undefined,
        guards: undefined,
        tags: undefined,
        turn: undefined,
        // A version 1 file knew no conversations: their steps are left out, their verdicts kept.
        turns: undefined,
        expectations: (c["expectations"] as ReadonlyArray<Record<string, unknown>>).map((e) => ({
          ...e,
          step: undefined
        }))
      }))
    }
    writeFileSync(join(p.dir, "v1.json"), JSON.stringify(v1, null, 2))
    expect(p.read("v1.json")).not.toMatch(/"(durationMs|question|guards|tags|turn|turns|step)"/)
    const report = p.cli([
      "report",
      "v1.json",
      "--reporter",
      "pretty",
      "--reporter",
      "junit=v1.xml",
      "--reporter",
      "markdown=v1.md"
    ])
    expect(report.code, report.stderr).toBe(0)
    expect(report.stdout).toBe(run.stdout)
    expect(p.read("v1.md")).toBe(p.read("run.md"))
    const xml = p.read("v1.xml")
    expect(await validateJUnit(xml)).toEqual([])
    const root = parseXml(xml)
    expect(allElements(root, "testcase")).toHaveLength(questionCases(goldenCases).length)
    for (const e of [...allElements(root, "testcase"), ...allElements(root, "testsuite")]) {
      expect(e.attributes["time"]).toBe("0")
    }
  })

  it("says why a results file held to no floor had none", () => {
    const p = project()
    expect(p.cli(["run", "--fixtures", "cases/fixtures", "--filter", "smoke", "--json", "smoke.json"]).code).toBe(0)
    expect(p.cli(["report", "smoke.json"]).stdout).toMatch(
      /passed · pass rate \d\.\d{4} · held to no floor when it ran: a --filter'ed run, or one from before the floor was committed\n$/
    )
    expect(p.cli(["run", "--fixtures", "cases/fixtures", "--shard", "1/2", "--json", "s1.json"]).code).toBe(0)
    expect(p.cli(["report", "s1.json"]).stdout).toMatch(
      / · shard 1\/2 \(\d+ cases\): turn-eval merge applies the floor to the whole\n$/
    )
    expect(p.cli(["report", "smoke.json", "--baseline", "none.json"]).stdout)
      .toContain(" · no floor committed yet: run `turn-eval ratchet` to set one")
  })

  it("refuses a results file it cannot use, naming the file, the JSON path and what was expected (exit 2)", () => {
    const p = project()
    expect(p.cli(["run", "--fixtures", "cases/fixtures", "--json", "r.json"]).code).toBe(0)
    const r = JSON.parse(p.read("r.json"))
    const bad: ReadonlyArray<readonly [string, string, string]> = [
      [
        "truncated.json",
        p.read("r.json").slice(0, 100),
        "truncated.json: not valid JSON: unexpected end of input at line"
      ],
      ["version.json", JSON.stringify({ ...r, version: 3 }), "version.json: $.version: expected 1, got 3"],
      [
        "key.json",
        JSON.stringify({ ...r, cases: [{ ...r.cases[0], verdict: "ok" }, ...r.cases.slice(1)] }),
        "key.json: $.cases[0].verdict: unknown key"
      ],
      [
        "counts.json",
        JSON.stringify({ ...r, passedCount: caseCount, passRate: 1 }),
        `counts.json: $.passedCount: says ${caseCount}, but ${passingOnFixtures} cases passed`
      ],
      ["cases.json", p.read("cases/golden-cases.json"), "cases.json: $.passRate: missing"]
    ]
    for (const [file, text, message] of bad) {
      writeFileSync(join(p.dir, file), text)
      const run = p.cli(["report", file, "--reporter", "pretty", "--reporter", "junit=out.xml"])
      expect([run.code, run.stdout], file).toEqual([2, ""])
      expect(run.stderr.split("\n")[0], file).toContain(message)
    }
    mkdirSync(join(p.dir, "folder.json"))
    expect(p.cli(["report", "folder.json"]).stderr.trim()).toBe(
      "folder.json: cannot read: not a regular file (a folder)"
    )
    expect(p.cli(["report", "missing.json"]).stderr.trim()).toBe("missing.json: cannot read: no such file")
    expect(p.cli(["report", "r.json", "--compare", "missing.json"]).stderr.trim()).toBe(
      "missing.json: cannot read: no such file"
    )
    writeFileSync(join(p.dir, "baseline.json"), "{\"floor\": 0.8, \"history\": [{\"date\": \"2026-11-30\"}]}")
    const baseline = p.cli(["report", "r.json"])
    expect(baseline.code).toBe(2)
    expect(baseline.stderr).toContain("baseline.json: $.history[0].from: missing")
    expect(() => statSync(join(p.dir, "out.xml"))).toThrow()

    const usage: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [["report", "r.json", "--reporter", "tap"], "--reporter \"tap\": expected NAME, NAME=FILE or NAME:OPTION=FILE"],
      [
        ["report", "r.json", "--reporter", "junit", "--reporter", "markdown"],
        "junit and markdown would both write to standard output"
      ],
      [
        ["report", "r.json", "--reporter", "markdown=r.json"],
        "the markdown report would overwrite r.json, the results it reports"
      ],
      [
        ["report", "r.json", "--reporter", "json=baseline.json"],
        "the json report would overwrite baseline.json, the baseline"
      ],
      [["report"], "Missing argument <RESULTS.json>"]
    ]
    for (const [args, message] of usage) {
      const run = p.cli(args)
      expect(run.code, args.join(" ")).toBe(2)
      expect(run.stderr).toContain(message)
    }
  })
})
