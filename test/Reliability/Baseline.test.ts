import { describe, expect, it } from "@effect/vitest"
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { RunResult } from "../../src/Schema/Result.js"
import { floorFor, showRate } from "../../src/Scorecard/Scorecard.js"
import { evalCli, evalCliAsync, scratchProject } from "../support/cli.js"
import { caseCount, passingOnFixtures } from "../support/golden.js"

/** A consistent results file with `passing` of the run's passing cases turned into failures. */
const withFailures = (result: RunResult, failures: number): RunResult => {
  let left = failures
  const cases = result.cases.map((c) => {
    if (!c.passed || left === 0) return c
    left--
    return {
      ...c,
      passed: false,
      expectations: c.expectations.map((e, i) => i === 0 ? { ...e, passed: false, fact: "not cited: /docs/x" } : e)
    }
  })
  const passedCount = cases.filter((c) => c.passed).length
  return { ...result, cases, passedCount, passRate: passedCount / cases.length, passed: null, floor: null }
}

describe("racing ratchets", () => {
  it("never lower the floor and never lose a log line", async () => {
    const dir = scratchProject()
    expect(evalCli(["run", "--fixtures", "cases/fixtures", "--json", "full.json"], { cwd: dir }).code).toBe(0)
    const full: RunResult = JSON.parse(readFileSync(join(dir, "full.json"), "utf8"))
    writeFileSync(join(dir, "baseline.json"), JSON.stringify({ _comment: ["kept: the team's own note"], floor: 0.3 }))
    const counts = [7, 0, 5, 3, 6, 1, 4, 2]
    counts.forEach((k) => writeFileSync(join(dir, `r${k}.json`), JSON.stringify(withFailures(full, k))))
    const runs = await Promise.all(counts.map((k) => evalCliAsync(["ratchet", "--from", `r${k}.json`], { cwd: dir })))
    expect(runs.map((r) => [r.code, r.stderr])).toEqual(counts.map(() => [0, ""]))
    const baseline = JSON.parse(readFileSync(join(dir, "baseline.json"), "utf8"))
    expect(baseline.floor).toBe(floorFor(passingOnFixtures, caseCount))
    const raised = runs.filter((r) => r.stdout.startsWith("floor raised")).length
    expect(baseline._comment[0]).toBe("kept: the team's own note")
    const raises = baseline._comment.slice(1) as Array<string>
    expect(raises).toHaveLength(raised)
    // Each raise starts from the floor the one before it set: nothing was written over.
    const chain = raises.map((line) => /floor ([\d.]+) → ([\d.]+)/.exec(line)!.slice(1).map(Number))
    chain.forEach(([from, to], i) => {
      expect(from).toBe(i === 0 ? 0.3 : chain[i - 1]![1])
      expect(to).toBeGreaterThan(from!)
    })
    // The history logs the same moves, in the same order.
    expect(baseline.history.map((c: { from: number; to: number }) => [c.from, c.to])).toEqual(chain)
    expect(readdirSync(dir).filter((f) => f.startsWith("baseline.json."))).toEqual([])
  })

  it("takes over a lock left by a process that no longer runs", () => {
    const dir = scratchProject()
    expect(evalCli(["run", "--fixtures", "cases/fixtures", "--json", "full.json"], { cwd: dir }).code).toBe(0)
    writeFileSync(join(dir, "baseline.json.lock"), "999999999\n")
    const run = evalCli(["ratchet", "--from", "full.json"], { cwd: dir })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`floor set to ${showRate(floorFor(passingOnFixtures, caseCount))}`)
    expect(readdirSync(dir).filter((f) => f.startsWith("baseline.json."))).toEqual([])
  })
})

describe("a write killed half-way", () => {
  it("leaves the baseline whole: the old version or the new, never a mix", async () => {
    const dir = mkdtempSync(join(tmpdir(), "eval-crash-"))
    const file = join(dir, "baseline.json")
    for (let trial = 0; trial < 8; trial++) {
      const child = spawn(process.execPath, ["test/support/baselineWriter.mjs", file], {
        stdio: ["ignore", "pipe", "inherit"]
      })
      await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()))
      await new Promise((resolve) => setTimeout(resolve, 30 + trial * 37))
      child.kill("SIGKILL")
      await new Promise((resolve) => child.once("close", resolve))
      const written = JSON.parse(readFileSync(file, "utf8"))
      expect([0.25, 0.75]).toContain(written.floor)
      expect(written._comment[0]).toBe(written.floor === 0.25 ? "version a" : "version b")
      expect(written._comment[1]).toHaveLength(2_000_000)
    }
  }, 60_000)
})
