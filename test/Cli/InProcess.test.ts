/**
 * validate, ratchet, diff, run --compare, shards and merge, --repeat and audit run in this process,
 * their console captured: the same command path as the bin, with the exit code and what each prints
 * asserted as the subprocess tests of the bin (test/Cli/Cli.test.ts, Workflow.test.ts, Audit.test.ts)
 * assert it. Paths are absolute: a command in this process runs in the checkout, and writes only to a
 * scratch project.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { showRateChange } from "../../src/Scorecard/Render/DiffText.js"
import { showRate } from "../../src/Scorecard/Scorecard.js"
import { scratchProject } from "../support/cli.js"
import {
  caseCount,
  floorOf,
  goldenCases,
  offlineHolds,
  offlineScore,
  passingOnFixtures,
  rateOf,
  selectedBy,
  validated
} from "../support/golden.js"
import { cliInProcess } from "../support/inProcess.js"
import { readRunResult } from "../support/json.js"
import { untimed } from "../support/untimed.js"

/** A scratch project, its files by name, and the arguments pointing a command at its golden set and baseline. */
const project = () => {
  const dir = scratchProject()
  const at = (file: string) => join(dir, file)
  const files = [
    ...["--cases", at("cases/golden-cases.json"), "--surfaces", at("cases/surfaces.json")],
    ...["--baseline", at("baseline.json")]
  ]
  const runArgs = ["run", "--silent", "--fixtures", at("cases/fixtures"), ...files]
  /** Grades the project's recorded turns into a results file. */
  const run = async (results: string) => {
    const ran = await cliInProcess([...runArgs, "--json", at(results)])
    expect(ran.code, ran.stderr).toBe(0)
  }
  /** Edits one recorded turn of the project. */
  const editTurn = (id: string, edit: (turn: { answer: string; trace: { citations: Array<object> } }) => void) => {
    const file = at(`cases/fixtures/${id}.json`)
    const turn = JSON.parse(readFileSync(file, "utf8"))
    edit(turn)
    writeFileSync(file, JSON.stringify(turn))
  }
  /** Makes one passing case of the project fail: its recorded answer now cites a page it never surfaced. */
  const regress = () =>
    editTurn("docs.refund-window-cites-source", (turn) => {
      turn.answer += " See also /docs/billing/made-up."
      turn.trace.citations.push({ path: "/docs/billing/made-up", match: "unsurfaced" })
    })
  return { dir, at, files, runArgs, run, editTurn, regress }
}

describe("validate, in this process", () => {
  it("accepts the committed golden set, catalog and baseline", async () => {
    expect(await cliInProcess(["validate"])).toEqual({ code: 0, stdout: validated.trimEnd(), stderr: "" })
  })

  it("rejects a cases file not JSON, a missing one and a corrupt baseline, naming the file (exit 2)", async () => {
    const p = project()
    writeFileSync(p.at("cases/golden-cases.json"), "{\n  \"version\": 1,\n  \"cases\": [\n}\n")
    const broken = await cliInProcess(["validate", "--cases", p.at("cases/golden-cases.json")])
    expect(broken).toEqual({
      code: 2,
      stdout: "",
      stderr: `${p.at("cases/golden-cases.json")}: not valid JSON: unexpected "}" at line 4, column 1`
    })
    const missing = await cliInProcess(["validate", "--cases", p.at("nope.json")])
    expect(missing).toEqual({ code: 2, stdout: "", stderr: `${p.at("nope.json")}: cannot read: no such file` })
    writeFileSync(p.at("baseline.json"), "{\"floor\": \"high\"}")
    const baseline = await cliInProcess(["validate", "--baseline", p.at("baseline.json")])
    const corrupt = `${p.at("baseline.json")}: $.floor: expected number, got "high"`
    expect(baseline).toEqual({ code: 2, stdout: "", stderr: corrupt })
  })
})

