/**
 * `turn-eval/vitest` in a team's own test suite: a project of its own (the package linked into its
 * node_modules, as an install would), vitest run on it as a subprocess with the JSON reporter, and the
 * report read back case by case.
 */
import { Redacted, Schema } from "effect"
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { CasesFile, stepsOf } from "../../src/Schema/Case.js"
import { RunResult } from "../../src/Schema/Result.js"
import { showRate } from "../../src/Scorecard/Scorecard.js"
import { evalCli, spawnAsync } from "../support/cli.js"
import { failingOnFixtures, passingOnFixtures, tally } from "../support/golden.js"
import { withStandIn } from "../support/live.js"

/** The parts of vitest's JSON report read here. */
interface Report {
  readonly testResults: ReadonlyArray<{
    readonly name: string
    readonly status: string
    readonly message: string
    readonly assertionResults: ReadonlyArray<{
      readonly ancestorTitles: ReadonlyArray<string>
      readonly title: string
      readonly status: string
      readonly failureMessages: ReadonlyArray<string>
    }>
  }>
}

const repo = process.cwd()
const cases = Schema.decodeUnknownSync(CasesFile)(JSON.parse(readFileSync("cases/golden-cases.json", "utf8"))).cases
const smokeIds = cases.filter((c) => (c.tags ?? []).includes("smoke")).map((c) => c.id)

const readme = readFileSync("README.md", "utf8")
// The README's example: the defaults (cases/golden-cases.json, cases/surfaces.json, cases/fixtures, baseline.json).
const readmeExample = /```ts\n\/\/ (test\/golden-set\.test\.ts)\n([\s\S]*?)```/.exec(readme)!
const baseline = JSON.parse(readFileSync("baseline.json", "utf8")) as { floor: number }

const testFiles: Record<string, string> = {
  [readmeExample[1]!]: readmeExample[2]!,
  "below.test.ts": `import { goldenSet } from "turn-eval/vitest"

goldenSet({ name: "below the floor", baseline: "high-baseline.json" })
`,
  "other-set.test.ts": `import { goldenSet } from "turn-eval/vitest"

goldenSet({ name: "another set", cases: "other/golden-cases.json" })
`,
  "strict.test.ts": `import { goldenSet } from "turn-eval/vitest"

goldenSet({ name: "strict", strict: true })
`,
  "broken.test.ts": `import { goldenSet } from "turn-eval/vitest"

goldenSet({ cases: "broken/golden-cases.json", name: "broken" })
`,
  "no-turns.test.ts": `import { SurfaceClient } from "turn-eval"
import { goldenSet } from "turn-eval/vitest"

goldenSet({ name: "no recordings", fixtures: "no-fixtures", filter: ["smoke"] })
goldenSet({ name: "empty table", layer: SurfaceClient.fromTable(new Map()), filter: ["${failingOnFixtures[0]}"] })
`,
  "live.test.ts": `import { Duration, Layer, Redacted } from "effect"
import { HttpLive, resolveRoutes, SurfaceClient } from "turn-eval"
import { goldenSet } from "turn-eval/vitest"

goldenSet({
  name: "live",
  concurrent: true,
  layer: (set) =>
    SurfaceClient.Live({
      baseUrl: new URL(process.env.APP_URL!),
      cookie: Redacted.make(process.env.APP_COOKIE!),
      routes: resolveRoutes(set.catalog.routes),
      timeout: Duration.seconds(10),
      deleteTimeout: Duration.seconds(5),
      keep: false
    }).pipe(Layer.provide(HttpLive))
})
`
}

/** A project using the helper: the package and effect linked into node_modules, a copy of the golden set. */
const makeProject = (): string => {
  const dir = mkdtempSync(join(tmpdir(), "eval-vitest-"))
  mkdirSync(join(dir, "node_modules"))
  symlinkSync(repo, join(dir, "node_modules", "turn-eval"), "dir")
  symlinkSync(resolve("node_modules/effect"), join(dir, "node_modules", "effect"), "dir")
  writeFileSync(join(dir, "package.json"), `${JSON.stringify({ name: "team-suite", private: true, type: "module" })}\n`)
  cpSync("cases", join(dir, "cases"), { recursive: true })
  cpSync("baseline.json", join(dir, "baseline.json"))
  // A floor above what the recorded turns reach: they fall below it.
  writeFileSync(join(dir, "high-baseline.json"), JSON.stringify({ floor: 0.9 }))
  const broken = JSON.parse(readFileSync("cases/golden-cases.json", "utf8"))
  broken.cases[1].expect[0].kind = "cites-everything"
  mkdirSync(join(dir, "broken"))
  writeFileSync(join(dir, "broken", "golden-cases.json"), JSON.stringify(broken, null, 2))
  // The same cases in another file: another golden set, which the committed floor does not belong to.
  mkdirSync(join(dir, "other"))
  cpSync("cases/golden-cases.json", join(dir, "other", "golden-cases.json"))
  mkdirSync(join(dir, "test"))
  for (const [name, text] of Object.entries(testFiles)) writeFileSync(join(dir, name), text)
  return dir
}

