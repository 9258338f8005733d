/**
 * A floor belongs to its golden set, through the real CLI: a run of another set is neither held to the
 * checkout's floor nor moves it (`--check` and `--ratchet` refused, naming both files and `--baseline`;
 * without them the run says first that the floor does not apply), the ratchet and `init` write the set
 * a baseline belongs to, and a baseline written before it named one still holds the default set, named
 * any way that is the same file.
 */
import { Schema } from "effect"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { describe, expect, it } from "vitest"
import { Baseline } from "../../src/Schema/Baseline.js"
import { RunResult } from "../../src/Schema/Result.js"
import { showRate } from "../../src/Scorecard/Scorecard.js"
import { evalCli, scratchProject, stackFrame } from "../support/cli.js"
import { committedFloor, gradedOnFixtures, offlineHolds, offlineTally } from "../support/golden.js"

const committed = readFileSync("baseline.json", "utf8")
const readBaseline = (file: string) => Schema.decodeUnknownSync(Baseline)(JSON.parse(readFileSync(file, "utf8")))

// Another golden set: every case failing on its recorded turn and one passing, so that its rate is
// below the committed floor, which it would fail were it held to it.
const otherIds = [
  ...gradedOnFixtures.filter((r) => !r.passed).map((r) => r.id),
  gradedOnFixtures.find((r) => r.passed)!.id
]
const otherPassing = 1
const otherRate = showRate(otherPassing / otherIds.length)

/** A scratch project with the committed floor (a baseline that names no set) and `other.json`. */
const project = () => {
  const dir = scratchProject()
  writeFileSync(join(dir, "baseline.json"), committed)
  const golden = JSON.parse(readFileSync(join(dir, "cases/golden-cases.json"), "utf8"))
  const other = { ...golden, cases: golden.cases.filter((c: { id: string }) => otherIds.includes(c.id)) }
  writeFileSync(join(dir, "other.json"), JSON.stringify(other, null, 2))
  const run = (args: ReadonlyArray<string>, cwd = dir) => {
    const ran = evalCli(args, { cwd })
    expect(ran.stderr).not.toMatch(stackFrame)
    return ran
  }
  return { dir, run, at: (file: string) => join(dir, file) }
}

const belongs = "the floor in baseline.json belongs to cases/golden-cases.json, not to other.json"
const passBaseline = "pass --baseline FILE for other.json's own floor"

describe("a floor applied to another golden set", () => {
  it("is refused under --check (exit 2) before anything runs, naming both files and --baseline", () => {
    const p = project()
    const checked = p.run(["run", "--cases", "other.json", "--fixtures", "cases/fixtures", "--check"])
    expect(checked.code).toBe(2)
    expect(checked.stderr).toContain(`error: --check: ${belongs}`)
    expect(checked.stderr).toContain(passBaseline)
    expect(checked.stdout).toBe("")
  })

  it("is not held without --check: the first line says so, and the verdict holds no floor", () => {
    const p = project()
    const ran = p.run(["run", "--cases", "other.json", "--fixtures", "cases/fixtures", "--json", "r.json"])
    expect(ran.code).toBe(0)
    const lines = ran.stdout.split("\n")
    expect(lines[0]).toBe(`${belongs}: it is not applied (${passBaseline})`)
    expect(ran.stdout).not.toContain("below the floor")
    expect(ran.stdout).not.toContain(`floor ${showRate(committedFloor)}`)
    expect(ran.stdout).toContain(
      `${otherPassing}/${otherIds.length} passed · pass rate ${otherRate} · ${belongs}: it is not applied`
    )
    expect(Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(p.at("r.json"), "utf8"))).floor).toBeNull()
  })

  it("is not moved by --ratchet or the ratchet command (exit 2), the baseline untouched", () => {
    const p = project()
    const ratcheted = p.run(["run", "--cases", "other.json", "--fixtures", "cases/fixtures", "--ratchet"])
    expect(ratcheted.code).toBe(2)
    expect(ratcheted.stderr).toContain(`error: --ratchet: ${belongs}`)
    expect(ratcheted.stderr).toContain(passBaseline)
    expect(ratcheted.stdout).toBe("")

    expect(p.run(["run", "--cases", "other.json", "--fixtures", "cases/fixtures", "--json", "r.json"]).code).toBe(0)
    const command = p.run(["ratchet", "--cases", "other.json", "--from", "r.json"])
    expect(command.code).toBe(2)
    expect(command.stderr).toContain(`error: ${belongs}`)
    expect(command.stderr).toContain(passBaseline)
    expect(readFileSync(p.at("baseline.json"), "utf8")).toBe(committed)
  })

  it("is refused by merge --check of the other set's shards", () => {
    const p = project()
    for (const shard of ["1/2", "2/2"]) {
      const args = ["--cases", "other.json", "--fixtures", "cases/fixtures", "--shard", shard]
      expect(p.run(["run", ...args, "--json", `s${shard[0]}.json`]).code).toBe(0)
    }
    const merged = p.run(["merge", "s1.json", "s2.json", "--cases", "other.json", "--check"])
    expect(merged.code).toBe(2)
    expect(merged.stderr).toContain(`error: --check: ${belongs}`)
  })
})