describe("ratchet, in this process", () => {
  it("sets the floor from a full run, raises it, and never lowers it", async () => {
    const p = project()
    await p.run("first.json")
    const [set, raised] = [showRate(floorOf(passingOnFixtures)), showRate(floorOf(passingOnFixtures + 1))]
    const first = await cliInProcess(["ratchet", "--from", p.at("first.json"), ...p.files])
    expect(first).toEqual({
      code: 0,
      stdout: `floor set to ${set} (${passingOnFixtures}/${caseCount} passed); wrote ${p.at("baseline.json")}`,
      stderr: ""
    })
    expect(JSON.parse(readFileSync(p.at("baseline.json"), "utf8")).floor).toBe(floorOf(passingOnFixtures))

    // The assistant is fixed for one case: its recording now passes, and the floor rises.
    p.editTurn("docs.force-deploy-no-invented-flag", (turn) => {
      turn.answer = "Harbor has no forced deploy; use a rollback instead."
    })
    await p.run("second.json")
    const second = await cliInProcess(["ratchet", "--from", p.at("second.json"), ...p.files])
    expect(second).toEqual({
      code: 0,
      stdout: `floor raised ${set} → ${raised} (${passingOnFixtures + 1}/${caseCount} passed); ` +
        `wrote ${p.at("baseline.json")}`,
      stderr: ""
    })

    // An older, worse run cannot lower it, and the file is left untouched.
    const before = readFileSync(p.at("baseline.json"), "utf8")
    const kept = await cliInProcess(["ratchet", "--from", p.at("first.json"), ...p.files])
    expect(kept).toEqual({
      code: 0,
      stdout: `floor stays at ${raised}: this run achieved only ${set} (${passingOnFixtures}/${caseCount} passed)`,
      stderr: ""
    })
    expect(readFileSync(p.at("baseline.json"), "utf8")).toBe(before)
  })

  it("refuses a results file whose counts do not follow from its cases, and one that is missing (exit 2)", async () => {
    const p = project()
    await p.run("r.json")
    const result = JSON.parse(readFileSync(p.at("r.json"), "utf8"))
    writeFileSync(p.at("r.json"), JSON.stringify({ ...result, passedCount: caseCount, passRate: 1 }))
    expect(await cliInProcess(["ratchet", "--from", p.at("r.json"), ...p.files])).toEqual({
      code: 2,
      stdout: "",
      stderr: `${p.at("r.json")}: $.passedCount: says ${caseCount}, but ${passingOnFixtures} cases passed\n` +
        `${p.at("r.json")}: $.passRate: says 1, but the cases give ${passingOnFixtures / caseCount}`
    })
    expect(await cliInProcess(["ratchet", "--from", p.at("missing.json"), ...p.files])).toEqual({
      code: 2,
      stdout: "",
      stderr: `${p.at("missing.json")}: cannot read: no such file`
    })
  })
})

describe("diff, in this process", () => {
  it("names a regression with its fact, fails --check on it, and refuses different case sets (exit 2)", async () => {
    const p = project()
    await p.run("before.json")
    p.regress()
    await p.run("after.json")
    const [before, after] = [passingOnFixtures, passingOnFixtures - 1]
    const checked = await cliInProcess(["diff", p.at("before.json"), p.at("after.json"), "--check"])
    expect(checked.code).toBe(1)
    expect(checked.stderr).toBe("")
    expect(checked.stdout).toContain(
      `compared with ${p.at("before.json")}: pass rate ${rateOf(before)} → ${rateOf(after)}` +
        ` (${showRateChange(before / caseCount, after / caseCount)})` +
        ` · ${before}/${caseCount} → ${after}/${caseCount} passed`
    )
    expect(checked.stdout).toContain(
      "regressed 1:\n  ✗ docs  docs.refund-window-cites-source\n" +
        "      cites-only-surfaced: unsurfaced: /docs/billing/made-up"
    )
    expect((await cliInProcess(["diff", p.at("after.json"), p.at("before.json"), "--check"])).code).toBe(0)
    const json = await cliInProcess(["diff", p.at("before.json"), p.at("after.json"), "--format", "json"])
    expect(json.code).toBe(0)
    const parsed = JSON.parse(json.stdout)
    expect(parsed.regressions.map((c: { id: string }) => c.id)).toEqual(["docs.refund-window-cites-source"])
    expect(parsed.passRate).toEqual({ from: before / caseCount, to: after / caseCount })

    expect((await cliInProcess([...p.runArgs, "--filter", "citations", "--json", p.at("some.json")])).code).toBe(0)
    const refused = await cliInProcess(["diff", p.at("before.json"), p.at("some.json")])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain(`${p.at("before.json")} and ${p.at("some.json")} ran over different case sets`)
    const broken = await cliInProcess(["diff", p.at("before.json"), p.at("cases/surfaces.json")])
    expect(broken.code).toBe(2)
    expect(broken.stderr.startsWith(`${p.at("cases/surfaces.json")}: $`)).toBe(true)
  })
})

