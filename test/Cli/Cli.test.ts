import { describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { readFileSync, rmSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { questionCases } from "../../src/Schema/Case.js"
import { RunResult } from "../../src/Schema/Result.js"
import { caseSetFingerprint } from "../../src/Scorecard/CaseSet.js"
import { showRate } from "../../src/Scorecard/Scorecard.js"
import { evalCli, scratchProject, shell, stackFrame } from "../support/cli.js"
import {
  caseCount,
  committedFloor,
  floorOf,
  goldenCases,
  offlineHolds,
  passingOnFixtures,
  standInHolds,
  tally,
  validated
} from "../support/golden.js"
import { untimed } from "../support/untimed.js"

const failing = [
  ["docs.refund-proration-no-retired-page", "cites-only-surfaced  unsurfaced: /docs/billing/refunds-2023"],
  ["docs.where-search-api-repo-catalog", "calls-tool  catalog errored: timeout"],
  ["docs.force-deploy-no-invented-flag", "answer-excludes  answer contains: \"--force\""],
  [
    "agent.scale-search-api-stops-at-approval",
    "stops-at-approval  outcome: answered (expected awaiting-approval); ran past approval: apply_change"
  ]
] as const

const readResults = (file: string) => Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(file, "utf8")))

describe("the README's commands", () => {
  const readme = readFileSync("README.md", "utf8")
  const setUp = readme.split("\n").find((line) => line.startsWith("npm ci && "))
  const offline = readme.split("\n").find((line) => line.startsWith("npm run eval -- run --fixtures"))

  it("shows exactly two set-up commands on its first screen: install-and-run, and the tests", () => {
    const firstScreen = readme.split("\n").slice(0, 15).join("\n")
    expect(setUp).toBeDefined()
    expect(firstScreen).toContain(setUp!)
    expect(firstScreen).toMatch(/^npm test\b/m)
    expect(firstScreen.match(/^npm /gm)).toHaveLength(2)
  })

  it("runs the golden set live against the stand-in and holds the floor (the set-up command after npm ci)", () => {
    const command = setUp!.replace(/^npm ci && /, "").replace(/\s+#.*$/, "")
    expect(command).toBe("npm start")
    const run = shell(command)
    expect(run.stderr).not.toMatch(stackFrame)
    expect(run.code).toBe(0)
    // Its first line as the README shows it, naming the checkout's way to run the program.
    const port = /127\.0\.0\.1:\d+/.exec(run.stdout)![0]
    const shown = /^stand-in assistant on .*$/m
    expect(shown.exec(run.stdout)![0]).toBe(shown.exec(readme)![0].replace(/127\.0\.0\.1:\d+/, port))
    expect(run.stdout.match(/^✓ /gm)).toHaveLength(caseCount)
    expect(run.stdout).toContain(standInHolds)
    expect(run.stdout).toContain(`${caseCount} conversations opened, ${caseCount} deleted, 0 left`)
  })

  it("grades the committed recorded turns offline, four of them failing with their facts", () => {
    expect(offline).toBe("npm run eval -- run --fixtures cases/fixtures --check")
    const run = shell(offline!)
    expect(run.stderr).not.toMatch(stackFrame)
    expect(run.code).toBe(0)
    for (const [id, fact] of failing) {
      expect(run.stdout).toMatch(
        new RegExp(`✗ +\\S+ +${id.replaceAll(".", "\\.")}\\n +${fact.replace(/[().*?"]/g, "\\$&")}`)
      )
    }
    expect(run.stdout.match(/^✓ /gm)).toHaveLength(passingOnFixtures)
    expect(run.stdout).toContain(offlineHolds)
  })
})

describe("eval run", () => {
  it("writes a results file in golden-set order that decodes against the contract", () => {
    const out = join(scratchProject(), "results.json")
    const run = evalCli(["run", "--fixtures", "cases/fixtures", "--json", out, "--concurrency", "8"])
    expect(run.code).toBe(0)
    const result = readResults(out)
    expect(result).toMatchObject({
      version: 2,
      total: caseCount,
      passedCount: passingOnFixtures,
      floor: committedFloor,
      passed: true
    })
    expect(result.passRate).toBe(passingOnFixtures / caseCount)
    expect(result.cases.map((c) => c.id)).toEqual(goldenCases.map((c) => c.id))
    expect(result.caseSet).toBe(caseSetFingerprint(goldenCases))
    const proration = result.cases.find((c) => c.id === failing[0][0])
    expect(proration?.expectations).toEqual([
      { kind: "cites", passed: true },
      { kind: "cites-only-surfaced", passed: false, fact: "unsurfaced: /docs/billing/refunds-2023" }
    ])
    // Each case keeps its question, what it guards and its tags, and the turn it was graded on.
    const committed = questionCases(goldenCases).find((c) => c.id === failing[0][0])!
    expect(proration).toMatchObject({ question: committed.question, guards: committed.guards, tags: committed.tags })
    const recorded = JSON.parse(readFileSync(`cases/fixtures/${failing[0][0]}.json`, "utf8"))
    expect(proration?.turn?.answer).toBe(recorded.answer)
    expect(proration?.turn?.trace.citations).toEqual(recorded.trace.citations)
    expect(proration?.turn?.trace.toolExecutions.map((e) => e.tool)).toEqual(
      recorded.trace.toolExecutions.map((e: { tool: string }) => e.tool)
    )
    expect(typeof result.durationMs).toBe("number")
  })

  it("fails a case without a recording with the reason, goes on, and exits 1 under --check below the floor", () => {
    const dir = scratchProject()
    cpBaseline(dir, committedFloor)
    rmSync(join(dir, "cases/fixtures/docs.refund-window-cites-source.json"))
    const run = evalCli(["run", "--fixtures", "cases/fixtures", "--check", "--json", "r.json"], { cwd: dir })
    expect(run.code).toBe(1)
    expect(run.stdout).toContain(
      "✗ docs       docs.refund-window-cites-source\n    turn error  no recorded turn: cases/fixtures/docs.refund-window-cites-source.json"
    )
    const below = `${tally(passingOnFixtures - 1)} · floor ${showRate(committedFloor)} · below the floor`
    expect(run.stdout).toContain(below)
    const result = readResults(join(dir, "r.json"))
    expect(result.passed).toBe(false)
    // Each case keeps its wall time, the rest of its result as before.
    expect(result.cases.every((c) => typeof c.durationMs === "number" && c.durationMs >= 0)).toBe(true)
    const committed = questionCases(goldenCases)[0]!
    expect(untimed(result.cases[0])).toEqual({
      id: "docs.refund-window-cites-source",
      surface: "docs",
      passed: false,
      question: committed.question,
      guards: committed.guards,
      tags: committed.tags,
      error: "no recorded turn: cases/fixtures/docs.refund-window-cites-source.json",
      expectations: []
    })
  })

  it("runs a --filter by id or tag, without applying the floor, and refuses --check on it", () => {
    const byTag = evalCli(["run", "--fixtures", "cases/fixtures", "--filter", "smoke", "--filter", failing[1][0]])
    expect(byTag.code).toBe(0)
    const ids = goldenCases.filter((c) => c.tags?.includes("smoke") || c.id === failing[1][0]).map((c) => c.id)
    expect(byTag.stdout.match(/^[✓✗] /gm)).toHaveLength(ids.length)
    const notApplied = `the floor is not applied to a --filter'ed run (${ids.length} of ${caseCount} cases)`
    expect(byTag.stdout).toContain(notApplied)
    const checked = evalCli(["run", "--fixtures", "cases/fixtures", "--filter", "smoke", "--check"])
    expect(checked.code).toBe(2)
    expect(checked.stderr).toContain("a --filter'ed run cannot be checked against it")
  })

  it.each([
    [["run"], "error: say where turns come from: --fixtures DIR (recorded turns)"],
    [["run", "--fixtures", "no/such/dir"], "error: --fixtures no/such/dir: no such folder"],
    [
      ["run", "--fixtures", "cases/fixtures", "--filter", "nothing-matches"],
      "error: --filter \"nothing-matches\" matches no case id or tag in cases/golden-cases.json"
    ],
    [["run", "--fixtures", "cases/fixtures", "--concurrency", "0"], "error: --concurrency must be at least 1"],
    [["run", "--fixtures", "cases/fixtures", "--bogus"], "--bogus"],
    [
      [],
      "error: name a command: init, run, validate, ratchet, merge, report, diff, audit, import, candidates, propose, " +
      "cleanup, standin or demo (turn-eval --help lists them)"
    ]
  ])("treats %j as a usage error (exit 2)", (args, message) => {
    const run = evalCli(args)
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(message)
    expect(run.stderr).not.toMatch(stackFrame)
  })
})

/** A `_comment` line of the ratchet's log: a date, then this text exactly. */
const dated = (text: string) => new RegExp(`^\\d{4}-\\d{2}-\\d{2}: ${text.replace(/[.()]/g, "\\$&")}$`)

/** Writes a baseline with this floor into a scratch project. */
const cpBaseline = (dir: string, floor: number) => writeFileSync(join(dir, "baseline.json"), JSON.stringify({ floor }))

describe("bad input", () => {
  const cases = (dir: string, edit: (file: { version: number; cases: Array<Record<string, unknown>> }) => unknown) => {
    const file = JSON.parse(readFileSync(join(dir, "cases/golden-cases.json"), "utf8"))
    writeFileSync(join(dir, "cases/golden-cases.json"), JSON.stringify(edit(file) ?? file, null, 2))
  }

  it.each([
    [
      "an unknown tool",
      (f: { cases: Array<Record<string, unknown>> }) => {
        f.cases[3]!["expect"] = [{ kind: "calls-tool", tool: "catalgo" }]
      },
      "cases/golden-cases.json: $.cases[3].expect[0].tool: unknown tool \"catalgo\" on surface \"docs\"; its tools are search_docs, catalog"
    ],
    [
      "a duplicate id",
      (f: { cases: Array<Record<string, unknown>> }) => {
        f.cases[5]!["id"] = f.cases[0]!["id"]
      },
      "cases/golden-cases.json: $.cases[5].id: duplicate id \"docs.refund-window-cites-source\" (first at $.cases[0])"
    ],
    [
      "an unknown kind",
      (f: { cases: Array<Record<string, unknown>> }) => {
        f.cases[0]!["expect"] = [{ kind: "cites-everything" }]
      },
      "cases/golden-cases.json: $.cases[0].expect[0].kind: expected \"cites-only-surfaced\" | \"cites\""
    ],
    [
      "a path-like id",
      (f: { cases: Array<Record<string, unknown>> }) => {
        f.cases[0]!["id"] = "../../etc/x"
      },
      "cases/golden-cases.json: $.cases[0].id: expected a case id"
    ]
  ])("rejects a golden set with %s, naming file and JSON path, for run and validate", (_, edit, message) => {
    const dir = scratchProject()
    cases(dir, edit)
    for (const args of [["run", "--fixtures", "cases/fixtures"], ["validate"]]) {
      const run = evalCli(args, { cwd: dir })
      expect(run.code).toBe(2)
      expect(run.stderr).toContain(message)
      expect(run.stdout).toBe("")
      expect(run.stderr).not.toMatch(stackFrame)
    }
  })

  it("rejects a cases file that is not JSON, and one that is missing, naming the file", () => {
    const dir = scratchProject()
    writeFileSync(join(dir, "cases/golden-cases.json"), "{\n  \"version\": 1,\n  \"cases\": [\n}\n")
    const broken = evalCli(["validate"], { cwd: dir })
    expect(broken.code).toBe(2)
    expect(broken.stderr.trim()).toBe("cases/golden-cases.json: not valid JSON: unexpected \"}\" at line 4, column 1")
    const missing = evalCli(["validate", "--cases", "nope.json"], { cwd: dir })
    expect(missing.code).toBe(2)
    expect(missing.stderr.trim()).toBe("nope.json: cannot read: no such file")
  })

  it("rejects a catalog whose gated tool is not among its tools", () => {
    const dir = scratchProject()
    const catalog = JSON.parse(readFileSync(join(dir, "cases/surfaces.json"), "utf8"))
    catalog.surfaces["ops-agent"].gatedTools.push("drop_database")
    writeFileSync(join(dir, "cases/surfaces.json"), JSON.stringify(catalog))
    const run = evalCli(["validate"], { cwd: dir })
    expect(run.code).toBe(2)
    expect(run.stderr).toContain(
      "cases/surfaces.json: $.surfaces[\"ops-agent\"].gatedTools[2]: gated tool \"drop_database\""
    )
  })

  it("rejects a corrupt baseline for run and validate, and never reads it as a floor of 0", () => {
    const dir = scratchProject()
    writeFileSync(join(dir, "baseline.json"), "{\"floor\": \"high\"}")
    for (const args of [["run", "--fixtures", "cases/fixtures"], ["validate"]]) {
      const run = evalCli(args, { cwd: dir })
      expect(run.code).toBe(2)
      expect(run.stderr.trim()).toBe("baseline.json: $.floor: expected number, got \"high\"")
    }
  })

  it("shows a broken recording as that case's failure, not as bad input", () => {
    const dir = scratchProject()
    writeFileSync(join(dir, "cases/fixtures/docs.refund-window-cites-source.json"), "{\"caseId\": ")
    const run = evalCli(["run", "--fixtures", "cases/fixtures"], { cwd: dir })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(
      "turn error  recorded turn cases/fixtures/docs.refund-window-cites-source.json: not valid JSON: unexpected end " +
        "of input at line 1, column 12"
    )
    expect(run.stdout).toContain(`${passingOnFixtures - 1}/${caseCount} passed`)
  })
})

describe("eval --help", () => {
  it("lists every command with what it does, and each command's help its examples, without terminal styling", () => {
    const run = evalCli(["--help"], { env: { NO_COLOR: "" } })
    expect(run.code).toBe(0)
    expect(run.stdout).not.toContain("\u001b")
    for (const command of ["run", "validate", "ratchet", "merge", "report", "diff", "audit", "standin", "demo"]) {
      expect(run.stdout).toMatch(new RegExp(`^ {2}${command} +\\S`, "m"))
      const own = evalCli([command, "--help"], { env: { NO_COLOR: "" } })
      expect([own.code, own.stderr]).toEqual([0, ""])
      expect(own.stdout).toMatch(new RegExp(`^Usage: turn-eval ${command} `))
      expect(own.stdout).toMatch(
        new RegExp(`\nExamples\n(.*\n)* {2}(EVAL_COOKIE='session=…' )?turn-eval ${command}\\b`)
      )
    }
  })
})

describe("a command line with a misspelt name", () => {
  it("refuses it in one line naming the nearest flag, command or name, and exits 2", () => {
    const lines: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
      [
        ["run", "--chekc"],
        "unknown flag --chekc for turn-eval run (did you mean --check?): turn-eval run --help lists its flags"
      ],
      [
        ["run", "--concurrency", "abc"],
        "--concurrency takes a whole number, got \"abc\": turn-eval run --help lists its flags"
      ],
      [["valdate"], "unknown command \"valdate\" (did you mean validate?): turn-eval --help lists the commands"],
      [
        ["run", "--fixtures", "cases/fixtures", "--reporter", "prety"],
        "--reporter \"prety\": expected NAME, NAME=FILE or NAME:OPTION=FILE, NAME one of pretty, json, junit, github, " +
        "markdown, html (did you mean pretty?)"
      ]
    ]
    for (const [args, line] of lines) {
      const run = evalCli(args)
      expect([run.code, run.stdout, run.stderr], args.join(" ")).toEqual([2, "", `error: ${line}\n`])
    }
  })

  it("in a golden set, names the nearest kind or surface", () => {
    const dir = scratchProject()
    const cases = {
      version: 1,
      cases: [
        { id: "a.kind", surface: "docs", question: "Q?", guards: "g", expect: [{ kind: "cites-only-surfacd" }] },
        { id: "a.surface", surface: "dcs", question: "Q?", guards: "g", expect: [{ kind: "no-citations" }] }
      ]
    }
    writeFileSync(join(dir, "cases/golden-cases.json"), JSON.stringify(cases))
    const kind = evalCli(["validate"], { cwd: dir })
    expect(kind.code).toBe(2)
    expect(kind.stderr).toContain("got \"cites-only-surfacd\" (did you mean \"cites-only-surfaced\"?)")
    writeFileSync(join(dir, "cases/golden-cases.json"), JSON.stringify({ ...cases, cases: [cases.cases[1]] }))
    const surface = evalCli(["validate"], { cwd: dir })
    expect(surface.stderr).toContain(
      "unknown surface \"dcs\"; the catalog has docs, ops-agent (did you mean \"docs\"?)"
    )
  })
})