describe("the golden set a baseline belongs to", () => {
  it("is written by the ratchet, and the other set then has a floor of its own that holds only it", () => {
    const p = project()
    const own = ["--cases", "other.json", "--fixtures", "cases/fixtures", "--baseline", "other-baseline.json"]
    const set = p.run(["run", ...own, "--ratchet"])
    expect(set.code).toBe(0)
    expect(set.stdout).toContain("wrote other-baseline.json")
    expect(readBaseline(p.at("other-baseline.json"))).toMatchObject({ cases: "other.json" })
    expect(p.run(["run", ...own, "--check"]).stdout).toContain(`floor ${otherRate} · holds the floor`)
    // The other floor is not the default set's.
    const wrong = p.run(["run", "--fixtures", "cases/fixtures", "--baseline", "other-baseline.json", "--check"])
    expect(wrong.code).toBe(2)
    expect(wrong.stderr).toContain(
      "the floor in other-baseline.json belongs to other.json, not to cases/golden-cases.json"
    )
  })

  it("is written, relative to the baseline's folder, when a raise moves a baseline that named none", () => {
    const p = project()
    mkdirSync(p.at("ci"))
    writeFileSync(p.at("ci/baseline.json"), JSON.stringify({ floor: 0 }))
    const raised = p.run(["run", "--fixtures", "cases/fixtures", "--baseline", "ci/baseline.json", "--ratchet"])
    expect(raised.code).toBe(0)
    expect(readBaseline(p.at("ci/baseline.json")).cases).toBe("../cases/golden-cases.json")
    // Found from another folder too, however the files are named from there.
    const elsewhere = p.run(
      [
        "run",
        "--cases",
        "../cases/golden-cases.json",
        "--surfaces",
        "../cases/surfaces.json",
        "--fixtures",
        "../cases/fixtures",
        "--baseline",
        "baseline.json",
        "--check"
      ],
      p.at("ci")
    )
    expect(elsewhere.code).toBe(0)
    expect(elsewhere.stdout).toContain(" · holds the floor")
  })

  it("is written by init: the starter's golden set", () => {
    const dir = mkdtempSync(join(tmpdir(), "eval-init-"))
    expect(evalCli(["init"], { cwd: dir }).code).toBe(0)
    expect(readBaseline(join(dir, "baseline.json")).cases).toBe("cases/golden-cases.json")
    expect(evalCli(["run", "--fixtures", "cases/fixtures", "--check"], { cwd: dir }).code).toBe(0)
  })

  it("is the default set for a baseline that names none, whichever way the same file is named", () => {
    const p = project()
    expect(readBaseline(p.at("baseline.json")).cases).toBeUndefined()
    for (const cases of ["cases/golden-cases.json", "./cases/golden-cases.json", p.at("cases/golden-cases.json")]) {
      const ran = p.run(["run", "--cases", cases, "--fixtures", "cases/fixtures", "--check"])
      expect(ran.code, cases).toBe(0)
      expect(ran.stdout.trimEnd().split("\n").at(-1), cases).toBe(offlineHolds)
      expect(ran.stdout, cases).toContain(offlineTally)
    }
    // From another folder, through the baseline's own path: the default set beside it.
    mkdirSync(p.at("sub"))
    const fromSub = p.run(
      [
        "run",
        "--cases",
        "../cases/golden-cases.json",
        "--surfaces",
        "../cases/surfaces.json",
        "--fixtures",
        "../cases/fixtures",
        "--baseline",
        "../baseline.json",
        "--check"
      ],
      p.at("sub")
    )
    expect(fromSub.code).toBe(0)
    expect(fromSub.stdout.trimEnd().split("\n").at(-1)).toBe(offlineHolds)
  })
})