describe("run --compare, in this process", () => {
  it("names the regression against the earlier run, and refuses another case set before grading (exit 2)", async () => {
    const p = project()
    await p.run("before.json")
    p.regress()
    const compared = await cliInProcess([...p.runArgs, "--json", p.at("after.json"), "--compare", p.at("before.json")])
    expect(compared.code, compared.stderr).toBe(0)
    const [before, after] = [passingOnFixtures, passingOnFixtures - 1]
    expect(compared.stdout).toContain(
      `compared with ${p.at("before.json")}: pass rate ${rateOf(before)} → ${rateOf(after)}` +
        ` (${showRateChange(before / caseCount, after / caseCount)})` +
        ` · ${before}/${caseCount} → ${after}/${caseCount} passed`
    )
    expect(compared.stdout).toMatch(
      /regressed 1:\n {2}✗ docs {2}docs\.refund-window-cites-source\n {6}cites-only-surfaced: unsurfaced: \/docs\/billing\/made-up/
    )
    const markdown = await cliInProcess(["diff", p.at("before.json"), p.at("after.json"), "--format", "markdown"])
    expect(markdown.stdout).toContain("**Regressions (1)**")

    expect((await cliInProcess([...p.runArgs, "--filter", "citations", "--json", p.at("some.json")])).code).toBe(0)
    const early = await cliInProcess([
      ...p.runArgs,
      "--filter",
      "citations",
      "--compare",
      p.at("before.json"),
      "--json",
      p.at("late.json")
    ])
    expect(early.code).toBe(2)
    expect(early.stderr).toContain(`${p.at("before.json")} and this run ran over different case sets`)
    expect(early.stderr).toMatch(/between them; pass --allow-different-sets to compare them case by case$/)
    expect(early.stdout).toBe("")
    const allowed = await cliInProcess(["diff", p.at("before.json"), p.at("some.json"), "--allow-different-sets"])
    expect(allowed.code).toBe(0)
    expect(allowed.stdout).toContain(`removed ${caseCount - selectedBy("citations").length}:`)
  })
})

describe("--shard and merge, in this process", () => {
  it("splits the golden set into stable disjoint parts whose merge equals the whole run", async () => {
    const p = project()
    const ran = await cliInProcess([...p.runArgs, "--json", p.at("full.json"), "--ratchet"])
    expect(ran.code, ran.stderr).toBe(0)
    const parts = []
    for (const i of [1, 2, 3]) {
      const shard = await cliInProcess([...p.runArgs, "--shard", `${i}/3`, "--json", p.at(`shard-${i}.json`)])
      expect(shard.code, shard.stderr).toBe(0)
      expect(shard.stdout).toContain(`shard ${i}/3`)
      parts.push(readRunResult(p.at(`shard-${i}.json`)))
    }
    const ids = parts.flatMap((r) => r.cases.map((c) => c.id))
    expect(new Set(ids).size).toBe(caseCount)
    expect(parts.every((r) => r.cases.length > 0 && r.floor === null)).toBe(true)

    // The partition depends on the case ids alone: reversing the golden set changes no shard.
    const file = JSON.parse(readFileSync(p.at("cases/golden-cases.json"), "utf8"))
    writeFileSync(p.at("cases/reversed.json"), JSON.stringify({ ...file, cases: [...file.cases].reverse() }))
    const reversed = p.runArgs.map((arg) => arg === p.at("cases/golden-cases.json") ? p.at("cases/reversed.json") : arg)
    expect((await cliInProcess([...reversed, "--shard", "2/3", "--json", p.at("rev-2.json")])).code).toBe(0)
    expect(readRunResult(p.at("rev-2.json")).cases.map((c) => c.id).sort()).toEqual(
      parts[1]!.cases.map((c) => c.id).sort()
    )

    const shards = [3, 1, 2].map((i) => p.at(`shard-${i}.json`))
    const merged = await cliInProcess([
      "merge",
      ...shards,
      ...p.files,
      "--check",
      "--json",
      p.at("merged.json"),
      "--reporter",
      `junit=${p.at("merged.xml")}`
    ])
    expect(merged.code, merged.stderr).toBe(0)
    expect(merged.stdout).toContain(offlineHolds)
    // The whole run's results, now held to the floor the full run set.
    expect(untimed(readRunResult(p.at("merged.json")))).toEqual(
      untimed({ ...readRunResult(p.at("full.json")), floor: floorOf(passingOnFixtures), passed: true })
    )

    const merge = (...files: ReadonlyArray<string>) => cliInProcess(["merge", ...files.map(p.at), ...p.files])
    const missing = await merge("shard-1.json", "shard-3.json")
    expect([missing.code, missing.stderr]).toEqual([2, expect.stringContaining("missing shard 2/3")])
    const twice = await merge("shard-1.json", "shard-1.json", "shard-2.json", "shard-3.json")
    expect([twice.code, twice.stderr]).toEqual([2, expect.stringContaining("shard 1/3 appears twice")])
    const notShard = await merge("full.json")
    expect([notShard.code, notShard.stderr]).toEqual([
      2,
      expect.stringContaining(`${p.at("full.json")}: $.shard: expected the results of a sharded run`)
    ])
    const checked = await cliInProcess([...p.runArgs, "--shard", "1/3", "--check"])
    expect([checked.code, checked.stderr]).toEqual([2, expect.stringContaining("a shard cannot be checked against it")])
  })
})