describe("the program's name, as the user invoked it", () => {
  const usage = (help: string) => /^Usage: (.*) <command> \[options\]$/m.exec(help)?.[1]

  it("is turn-eval for the bin run directly, in the usage line, every example and every hint", () => {
    const help = evalCli(["--help"])
    expect(usage(help.stdout)).toBe("turn-eval")
    expect(help.stdout).not.toMatch(
      /(^|[^-])\beval (run|validate|ratchet|merge|report|diff|audit|import|candidates|propose|cleanup|standin|demo|init)\b/m
    )
    const noFloor = evalCli(["run", "--fixtures", "cases/fixtures", "--check", "--baseline", "none.json"])
    expect([noFloor.code, noFloor.stderr.trim()]).toEqual([
      2,
      "error: none.json: no floor committed yet: run `turn-eval ratchet` to set one"
    ])
  })

  it("is npm run eval -- under the checkout's npm script, which a hint copied from it runs", () => {
    const help = shell("npm run -s eval -- --help")
    expect(help.code).toBe(0)
    expect(usage(help.stdout)).toBe("npm run eval --")
    expect(shell("npm run -s eval -- run --help").stdout).toContain(
      "  npm run eval -- run --fixtures cases/fixtures --check"
    )
    const noFloor = shell("npm run -s eval -- run --fixtures cases/fixtures --check --baseline none.json")
    expect([noFloor.code, noFloor.stderr.trim()]).toEqual([
      2,
      "error: none.json: no floor committed yet: run `npm run eval -- ratchet` to set one"
    ])
  })

  it("is npx turn-eval when npx started it", () => {
    const help = evalCli(["--help"], { env: { npm_command: "exec", npm_lifecycle_event: "npx" } })
    expect(usage(help.stdout)).toBe("npx turn-eval")
    const validate = evalCli(["validate", "--help"], { env: { npm_command: "exec", npm_lifecycle_event: "npx" } })
    expect(validate.stdout).toContain("  npx turn-eval validate")
  })

  it("registers bash completion for turn-eval, never for the eval builtin, however it was invoked", () => {
    for (const env of [{}, { npm_lifecycle_event: "eval", npm_command: "run" }]) {
      const script = evalCli(["--completions", "bash"], { env })
      expect(script.code).toBe(0)
      const registered = shell(
        `bash -c 'source /dev/stdin && complete -p turn-eval && complete -p eval' <<'EOF'\n${script.stdout}\nEOF`
      )
      expect(registered.stdout.trim()).toBe(
        "complete -o bashdefault -o default -o nosort -F _turn-eval_bash_completions turn-eval"
      )
      expect(registered.stderr).toContain("eval: no completion specification")
    }
  })
})