/** Runs vitest on the project without blocking this process's event loop (the stand-in answers it). */
const runVitest = (
  dir: string,
  env: NodeJS.ProcessEnv,
  extra: ReadonlyArray<string> = ["--reporter=json", "--outputFile=report.json"]
) =>
  spawnAsync(
    process.execPath,
    [resolve("node_modules/vitest/vitest.mjs"), "run", "--root", dir, ...extra],
    { cwd: dir, env: { ...process.env, NO_COLOR: "1", ...env }, timeoutMs: 150_000 }
  )

describe("turn-eval/vitest in a team's own suite", () => {
  let project = ""
  let report: Report = { testResults: [] }
  let standInStats: { requests: Record<string, number>; left: ReadonlyArray<unknown> } | undefined
  let exitCode: number | null = null

  const file = (name: string) => {
    const found = report.testResults.find((r) => r.name === join(project, name))
    if (found === undefined) throw new Error(`no results for ${name} in the report`)
    return found
  }
  const byTitle = (name: string) => new Map(file(name).assertionResults.map((a) => [a.title.split(" — ")[0]!, a]))

  beforeAll(async () => {
    project = makeProject()
    await withStandIn({}, async (s) => {
      const run = await runVitest(project, { APP_URL: s.url, APP_COOKIE: Redacted.value(s.cookie()) })
      exitCode = run.code
      standInStats = { requests: s.stats().requests, left: s.conversations() }
    })
    report = JSON.parse(readFileSync(join(project, "report.json"), "utf8")) as Report
  }, 180_000)

  afterAll(() => rmSync(project, { recursive: true, force: true }))

  it("fails the whole suite (exit 1) because some files fail, and every file was collected", () => {
    expect(exitCode).toBe(1)
    for (const name of Object.keys(testFiles)) expect(file(name).message).toBe("")
  })

  it("registers a describe per surface, a test per case named by its id and what it guards, and a floor test", () => {
    const results = file(readmeExample[1]!).assertionResults
    expect(results).toHaveLength(cases.length + 1)
    for (const c of cases) {
      const result = results.find((r) => r.title === `${c.id} — ${c.guards}`)
      expect(result?.ancestorTitles).toEqual(["golden set cases/golden-cases.json", c.surface])
    }
    expect(results.at(-1)).toMatchObject({
      title: "holds the floor",
      ancestorTitles: ["golden set cases/golden-cases.json"]
    })
  })

  it(
    "the README's example is green exactly as run --check is: the floor tolerates the failing cases, each an expected failure",
    async () => {
      const check = evalCli(["run", "--fixtures", "cases/fixtures", "--check"], { cwd: project })
      expect(check.code).toBe(0)
      expect(check.stdout).toContain(`floor ${showRate(baseline.floor)} · holds the floor`)
      const alone = await runVitest(project, {}, [readmeExample[1]!, "--reporter=verbose"])
      expect(alone.code, alone.stderr).toBe(0)
      expect(alone.stdout).toMatch(new RegExp(`Tests +${cases.length + 1} passed \\(${cases.length + 1}\\)`))
      // Each tolerated failure is an expected failure whose facts show as its annotation.
      const tolerated = [...alone.stdout.matchAll(/fails, tolerated by the floor: (\S+) failed:/g)].map((m) => m[1])
      expect(tolerated).toEqual([...failingOnFixtures])
      expect(alone.stdout).toContain(
        "fails, tolerated by the floor: docs.refund-proration-no-retired-page failed:\n  cites-only-surfaced: " +
          "unsurfaced: /docs/billing/refunds-2023"
      )
      expect(file(readmeExample[1]!).status).toBe("passed")
    },
    180_000
  )

  it("below the floor, the suite is red as run --check is: the floor test and each failing case fail with their facts", () => {
    const check = evalCli(["run", "--fixtures", "cases/fixtures", "--check", "--baseline", "high-baseline.json"], {
      cwd: project
    })
    expect(check.code).toBe(1)
    const results = byTitle("below.test.ts")
    expect(file("below.test.ts").status).toBe("failed")
    const failed = [...results].filter(([, r]) => r.status === "failed").map(([id]) => id)
    expect(failed.sort()).toEqual([...failingOnFixtures, "holds the floor"].sort())
    expect(results.get("holds the floor")!.failureMessages[0]).toContain(
      `${tally(passingOnFixtures, cases.length)} · floor 0.9000 · below the floor`
    )
  })

  it("holds another golden set to no floor of the default set's, as run --check refuses it", () => {
    const check = evalCli(["run", "--cases", "other/golden-cases.json", "--fixtures", "cases/fixtures", "--check"], {
      cwd: project
    })
    expect(check.code).toBe(2)
    const belongs = "the floor in baseline.json belongs to cases/golden-cases.json, not to other/golden-cases.json"
    expect(check.stderr).toContain(belongs)
    const results = byTitle("other-set.test.ts")
    expect(results.get("holds the floor")!.status).toBe("failed")
    expect(results.get("holds the floor")!.failureMessages[0]).toContain(belongs)
  })

  it(
    "under strict, fails the cases the CLI does, with every failing fact, and has no floor test; by default the " +
      "floor tolerates them",
    () => {
      const results = byTitle("strict.test.ts")
      expect(results.has("holds the floor")).toBe(false)
      expect([...byTitle(readmeExample[1]!)].filter(([, r]) => r.status !== "passed")).toEqual([])
      const failed = [...results].filter(([, r]) => r.status === "failed").map(([id]) => id)
      expect(failed.sort()).toEqual([...failingOnFixtures].sort())
      expect([...results.values()].filter((r) => r.status === "passed")).toHaveLength(
        cases.length - failingOnFixtures.length
      )

      const cli = evalCli(["run", "--fixtures", "cases/fixtures", "--json", "results.json"], { cwd: project })
      expect(cli.code).toBe(0)
      const fromCli = Schema.decodeUnknownSync(RunResult)(
        JSON.parse(readFileSync(join(project, "results.json"), "utf8"))
      )
      for (const c of fromCli.cases.filter((c) => !c.passed)) {
        const [message] = results.get(c.id)!.failureMessages
        expect(message).toContain(`${c.id} failed:`)
        const facts = c.expectations.filter((e) => !e.passed)
        expect(facts.length).toBeGreaterThan(0)
        for (const e of facts) {
          // A conversation's fact names its step.
          const step = e.step === undefined ? "" : `turn ${e.step} (${c.turns![e.step - 1]!.kind}) · `
          expect(message).toContain(`  ${step}${e.kind}: ${e.fact}`)
        }
      }
      expect(results.get(failingOnFixtures[0]!)!.failureMessages[0]).toContain(
        "cites-only-surfaced: unsurfaced: /docs/billing/refunds-2023"
      )
    }
  )

  it("turns a cases file that cannot be used into one failing test naming the file, the JSON path and what was expected", () => {
    const results = file("broken.test.ts").assertionResults
    expect(results.map((r) => [r.title, r.status])).toEqual([["loads the golden set", "failed"]])
    expect(results[0]!.failureMessages[0]).toContain(
      `broken/golden-cases.json: $.cases[1].expect[0].kind: expected "cites-only-surfaced" | "cites" |`
    )
    expect(results[0]!.failureMessages[0]).toContain(`got "cites-everything"`)
  })

  it("fails a case whose turn cannot be obtained with its turn error, from the fixtures option or a layer given", () => {
    const results = file("no-turns.test.ts").assertionResults
    const noRecordings = results.filter((r) => r.ancestorTitles[0] === "no recordings")
    expect(noRecordings.map((r) => r.title.split(" — ")[0]).sort()).toEqual([...smokeIds].sort())
    for (const r of noRecordings) {
      const id = r.title.split(" — ")[0]!
      expect(r.status).toBe("failed")
      expect(r.failureMessages[0]).toContain(`${id} failed:\n  turn error: no recorded turn: no-fixtures/${id}.json`)
    }
    const table = results.filter((r) => r.ancestorTitles[0] === "empty table")
    expect(table.map((r) => [r.title.split(" — ")[0], r.status])).toEqual([[failingOnFixtures[0], "failed"]])
    expect(table[0]!.failureMessages[0]).toContain(`turn error: no turn for case ${failingOnFixtures[0]}`)
  })

  it("runs on another layer given: live against the app, every case passing, each conversation deleted", () => {
    const results = file("live.test.ts").assertionResults
    expect(results).toHaveLength(cases.length + 1)
    expect(results.filter((r) => r.status !== "passed").map((r) => [r.title, r.failureMessages])).toEqual([])
    // A question (or decision) per step, a conversation per case.
    const steps = cases.reduce((n, c) => n + stepsOf(c).length, 0)
    expect(standInStats?.requests).toMatchObject({ ask: steps, delete: cases.length })
    expect(standInStats?.left).toEqual([])
  })
})
