/**
 * `init` and `demo` in a folder that has nothing: the starter project `init` writes (never over a
 * file), what its recorded turns grade to, the workflow it writes (valid, and its command passes), and
 * the demo falling back on the package's own golden set.
 */
import { Schema } from "effect"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { parse } from "yaml"
import { starterFiles } from "../../src/Commands/Init.js"
import { CasesFile } from "../../src/Schema/Case.js"
import { bin, evalCli, evalCliAsync, shellAsync, stackFrame, userEnv } from "../support/cli.js"
import { standInHolds } from "../support/golden.js"
import { validateJUnit } from "../support/junit.js"

const emptyFolder = () => mkdtempSync(join(tmpdir(), "eval-init-"))
const read = (dir: string, file: string) => readFileSync(join(dir, file), "utf8")
const casesIn = (file: string) => Schema.decodeUnknownSync(CasesFile)(JSON.parse(readFileSync(file, "utf8"))).cases

describe("init", () => {
  it("writes the starter project into an empty folder and prints the next three commands", () => {
    const dir = emptyFolder()
    const run = evalCli(["init"], { cwd: dir })
    expect(run.stderr).toBe("")
    expect(run.code).toBe(0)
    expect(run.stdout.split("\n").filter((l) => l.startsWith("wrote "))).toEqual(
      starterFiles.map((f) => `wrote ${f.target}`)
    )
    for (const { target, template } of starterFiles) expect(read(dir, target)).toBe(readFileSync(template, "utf8"))
    const next = [...run.stdout.matchAll(/^ {2}(\S.*)$/gm)].map((m) => m[1]!)
    expect(next).toEqual([
      "turn-eval run --fixtures cases/fixtures --check",
      "turn-eval demo",
      "EVAL_COOKIE='session=…' turn-eval run --base-url http://127.0.0.1:5173 --check"
    ])
  })

  it("is a project the suite runs: valid, one recorded turn failing with its fact, the floor held", () => {
    const dir = emptyFolder()
    expect(evalCli(["init"], { cwd: dir }).code).toBe(0)
    const validate = evalCli(["validate"], { cwd: dir })
    expect(validate.code).toBe(0)
    expect(validate.stdout).toContain("baseline.json: floor 0.5")
    const run = evalCli(["run", "--fixtures", "cases/fixtures", "--check"], { cwd: dir })
    expect(run.stderr).not.toMatch(stackFrame)
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(
      "✓ docs  docs.refund-window-cites-source\n✗ docs  docs.refund-proration-no-retired-page\n    " +
        "cites-only-surfaced  unsurfaced: /docs/billing/refunds-2023"
    )
    expect(run.stdout).toContain("1/2 passed · pass rate 0.5000 · floor 0.5000 · holds the floor")
  })

  it("never overwrites a file: one that exists is kept and reported, the rest written, exit 0", () => {
    const dir = emptyFolder()
    mkdirSync(join(dir, "cases"))
    writeFileSync(join(dir, "cases/golden-cases.json"), "mine\n")
    writeFileSync(join(dir, "baseline.json"), "{\"floor\": 0.9}\n")
    const first = evalCli(["init"], { cwd: dir })
    expect(first.code).toBe(0)
    expect(first.stdout).toContain("kept  cases/golden-cases.json (it exists; not overwritten)")
    expect(first.stdout).toContain("kept  baseline.json (it exists; not overwritten)")
    expect(first.stdout).toContain("wrote cases/surfaces.json")
    expect(read(dir, "cases/golden-cases.json")).toBe("mine\n")
    expect(read(dir, "baseline.json")).toBe("{\"floor\": 0.9}\n")
    const again = evalCli(["init"], { cwd: dir })
    expect(again.code).toBe(0)
    expect(again.stdout.split("\n").filter((l) => l.startsWith("kept  "))).toHaveLength(starterFiles.length)
    expect(again.stdout).not.toContain("wrote ")
  })

  it("writes a valid GitHub Actions workflow whose command grades the starter and holds the floor", async () => {
    const dir = emptyFolder()
    expect(evalCli(["init"], { cwd: dir }).code).toBe(0)
    const workflow = parse(read(dir, ".github/workflows/turn-eval.yml")) as {
      on: Record<string, unknown>
      jobs: Record<string, { "runs-on": string; steps: Array<{ run?: string; uses?: string }> }>
    }
    expect(Object.keys(workflow.on)).toEqual(["push", "pull_request"])
    const [job] = Object.values(workflow.jobs)
    expect(job!["runs-on"]).toBe("ubuntu-latest")
    const commands = job!.steps.flatMap((step) => step.run?.startsWith("npx turn-eval ") ? [step.run] : [])
    expect(commands).toEqual([
      "npx turn-eval run --fixtures cases/fixtures --check --reporter pretty --reporter github --reporter junit=reports/turn-eval.xml"
    ])
    const summary = join(dir, "summary.md")
    const run = await shellAsync(commands[0]!.replace(/^npx turn-eval /, `${process.execPath} ${bin} `), dir, {
      ...userEnv(),
      NO_COLOR: "1",
      CI: "true",
      GITHUB_ACTIONS: "true",
      GITHUB_STEP_SUMMARY: summary
    })
    expect(run.notes).toBe("")
    expect(run.code).toBe(0)
    expect(run.stdout.split("\n").filter((line) => line.startsWith("::error "))).toHaveLength(1)
    expect(read(dir, "summary.md")).toContain("**1/2 passed**")
    expect(await validateJUnit(read(dir, "reports/turn-eval.xml"))).toEqual([])
  })

  it("starts from the committed golden set: the same cases, the same recorded turns, the same surface", () => {
    const committed = new Map(casesIn("cases/golden-cases.json").map((c) => [c.id, c]))
    const starter = casesIn("templates/starter/golden-cases.json")
    for (const c of starter) {
      expect(c).toEqual(committed.get(c.id))
      expect(readFileSync(`templates/starter/fixtures/${c.id}.json`, "utf8")).toBe(
        readFileSync(`cases/fixtures/${c.id}.json`, "utf8")
      )
    }
    const surfaces = (file: string) =>
      (JSON.parse(readFileSync(file, "utf8")) as { surfaces: Record<string, unknown> }).surfaces
    expect(surfaces("templates/starter/surfaces.json")).toEqual({ docs: surfaces("cases/surfaces.json")["docs"] })
  })
})

describe("demo in a folder with no golden set", () => {
  it("asks the package's own golden set, saying so, and holds its floor", async () => {
    const run = await evalCliAsync(["demo"], { cwd: emptyFolder() })
    expect(run.stderr).not.toMatch(stackFrame)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(
      /^no cases\/golden-cases\.json in this folder: asking the package's own golden set \(turn-eval init writes a starter\)\n/
    )
    expect(run.stdout).toContain(standInHolds)
  })

  it("asks the folder's own golden set when it has one", async () => {
    const dir = emptyFolder()
    expect(evalCli(["init"], { cwd: dir }).code).toBe(0)
    const run = await evalCliAsync(["demo"], { cwd: dir })
    expect(run.code).toBe(0)
    expect(run.stdout).not.toContain("package's own golden set")
    expect(run.stdout).toContain("2/2 passed · pass rate 1.0000 · floor 0.5000 · holds the floor")
  })
})
