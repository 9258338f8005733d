/**
 * validate, ratchet, diff and audit run in this process, their console captured: the same command path
 * as the bin, with the exit code and what each prints asserted as the subprocess tests beside them
 * (test/Cli/Cli.test.ts, Workflow.test.ts, Audit.test.ts) assert it. Paths are absolute: a command in
 * this process runs in the checkout, and writes only to a scratch project.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { showRateChange } from "../../src/Scorecard/Render/DiffText.js"
import { showRate } from "../../src/Scorecard/Scorecard.js"
import { scratchProject } from "../support/cli.js"
import { caseCount, floorOf, goldenCases, onSurface, passingOnFixtures, rateOf, validated } from "../support/golden.js"
import { cliInProcess } from "../support/inProcess.js"

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
  return { dir, at, files, runArgs, run, editTurn }
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
    p.editTurn("docs.refund-window-cites-source", (turn) => {
      turn.answer += " See also /docs/billing/made-up."
      turn.trace.citations.push({ path: "/docs/billing/made-up", match: "unsurfaced" })
    })
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

describe("audit, in this process", () => {
  it("exits 0 when every turn holds the invariants, counting the turns of other surfaces it skipped", async () => {
    const p = project()
    const jsonl = p.at("turns.jsonl")
    const recorded = (id: string) => JSON.parse(readFileSync(p.at(`cases/fixtures/${id}.json`), "utf8"))
    const turns = goldenCases.map((c) => JSON.stringify(recorded(c.id)))
    writeFileSync(jsonl, `${turns.join("\n")}\n`)
    const ops = onSurface("ops-agent").cases
    const audit = ["audit", "--surface", "ops-agent", "--expect", "never-calls=deploy", "--traces"]
    const audited = await cliInProcess([...audit, jsonl])
    expect(audited).toEqual({
      code: 0,
      stdout: `audited ${ops} turns of ops-agent against 1 expectation: 0 violations in 0 turns · ` +
        `${caseCount - ops} turns of other surfaces skipped`,
      stderr: ""
    })
    const missing = await cliInProcess([...audit, p.at("no.jsonl")])
    expect(missing).toEqual({ code: 2, stdout: "", stderr: `${p.at("no.jsonl")}: cannot read: no such file` })
  })
})
