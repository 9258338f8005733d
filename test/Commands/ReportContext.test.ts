/**
 * What the commands that report a run hand the reporters besides the results: the floor's history
 * from the baseline, and for a report of a results file, the comparison, the run's wall time and when
 * it ended. The reporters run as they do for a user; each call's context is kept on the way.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Console, Effect } from "effect"
import { statSync, utimesSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import type { ReportContext } from "../../src/Commands/Report.js"
import { main } from "../../src/Cli.js"
import { noFloorYet } from "../../src/ProgramName.js"
import { vi } from "vitest"
import { scratchProject } from "../support/cli.js"

const seen = vi.hoisted(() => [] as Array<ReportContext>)

vi.mock("../../src/Commands/Report.js", async (importOriginal) => {
  const original = await importOriginal<typeof import("../../src/Commands/Report.js")>()
  return {
    ...original,
    writeReports: (...args: Parameters<typeof original.writeReports>) => {
      seen.push(args[2])
      return original.writeReports(...args)
    }
  }
})

/** Runs the CLI in this process, its output captured, and returns the exit code and the context its reporters got. */
const cli = async (args: ReadonlyArray<string>) => {
  seen.length = 0
  const out: Array<string> = []
  const code = await Effect.runPromise(
    Console.consoleWith((base) =>
      Console.withConsole(main(["node", "eval", ...args]), {
        ...base,
        log: (...parts: ReadonlyArray<unknown>) => Effect.sync(() => void out.push(parts.join(" "))),
        error: (...parts: ReadonlyArray<unknown>) => Effect.sync(() => void out.push(parts.join(" ")))
      })
    ).pipe(Effect.provide(NodeContext.layer))
  )
  expect(seen.length, out.join("\n")).toBeLessThanOrEqual(1)
  return { code, output: out.join("\n"), context: seen[0] }
}

/** A scratch project and the arguments that point a command at its files. */
const project = (baseline = "baseline.json") => {
  const dir = scratchProject()
  const at = (file: string) => join(dir, file)
  const files = ["--cases", at("cases/golden-cases.json"), "--surfaces", at("cases/surfaces.json"), "--baseline", at(baseline)]
  return { dir, at, files, run: ["run", "--silent", "--fixtures", at("cases/fixtures"), ...files] }
}

const history = [
  { date: "2026-10-01", from: null, to: 0.5, passed: 11, total: 22 },
  { date: "2026-11-30", from: 0.5, to: 0.8181, passed: 18, total: 22 }
]

describe("the floor's history, handed to the reporters", () => {
  it("is the baseline's history on run, whether or not the floor applies to the run", async () => {
    const p = project()
    writeFileSync(p.at("baseline.json"), JSON.stringify({ floor: 0.8181, history }))
    const full = await cli([...p.run, "--check"])
    expect(full.code).toBe(0)
    expect(full.context?.history).toEqual(history)
    const filtered = await cli([...p.run, "--filter", "smoke"])
    expect(filtered.code).toBe(0)
    expect(filtered.context?.history).toEqual(history)
  })

  it("is what an exact _comment log records for a baseline without history, and absent with no baseline", async () => {
    const p = project()
    writeFileSync(
      p.at("baseline.json"),
      JSON.stringify({ _comment: ["header", "2026-11-30: floor set to 0.8181 (18/22 passed)"], floor: 0.8181 })
    )
    expect((await cli(p.run)).context?.history).toEqual([{ date: "2026-11-30", from: null, to: 0.8181, passed: 18, total: 22 }])
    writeFileSync(p.at("baseline.json"), JSON.stringify({ _comment: ["raised by hand"], floor: 0.8181 }))
    const prose = await cli(p.run)
    expect(prose.code).toBe(0)
    expect(prose.context).toBeDefined()
    expect(prose.context).not.toHaveProperty("history")
    const none = await cli(project("none.json").run)
    expect(none.code).toBe(0)
    expect(none.context).not.toHaveProperty("history")
  })

  it("is the baseline's history on merge", async () => {
    const p = project()
    writeFileSync(p.at("baseline.json"), JSON.stringify({ floor: 0.8181, history }))
    for (const i of [1, 2]) expect((await cli([...p.run, "--shard", `${i}/2`, "--json", p.at(`s${i}.json`)])).code).toBe(0)
    const merged = await cli(["merge", p.at("s1.json"), p.at("s2.json"), ...p.files, "--check"])
    expect(merged.code, merged.output).toBe(0)
    expect(merged.output).toContain("18/22 passed · pass rate 0.8181 · floor 0.8181 · holds the floor")
    expect(merged.context?.history).toEqual(history)
  })
})