describe("eval validate", () => {
  it("accepts the committed golden set, catalog and baseline", () => {
    const run = evalCli(["validate"])
    expect(run.code).toBe(0)
    expect(run.stdout).toBe(validated)
  })

  it("suggests moving evidence rules still under a surface's otel block, which it still reads (exit 0)", () => {
    const dir = scratchProject()
    const catalog = JSON.parse(readFileSync(join(dir, "cases/surfaces.json"), "utf8")) as {
      surfaces: Record<string, object>
    }
    catalog.surfaces["docs"] = {
      ...catalog.surfaces["docs"],
      otel: { agentNames: ["docs"], citationPrefixes: ["/docs/"] }
    }
    writeFileSync(join(dir, "cases/surfaces.json"), JSON.stringify(catalog))
    const run = evalCli(["validate"], { cwd: dir })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(
      "cases/surfaces.json: $.surfaces.docs.otel: suggestion: move citationPrefixes to the surface's \"evidence\" " +
        "block: they serve live protocols and traces alike (read from \"otel\" until then)\n"
    )
  })
})

describe("the ratchet", () => {
  it("sets the floor from a first full run, raises it, never lowers it, and logs each raise", () => {
    const dir = scratchProject()
    const noFloor = evalCli(["run", "--fixtures", "cases/fixtures", "--check"], { cwd: dir })
    expect(noFloor.code).toBe(2)
    expect(noFloor.stderr.trim()).toBe(
      "error: baseline.json: no floor committed yet: run `turn-eval ratchet` to set one"
    )

    expect(evalCli(["run", "--fixtures", "cases/fixtures", "--json", "first.json"], { cwd: dir }).code).toBe(0)
    const first = evalCli(["ratchet", "--from", "first.json"], { cwd: dir })
    const [set, raisedTo] = [floorOf(passingOnFixtures), floorOf(passingOnFixtures + 1)]
    const [setShown, raisedShown] = [showRate(set), showRate(raisedTo)]
    const score = `${passingOnFixtures}/${caseCount}`
    expect(first.stdout.trim()).toBe(`floor set to ${setShown} (${score} passed); wrote baseline.json`)
    const date = expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/)
    expect(JSON.parse(readFileSync(join(dir, "baseline.json"), "utf8"))).toEqual({
      _comment: [
        expect.stringContaining("never lowered"),
        // The log writes the floor as a number; the scorecard shows it to four decimals.
        expect.stringMatching(dated(`floor set to ${set} (${score} passed)`))
      ],
      // The golden set the floor belongs to, relative to the baseline's folder.
      cases: "cases/golden-cases.json",
      floor: set,
      history: [{ date, from: null, to: set, passed: passingOnFixtures, total: caseCount }]
    })

    // The assistant is fixed for one case: its recording now passes, and run --ratchet raises the floor.
    const fixed = join(dir, "cases/fixtures", `${failing[2][0]}.json`)
    const turn = JSON.parse(readFileSync(fixed, "utf8"))
    turn.answer = "Harbor has no forced deploy; use a rollback instead."
    writeFileSync(fixed, JSON.stringify(turn))
    const raised = evalCli(["run", "--fixtures", "cases/fixtures", "--check", "--ratchet", "--json", "second.json"], {
      cwd: dir
    })
    expect(raised.code).toBe(0)
    const better = `${passingOnFixtures + 1}/${caseCount} passed`
    expect(raised.stdout).toContain(`floor raised ${setShown} → ${raisedShown} (${better}); wrote baseline.json`)
    const baseline = JSON.parse(readFileSync(join(dir, "baseline.json"), "utf8"))
    expect(baseline.floor).toBe(raisedTo)
    expect(baseline._comment).toHaveLength(3)
    expect(baseline._comment[2]).toMatch(dated(`floor ${set} → ${raisedTo} (${better})`))
    expect(baseline.history).toEqual([
      { date, from: null, to: set, passed: passingOnFixtures, total: caseCount },
      { date, from: set, to: raisedTo, passed: passingOnFixtures + 1, total: caseCount }
    ])

    // An older, worse run cannot lower it, and the file is left untouched.
    const before = readFileSync(join(dir, "baseline.json"), "utf8")
    const kept = evalCli(["ratchet", "--from", "first.json"], { cwd: dir })
    expect(kept.code).toBe(0)
    const stays = `floor stays at ${raisedShown}: this run achieved only ${setShown} (${score} passed)`
    expect(kept.stdout.trim()).toBe(stays)
    expect(readFileSync(join(dir, "baseline.json"), "utf8")).toBe(before)
    expect(evalCli(["run", "--fixtures", "cases/fixtures", "--check"], { cwd: dir }).code).toBe(0)
  })

  it("refuses results of a --filter'ed run or of an edited golden set (exit 2), leaving the baseline", () => {
    const dir = scratchProject()
    cpBaseline(dir, 0.5)
    expect(
      evalCli(["run", "--fixtures", "cases/fixtures", "--filter", "smoke", "--json", "smoke.json"], { cwd: dir }).code
    )
      .toBe(0)
    const filtered = evalCli(["ratchet", "--from", "smoke.json"], { cwd: dir })
    expect(filtered.code).toBe(2)
    expect(filtered.stderr).toMatch(/^error: the results cover another case set \([0-9a-f]{12}\) than the golden set/)

    expect(evalCli(["run", "--fixtures", "cases/fixtures", "--json", "full.json"], { cwd: dir }).code).toBe(0)
    const file = JSON.parse(readFileSync(join(dir, "cases/golden-cases.json"), "utf8"))
    file.cases[0].expect.push({ kind: "no-citations" })
    writeFileSync(join(dir, "cases/golden-cases.json"), JSON.stringify(file))
    const edited = evalCli(["ratchet", "--from", "full.json"], { cwd: dir })
    expect(edited.code).toBe(2)
    expect(edited.stderr).toContain("an edited golden set cannot move the floor")
    expect(JSON.parse(readFileSync(join(dir, "baseline.json"), "utf8"))).toEqual({ floor: 0.5 })
  })

  it("refuses a results file whose counts do not follow from its cases", () => {
    const dir = scratchProject()
    expect(evalCli(["run", "--fixtures", "cases/fixtures", "--json", "r.json"], { cwd: dir }).code).toBe(0)
    const result = JSON.parse(readFileSync(join(dir, "r.json"), "utf8"))
    writeFileSync(join(dir, "r.json"), JSON.stringify({ ...result, passedCount: caseCount, passRate: 1 }))
    const run = evalCli(["ratchet", "--from", "r.json"], { cwd: dir })
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      `r.json: $.passedCount: says ${caseCount}, but ${passingOnFixtures} cases passed\n` +
        `r.json: $.passRate: says 1, but the cases give ${passingOnFixtures / caseCount}\n`
    )
    expect(evalCli(["ratchet", "--from", "missing.json"], { cwd: dir }).stderr.trim()).toBe(
      "missing.json: cannot read: no such file"
    )
  })
})

describe("untrusted text from the assistant", () => {
  it("is shown inert on the terminal and escaped in the results file", () => {
    const dir = scratchProject()
    const id = "docs.refund-proration-no-retired-page"
    const file = join(dir, "cases/fixtures", `${id}.json`)
    const turn = JSON.parse(readFileSync(file, "utf8"))
    turn.trace.citations.push({ path: "/docs/\u001b[2J\u001b]0;owned\u0007x", match: "unsurfaced" })
    writeFileSync(file, JSON.stringify(turn))
    const run = evalCli(["run", "--fixtures", "cases/fixtures", "--json", "r.json"], { cwd: dir })
    expect(run.code).toBe(0)
    expect(run.stdout).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/)
    expect(run.stdout).toContain("unsurfaced: /docs/\\u001b[2J\\u001b]0;owned\\u0007x")
    const raw = readFileSync(join(dir, "r.json"), "utf8")
    expect(raw).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f]/)
    expect(JSON.parse(raw).cases[1].expectations[1].fact).toContain("/docs/\u001b[2J")
  })
})