describe("--repeat, in this process", () => {
  it("keeps every attempt, and holds or moves a floor only with runs of the K it was set at", async () => {
    const p = project()
    const first = await cliInProcess([...p.runArgs, "--repeat", "3", "--json", p.at("r3.json"), "--ratchet"])
    expect(first.code, first.stderr).toBe(0)
    const r3 = readRunResult(p.at("r3.json"))
    expect(r3.repeat).toBe(3)
    expect(r3.cases.every((c) => c.attempts?.length === 3)).toBe(true)
    expect(first.stdout).toContain(`${offlineScore} passed all 3 attempts`)
    expect(JSON.parse(readFileSync(p.at("baseline.json"), "utf8"))).toMatchObject({
      floor: floorOf(passingOnFixtures),
      repeat: 3
    })

    expect((await cliInProcess([...p.runArgs, "--repeat", "3", "--check"])).code).toBe(0)
    const onceChecked = await cliInProcess([...p.runArgs, "--check"])
    expect(onceChecked.code).toBe(2)
    expect(onceChecked.stderr).toContain("was set with --repeat 3; it is not applied to a run with --repeat 1")
    const once = await cliInProcess([...p.runArgs, "--json", p.at("r1.json")])
    expect(once.code).toBe(0)
    expect(readRunResult(p.at("r1.json")).floor).toBeNull()
    const refused = await cliInProcess(["ratchet", "--from", p.at("r1.json"), ...p.files])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("a floor moves only with runs of the K it was set at")
    // Told before anything runs: no scorecard is printed.
    const ratchetOtherK = await cliInProcess([...p.runArgs, "--ratchet"])
    expect(ratchetOtherK.code).toBe(2)
    expect(ratchetOtherK.stderr).toContain(`--ratchet: the floor in ${p.at("baseline.json")} was set with --repeat 3`)
    expect(ratchetOtherK.stdout).toBe("")
    expect((await cliInProcess([...p.runArgs, "--repeat", "101"])).stderr).toContain("--repeat must be from 1 to 100")
  })
})

describe("audit, in this process", () => {
  it("exits 0 when every turn holds the invariants, counting the turns of other surfaces it skipped", async () => {
    const p = project()
    const jsonl = p.at("turns.jsonl")
    const recorded = (id: string) => JSON.parse(readFileSync(p.at(`cases/fixtures/${id}.json`), "utf8"))
    // An export holds every turn: a conversation's, one a line.
    const all = goldenCases.flatMap((c): ReadonlyArray<{ trace: { surface: string } }> => {
      const r = recorded(c.id)
      return "turns" in r ? r.turns : [r]
    })
    writeFileSync(jsonl, `${all.map((t) => JSON.stringify(t)).join("\n")}\n`)
    const ops = all.filter((t) => t.trace.surface === "ops-agent").length
    const audit = ["audit", "--surface", "ops-agent", "--expect", "never-calls=deploy", "--traces"]
    const audited = await cliInProcess([...audit, jsonl])
    expect(audited).toEqual({
      code: 0,
      stdout: `audited ${ops} turns of ops-agent against 1 expectation: 0 violations in 0 turns · ` +
        `${all.length - ops} turns of other surfaces skipped`,
      stderr: ""
    })
    const missing = await cliInProcess([...audit, p.at("no.jsonl")])
    expect(missing).toEqual({ code: 2, stdout: "", stderr: `${p.at("no.jsonl")}: cannot read: no such file` })
  })
})