describe("eval report, in this process", () => {
  it("hands the reporters the baseline's history, the diff against --compare, and the run's time and end", async () => {
    const p = project()
    writeFileSync(p.at("baseline.json"), JSON.stringify({ floor: 0.8181, history }))
    expect((await cli([...p.run, "--json", p.at("before.json")])).code).toBe(0)
    expect((await cli([...p.run, "--json", p.at("r.json")])).code).toBe(0)
    const ended = new Date("2026-11-30T12:00:00Z")
    utimesSync(p.at("r.json"), ended, ended)
    const report = await cli(["report", p.at("r.json"), "--baseline", p.at("baseline.json"), "--compare", p.at("before.json")])
    expect(report.code, report.output).toBe(0)
    expect(report.output).toContain("18/22 passed · pass rate 0.8181 · floor 0.8181 · holds the floor")
    expect(report.output).toContain(`compared with ${p.at("before.json")}: pass rate 0.8181 → 0.8181`)
    const context = report.context!
    expect(context.history).toEqual(history)
    expect(context.diff?.against).toBe(p.at("before.json"))
    expect(context.diff?.diff).toMatchObject({ regressions: [], fixes: [], sameSet: true, passed: { from: 18, to: 18 } })
    expect(context.durationMs).toBeTypeOf("number")
    expect(context.endedAt?.getTime()).toBe(statSync(p.at("r.json")).mtime.getTime())
    expect(context.endedAt?.toISOString()).toBe(ended.toISOString())
    expect(context.casesFile).toBe("cases/golden-cases.json")
  })

  it("reports with no baseline and no cases file, and refuses what it cannot read before writing anything", async () => {
    const p = project()
    expect((await cli([...p.run, "--filter", "smoke", "--json", p.at("smoke.json")])).code).toBe(0)
    expect((await cli([...p.run, "--json", p.at("r.json")])).code).toBe(0)
    const bare = await cli(["report", p.at("r.json"), "--baseline", p.at("none.json"), "--cases", p.at("none-cases.json")])
    expect(bare.code, bare.output).toBe(0)
    expect(bare.context).not.toHaveProperty("history")
    expect(bare.context?.noFloor).toBe(noFloorYet)
    expect(bare.output).toContain("18/22 passed · pass rate 0.8181 · no floor committed yet")

    const refused = await cli(["report", p.at("r.json"), "--compare", p.at("smoke.json"), "--baseline", p.at("none.json")])
    expect(refused.code).toBe(2)
    expect(refused.output).toContain(`${p.at("smoke.json")} and ${p.at("r.json")} ran over different case sets`)
    expect(refused.context).toBeUndefined()
    const allowed = await cli([
      "report",
      p.at("r.json"),
      "--compare",
      p.at("smoke.json"),
      "--allow-different-sets",
      "--baseline",
      p.at("none.json")
    ])
    expect(allowed.code).toBe(0)
    expect(allowed.context?.diff?.diff.added).toHaveLength(22 - (allowed.context?.diff?.diff.total.from ?? 0))

    writeFileSync(p.at("baseline.json"), "{\"floor\": 2}")
    const corrupt = await cli(["report", p.at("r.json"), "--baseline", p.at("baseline.json")])
    expect(corrupt.code).toBe(2)
    expect(corrupt.output).toBe(`${p.at("baseline.json")}: $.floor: expected a floor between 0 and 1, got 2`)
    expect(corrupt.context).toBeUndefined()
  })
})
