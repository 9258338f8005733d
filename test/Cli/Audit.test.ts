import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { evalCli, stackFrame } from "../support/cli.js"

const dir = mkdtempSync(join(tmpdir(), "eval-audit-"))
// The recordings of one-question cases, each a turn as an export writes it (a conversation's is a list of turns).
const recordings = readdirSync("cases/fixtures").sort().map((f) =>
  JSON.parse(readFileSync(join("cases/fixtures", f), "utf8"))
).filter((r) => !("turns" in r))
const jsonl = join(dir, "turns.jsonl")
writeFileSync(jsonl, recordings.map((r) => JSON.stringify(r)).join("\n") + "\n")

const specs = ["cites-only-surfaced", "calls-any-tool", "no-citations", "answer-excludes=--force", "outcome=answered"]

const violations = (stdout: string) =>
  stdout.split("\n").filter((line) => line.startsWith("✗ ")).map((line) => line.slice(2)).sort()

describe("eval audit", () => {
  it("gives the verdicts and facts eval run gives on the same turns", () => {
    // The same invariants as cases, one per docs turn, graded by `run` over the same recordings.
    const expect_ = [
      { kind: "cites-only-surfaced" },
      { kind: "calls-any-tool" },
      { kind: "no-citations" },
      { kind: "answer-excludes", text: "--force" },
      { kind: "outcome", is: "answered" }
    ]
    const docs = recordings.filter((r) => r.trace.surface === "docs")
    const cases = docs.map((r) => ({
      id: r.caseId,
      surface: "docs",
      question: r.question,
      guards: "audit parity",
      expect: expect_
    }))
    writeFileSync(join(dir, "cases.json"), JSON.stringify({ version: 1, cases }))
    const run = evalCli([
      "run",
      "--fixtures",
      "cases/fixtures",
      "--cases",
      join(dir, "cases.json"),
      "--json",
      join(dir, "r.json")
    ])
    expect(run.code).toBe(0)
    const results = JSON.parse(readFileSync(join(dir, "r.json"), "utf8")) as {
      cases: Array<
        { id: string; turnId: string; expectations: Array<{ kind: string; passed: boolean; fact?: string }> }
      >
    }
    const fromRun = results.cases.flatMap((c) =>
      c.expectations.filter((e) => !e.passed).map((e) => `${c.turnId}  ${e.kind}  ${e.fact}`)
    ).sort()

    const audit = evalCli(["audit", "--surface", "docs", ...specs.flatMap((s) => ["--expect", s]), "--traces", jsonl])
    expect(audit.code).toBe(1)
    expect(fromRun.length).toBeGreaterThan(5)
    expect(violations(audit.stdout)).toEqual(fromRun)
    const turns = new Set(fromRun.map((v) => v.split(" ")[0]))
    expect(audit.stdout).toContain(
      `audited ${docs.length} turns of docs against 5 expectations: ${fromRun.length} violations in ${turns.size} turns · ${
        recordings.length - docs.length
      } turns of other surfaces skipped`
    )
  })

  it("exits 0 when every turn holds the invariants, reading several files and standard input", () => {
    const run = evalCli([
      "audit",
      "--surface",
      "ops-agent",
      "--expect",
      "never-calls=deploy",
      "--traces",
      jsonl,
      "--traces",
      jsonl
    ])
    expect(run.code).toBe(0)
    const onOps = recordings.filter((r) => r.trace.surface === "ops-agent").length
    const [ops, others] = [2 * onOps, 2 * (recordings.length - onOps)]
    expect(run.stdout.trim()).toBe(
      `audited ${ops} turns of ops-agent against 1 expectation: 0 violations in 0 turns · ` +
        `${others} turns of other surfaces skipped`
    )
  })

  it("splits an archive into disjoint shards that together are the whole", () => {
    const whole = violations(
      evalCli(["audit", "--surface", "docs", "--expect", "outcome=answered", "--traces", jsonl]).stdout
    )
    const parts = [1, 2, 3].map((i) =>
      violations(
        evalCli(["audit", "--surface", "docs", "--expect", "outcome=answered", "--traces", jsonl, "--shard", `${i}/3`])
          .stdout
      )
    )
    expect(parts.flat().sort()).toEqual(whole)
    expect(new Set(parts.flat()).size).toBe(parts.flat().length)
  })

  it("reports unreadable lines by file, line and JSON path, and exits 2", () => {
    const broken = join(dir, "broken.jsonl")
    writeFileSync(broken, `${JSON.stringify(recordings[0])}\n\n{"answer": 3, "trace": {}}\nnot json\n`)
    const run = evalCli(["audit", "--surface", "docs", "--expect", "cites-only-surfaced", "--traces", broken])
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      `${broken}:3: $.answer: expected string, got 3\n${broken}:4: not valid JSON: unexpected "n" at column 1\nerror: ` +
        `2 unreadable lines (the first of them are listed above)\n`
    )
    expect(run.stdout).toContain("2 unreadable lines")
  })

  it.each([
    [
      ["--expect", "never-calls=deply"],
      "error: --expect \"never-calls=deply\": unknown tool \"deply\" on surface \"docs\"; its tools are search_docs, catalog"
    ],
    [["--expect", "calls-tool"], "error: --expect \"calls-tool\": tool missing (write calls-tool=TOOL)"],
    [["--expect", "cites-some"], "error: --expect \"cites-some\": kind expected"],
    [[], "error: name at least one expectation"],
    [["--expect", "cites-only-surfaced", "--shard", "4/3"], "error: --shard \"4/3\": expected i/n"]
  ])("refuses %j (exit 2)", (extra, message) => {
    const run = evalCli(["audit", "--surface", "docs", "--traces", jsonl, ...extra])
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(message)
    expect(run.stderr).not.toMatch(stackFrame)
  })

  it("refuses a surface the catalog lacks and a file that is not there", () => {
    const surface = evalCli(["audit", "--surface", "chat", "--expect", "cites-only-surfaced", "--traces", jsonl])
    expect(surface.stderr.trim()).toBe(
      "error: --surface chat: cases/surfaces.json has no such surface; it has docs, ops-agent"
    )
    const missing = evalCli(["audit", "--surface", "docs", "--expect", "cites-only-surfaced", "--traces", "nope.jsonl"])
    expect([missing.code, missing.stderr.trim()]).toEqual([2, "nope.jsonl: cannot read: no such file"])
  })
})

describe("the README's audit example", () => {
  it("prints what the README shows for the committed recordings", () => {
    const readme = readFileSync("README.md", "utf8")
    const command = /^npx turn-eval (audit .*) --traces turns\.jsonl$/m.exec(readme)![1]!
    const args = command.match(/'[^']*'|\S+/g)!.map((a) => a.replace(/^'|'$/g, ""))
    const run = evalCli([...args, "--traces", jsonl])
    expect(run.code).toBe(1)
    const shownAs = /On the (\d+) committed one-question recordings, written one per line:\n\n```\n([\s\S]*?)```/
    const [, count, shown] = shownAs.exec(readme)!
    expect(Number(count)).toBe(recordings.length)
    expect(run.stdout).toBe(shown)
  })
})
