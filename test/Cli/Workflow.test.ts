/**
 * The CI workflow through the real CLI: reporters whose outputs are parsed back, flaky cases over
 * repeats, the progress line, and the README's workflows as printed. Shards and merge, the K a floor
 * holds, and run diffs run in this process (test/Cli/InProcess.test.ts).
 */
import { describe, expect, it, vi } from "@effect/vitest"
import { Redacted, Schema } from "effect"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { openingQuestion, QuestionCase } from "../../src/Schema/Case.js"
import { RunResult } from "../../src/Schema/Result.js"
import {
  bin,
  evalCli,
  evalCliAsync,
  scratchProject,
  shellAsync,
  stackFrame,
  startCli,
  streamedLine,
  userEnv
} from "../support/cli.js"
import {
  caseCount,
  failingOnFixtures,
  goldenCases,
  offlineHolds,
  offlineScore,
  offlineTally,
  onSurface,
  passingOnFixtures,
  rateOf,
  surfacesInUse
} from "../support/golden.js"
import { readRunResult } from "../support/json.js"
import { allElements, parseXml, validateJUnit } from "../support/junit.js"
import { withStandIn } from "../support/live.js"

const questionOf = (id: string): string => openingQuestion(goldenCases.find((c) => c.id === id)!)

/** Runs the CLI in a scratch project; bad input never shows a stack trace. */
const inProject = (dir: string) => (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}) => {
  const run = evalCli(args, { cwd: dir, env: { GITHUB_ACTIONS: "", GITHUB_STEP_SUMMARY: "", CI: "", ...env } })
  expect(run.stderr).not.toMatch(stackFrame)
  return run
}

describe("--reporter", () => {
  it("writes the scorecard, the results, JUnit XML and Markdown at once, each readable back", async () => {
    const dir = scratchProject()
    const run = inProject(dir)([
      "run",
      "--fixtures",
      "cases/fixtures",
      "--reporter",
      "pretty",
      "--reporter",
      "json=out/results.json",
      "--reporter",
      "junit=out/report.xml",
      "--reporter",
      "markdown=out/summary.md"
    ])
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(offlineTally)

    const json = readRunResult(join(dir, "out/results.json"))
    expect(json.cases.filter((c) => !c.passed).map((c) => c.id)).toEqual(failingOnFixtures)

    const xml = readFileSync(join(dir, "out/report.xml"), "utf8")
    expect(await validateJUnit(xml)).toEqual([])
    const root = parseXml(xml)
    expect(root.name).toBe("testsuites")
    expect(root.attributes).toEqual({})
    const suites = allElements(root, "testsuite").map((
      s
    ) => [s.attributes["name"], s.attributes["tests"], s.attributes["failures"]])
    expect(suites).toEqual(
      surfacesInUse.map((surface) => [surface, String(onSurface(surface).cases), String(onSurface(surface).failing)])
    )
    const failed = allElements(root, "testcase").filter((c) => c.children.some((f) => f.name === "failure"))
    expect(failed.map((c) => c.attributes["name"])).toEqual(failingOnFixtures)
    const proration = failed[0]!.children.find((f) => f.name === "failure")!
    expect(`${proration.attributes["message"]}\n${proration.text}`).toContain(
      "cites-only-surfaced: unsurfaced: /docs/billing/refunds-2023"
    )

    const markdown = readFileSync(join(dir, "out/summary.md"), "utf8")
    const rows = markdown.split("\n").filter((line) => line.startsWith("| `"))
    expect(rows.map((row) => /^\| `([^`]+)`/.exec(row)![1])).toEqual(failingOnFixtures)
    expect(rows[1]).toContain("catalog errored\\: timeout")
    expect(markdown).toMatch(new RegExp(`<summary>✅ Passing \\(${passingOnFixtures}\\)</summary>`))
  })

  it("prints a document alone on standard output, sending notes for people to stderr", () => {
    const dir = scratchProject()
    const run = inProject(dir)(["run", "--fixtures", "cases/fixtures", "--reporter", "json", "--ratchet"])
    expect(run.code).toBe(0)
    expect(Schema.decodeUnknownSync(RunResult)(JSON.parse(run.stdout)).passedCount).toBe(passingOnFixtures)
    const set = `floor set to ${rateOf(passingOnFixtures)} (${offlineScore} passed); wrote baseline.json`
    expect(run.stderr).toContain(set)
  })

  it("annotates each failing case on its line of the golden-set file and appends the step summary in GitHub Actions", () => {
    const dir = scratchProject()
    const summary = join(dir, "step-summary.md")
    writeFileSync(summary, "earlier step\n")
    const env = { GITHUB_ACTIONS: "true", GITHUB_WORKSPACE: "", GITHUB_STEP_SUMMARY: summary }
    const run = inProject(dir)(["run", "--fixtures", "cases/fixtures", "--reporter", "github"], env)
    expect(run.code).toBe(0)
    const lines = readFileSync(join(dir, "cases/golden-cases.json"), "utf8").split("\n")
    const annotations = run.stdout.split("\n").filter((line) => line.startsWith("::"))
    expect(annotations).toHaveLength(failingOnFixtures.length)
    for (const [i, id] of failingOnFixtures.entries()) {
      const match = /^::error file=([^,]+),line=(\d+),title=([^:]*)::(.*)$/.exec(annotations[i]!)
      expect(match, annotations[i]).not.toBeNull()
      expect(match![1]).toBe("cases/golden-cases.json")
      expect(lines[Number(match![2]) - 1]).toContain(`"id": "${id}"`)
    }
    expect(annotations[0]).toContain("unsurfaced%3A /docs/billing/refunds-2023".replace("%3A", ":"))
    // The scorecard still goes to the log, and the summary is appended after what the step had.
    expect(run.stdout).toContain(`${offlineScore} passed`)
    const appended = readFileSync(summary, "utf8")
    expect(appended.startsWith("earlier step\n")).toBe(true)
    expect(appended).toContain(`**${offlineScore} passed**`)

    const outside = inProject(dir)(["run", "--fixtures", "cases/fixtures", "--reporter", "github"])
    expect(outside.stdout).not.toMatch(/^::/m)
    expect(outside.stderr).toContain("not in GitHub Actions")
  })

  it("refuses a bad reporter before running anything (exit 2)", () => {
    const dir = scratchProject()
    const run = inProject(dir)
    const unknown = run(["run", "--fixtures", "cases/fixtures", "--reporter", "tap"])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain("--reporter \"tap\": expected NAME, NAME=FILE or NAME:OPTION=FILE")
    const both = run(["run", "--fixtures", "cases/fixtures", "--reporter", "junit", "--reporter", "markdown"])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain("junit and markdown would both write to standard output")
    expect(both.stdout).toBe("")
    const annotated = run(["run", "--fixtures", "cases/fixtures", "--reporter", "json", "--reporter", "github"])
    expect(annotated.code).toBe(2)
    expect(annotated.stderr).toContain("would break the json report there")
  })

  it("never writes a report over a file the command reads", () => {
    const dir = scratchProject()
    const run = inProject(dir)
    const golden = readFileSync(join(dir, "cases/golden-cases.json"), "utf8")
    const over = run(["run", "--fixtures", "cases/fixtures", "--reporter", "json=cases/golden-cases.json"])
    expect(over.code).toBe(2)
    expect(over.stderr).toContain("the json report would overwrite cases/golden-cases.json, the golden set")
    expect(readFileSync(join(dir, "cases/golden-cases.json"), "utf8")).toBe(golden)
    expect(run(["run", "--fixtures", "cases/fixtures", "--json", "./baseline.json"]).stderr).toContain("the baseline")
    run(["run", "--fixtures", "cases/fixtures", "--shard", "1/1", "--json", "s.json"])
    expect(run(["merge", "s.json", "--reporter", "junit=s.json"]).stderr).toContain("s.json, a shard's results")
  })
})

describe("--repeat", () => {
  it("lists flaky cases apart, with each attempt's facts, against an assistant that answers differently each time", () =>
    withStandIn({ flaky: [questionOf("docs.refund-window-cites-source")] }, async (s) => {
      const dir = scratchProject()
      const run = await evalCliAsync(
        [
          "run",
          "--base-url",
          s.url,
          "--repeat",
          "2",
          "--filter",
          "docs.refund-window-cites-source",
          "--filter",
          "docs.rollback-cites-rollbacks-page",
          "--json",
          "r.json"
        ],
        { cwd: dir, env: { EVAL_COOKIE: Redacted.value(s.cookie()), CI: "" } }
      )
      expect(run.notes).toBe("")
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(/^~ docs\s+docs\.refund-window-cites-source$/m)
      expect(run.stdout).toContain("flaky  1 of 2 attempts passed")
      expect(run.stdout).toMatch(/attempt 2 {2}cites-only-surfaced {2}unsurfaced: /)
      expect(run.stdout).toContain("1/2 passed all 2 attempts · 1 flaky")
      // What the README shows of it.
      const shown = /with each attempt's facts:\n\n```\n([\s\S]*?)```/
        .exec(readFileSync("README.md", "utf8"))![1]!
      for (const line of shown.trimEnd().split("\n")) expect(run.stdout.split("\n")).toContain(line)
      const r = readRunResult(join(dir, "r.json"))
      expect(r.cases[0]!.attempts!.map((a) => a.passed)).toEqual([true, false])
      expect(new Set(r.cases[0]!.attempts!.map((a) => a.turnId)).size).toBe(2)
      expect(s.conversations()).toEqual([])
    }))
})

describe("the progress line", () => {
  it(
    "is drawn on a terminal during a long run and never in CI logs or pipes",
    () =>
      withStandIn({ latency: { ask: 100 } }, async (s) => {
        const dir = scratchProject()
        const command = `${process.execPath} ${bin} run --base-url ${s.url} --concurrency 1`
        const env = { ...userEnv(), EVAL_COOKIE: Redacted.value(s.cookie()), NO_COLOR: "1" }
        const onTerminal = await shellAsync(`script -qec '${command}' /dev/null`, dir, { ...env, CI: "" })
        expect(onTerminal.code).toBe(0)
        const progress = new RegExp(
          `\\r\\u001b\\[2K\\d+/${caseCount} cases · \\d+ passing · ` +
            `\\d+s elapsed · ~\\d+s left`
        )
        expect(onTerminal.stdout).toMatch(progress)
        expect(onTerminal.stdout).toContain(`${caseCount}/${caseCount} passed`)
        // Only the terminal's run needs to be long: the others check what is written, at any pace.
        const quick = `${process.execPath} ${bin} run --base-url ${s.url} --concurrency 8`
        const inCi = await shellAsync(`script -qec '${quick}' /dev/null`, dir, { ...env, CI: "true" })
        expect(inCi.code).toBe(0)
        expect(inCi.stdout).not.toContain("elapsed")
        const piped = await evalCliAsync(["run", "--base-url", s.url, "--concurrency", "8"], {
          cwd: dir,
          env: { EVAL_COOKIE: Redacted.value(s.cookie()), CI: "" }
        })
        expect(piped.notes).toBe("")
        // Off a terminal each case's line is streamed to stderr as it finishes, with its wall time; then the scorecard.
        const streamed = piped.stderr.split("\n").filter((line) => streamedLine.test(line))
        expect(streamed).toHaveLength(caseCount)
        expect(streamed.map((line) => line.replace(/ {2}\S+$/, "")).sort()).toEqual(
          piped.stdout.split("\n").filter((line) => /^[✓✗~] /.test(line)).sort()
        )
        expect(inCi.stdout.split(/\r?\n/).filter((line) => streamedLine.test(line))).toHaveLength(caseCount)
        const silent = await evalCliAsync(["run", "--base-url", s.url, "--concurrency", "8", "--silent"], {
          cwd: dir,
          env: { EVAL_COOKIE: Redacted.value(s.cookie()), CI: "" }
        })
        expect(silent.stderr).toBe("")
        expect(silent.stdout).toContain(`${caseCount}/${caseCount} passed`)
      }),
    60_000
  )
})

describe("the README's workflow", () => {
  const readme = readFileSync("README.md", "utf8")
  const npx = (line: string) => line.replace(/^npx turn-eval /, `${process.execPath} ${bin} `)

  it(
    "runs the CI recipe's commands: four shards, then the merge that holds the floor and writes the JUnit report",
    async () => {
      const recipe = /```yaml\n([\s\S]*?)```/.exec(readme)![1]!
      const commands = [...recipe.matchAll(/^ {6}- run: (npx turn-eval .*)$/gm)].map((m) => m[1]!)
      expect(commands).toHaveLength(2)
      const dir = scratchProject()
      writeFileSync(join(dir, "baseline.json"), readFileSync("baseline.json"))
      const summary = join(dir, "summary.md")
      const env = {
        ...userEnv(),
        NO_COLOR: "1",
        CI: "true",
        GITHUB_ACTIONS: "true",
        GITHUB_WORKSPACE: "",
        GITHUB_STEP_SUMMARY: summary
      }
      for (const shard of [1, 2, 3, 4]) {
        const run = await shellAsync(npx(commands[0]!.replaceAll("${{ matrix.shard }}", String(shard))), dir, env)
        expect(run.code, run.stderr).toBe(0)
      }
      const gate = await shellAsync(npx(commands[1]!), dir, env)
      expect(gate.stderr).toBe("")
      expect(gate.code).toBe(0)
      expect(gate.stdout).toContain(offlineHolds)
      expect(gate.stdout.split("\n").filter((line) => line.startsWith("::error "))).toHaveLength(
        failingOnFixtures.length
      )
      expect(await validateJUnit(readFileSync(join(dir, "reports/eval.xml"), "utf8"))).toEqual([])
      expect(readRunResult(join(dir, "results.json")).passed).toBe(true)
      // The HTML report is written beside the others, and the step summary points to it.
      expect(readFileSync(join(dir, "reports/eval.html"), "utf8")).toMatch(/^<!DOCTYPE html>/i)
      expect(readFileSync(summary, "utf8")).toContain("The full report: `reports/eval.html`")
      // The gate keeps reports/ as an artifact, and every report file it writes is in there.
      expect(recipe).toMatch(
        /- uses: actions\/upload-artifact@v4\n {8}if: always\(\)\n {8}with: \{ name: turn-eval-reports, path: "reports\/" \}/
      )
      const written = [...commands[1]!.matchAll(/--reporter \w+(?::[\w-]+)*=(\S+)/g)].map((m) => m[1]!)
      expect(written.length).toBeGreaterThan(0)
      for (const file of written) expect(file.startsWith("reports/"), file).toBe(true)
    },
    60_000
  )

  it("renders the reports of a results file later, as its rendering example does, the same as the run's", async () => {
    const section = readme.slice(readme.indexOf("#### Rendering reports later"))
    const [run, report] = /```sh\n([\s\S]*?)```/.exec(section)![1]!.trim().split("\n")
    const dir = scratchProject()
    writeFileSync(join(dir, "baseline.json"), readFileSync("baseline.json"))
    const env = { ...userEnv(), NO_COLOR: "1", CI: "" }
    const ran = await shellAsync(npx(run!), dir, env)
    expect(ran.code, ran.stderr).toBe(0)
    const rendered = await shellAsync(npx(report!), dir, env)
    expect(rendered.stderr).toBe("")
    expect(rendered.code).toBe(0)
    expect(rendered.stdout).toBe(ran.stdout)
    expect(rendered.stdout).toContain(offlineHolds)
    expect(await validateJUnit(readFileSync(join(dir, "reports/eval.xml"), "utf8"))).toEqual([])
    expect(readFileSync(join(dir, "reports/eval.md"), "utf8")).toContain(`**${offlineScore} passed**`)
  })

  it("writes the reports its reporter example names", async () => {
    const line = readme.split("\n").find((l) =>
      l.startsWith("npx turn-eval run --fixtures cases/fixtures --reporter pretty")
    )!
    const dir = scratchProject()
    const run = await shellAsync(npx(line), dir, { ...userEnv(), NO_COLOR: "1", CI: "" })
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`${offlineScore} passed`)
    expect(await validateJUnit(readFileSync(join(dir, "reports/eval.xml"), "utf8"))).toEqual([])
    expect(readFileSync(join(dir, "reports/eval.md"), "utf8")).toContain(`**${offlineScore} passed**`)
  })
})

describe("the README's propose workflow", () => {
  const readme = readFileSync("README.md", "utf8")
  const block = (after: string) =>
    new RegExp(`${after}[\\s\\S]*?\`\`\`sh\\n([\\s\\S]*?)\`\`\``).exec(readme)![1]!
      .trim().split("\n").map((line) => line.replace(/\s+#.*$/, ""))
  const local = (line: string) => line.replace(/^(npm run eval --|npx turn-eval) /, "").split(/\s+/)

  it("drafts a case from a rated turn of the seeded stand-in, appends it, and the new case fails offline", async () => {
    const [serve, candidates, propose, run] = block("starts with a rated-down\\s+turn for each:")
    const standIn = startCli(local(serve!).map((arg) => arg === "8787" ? "0" : arg), { env: { CI: "" } })
    try {
      await vi.waitFor(() => expect(standIn.stdout()).toContain("Ctrl-C stops it."), { timeout: 10_000 })
      const url = /listening on (http:\/\/[\d.:]+)/.exec(standIn.stdout())![1]!
      const cookie = /export EVAL_COOKIE='([^']+)'/.exec(standIn.stdout())![1]!
      const at = (line: string) => local(line).map((arg) => arg.replace("http://127.0.0.1:8787", url))
      const dir = scratchProject()
      const env = { EVAL_COOKIE: cookie, CI: "" }

      const listed = await evalCliAsync(at(candidates!), { cwd: dir, env })
      expect(listed.code).toBe(0)
      const turns = [...listed.stdout.matchAll(/^ {2}(turn_\w+) /gm)].map((m) => m[1]!)
      expect(turns).toHaveLength(2)

      // The generic commands, pointed at the stand-in: a draft is printed and nothing is written.
      const [list, draft] = block("lists it, and the suite turns it into\\s+a case:")
      const generic = (line: string) =>
        local(line).map((arg) => arg.replace("http://127.0.0.1:5173", url).replace("TURN-ID", turns[0]!))
      expect((await evalCliAsync(generic(list!), { cwd: dir, env })).stdout).toContain(turns[0]!)
      const printed = await evalCliAsync(generic(draft!), { cwd: dir, env })
      expect(printed.code).toBe(0)
      expect(Schema.decodeUnknownSync(QuestionCase)(JSON.parse(printed.stdout)).question)
        .toBe("What was the old refund policy for Harbor invoices?")
      expect(readFileSync(join(dir, "cases/golden-cases.json"), "utf8")).toBe(
        readFileSync("cases/golden-cases.json", "utf8")
      )

      const appended = await evalCliAsync(at(propose!).map((arg) => arg === "TURN-ID" ? turns[0]! : arg), {
        cwd: dir,
        env
      })
      expect(appended.code, appended.stderr).toBe(0)
      const graded = await evalCliAsync(at(run!), { cwd: dir, env })
      expect(graded.code).toBe(0)
      expect(graded.stdout).toMatch(
        /^✗ docs {2}docs\.\S+\n {4}cites-only-surfaced {2}unsurfaced: \/docs\/billing\/refunds-2023$/m
      )
      expect(graded.stdout).toContain("0/1 passed")
    } finally {
      standIn.signal("SIGTERM")
      await standIn.done
    }
  }, 60_000)
})

/**
 * A README example of two commands after its heading — start the stand-in, then run against it — and the
 * output it shows: the stand-in started as shown (on a free port), the run made against it signed in,
 * and `check` given what the stand-in printed, the run and the output shown. The stand-in is stopped after.
 */
const readmeStandInExample = async (
  heading: string,
  check: (standInOut: string, graded: Awaited<ReturnType<typeof evalCliAsync>>, shown: string) => void
) => {
  const readme = readFileSync("README.md", "utf8")
  const section = readme.slice(readme.indexOf(heading))
  const [, block, output] = /```sh\n([\s\S]*?)```\s*```\n([\s\S]*?)```/.exec(section)!
  const [serve, run] = block!.trim().split("\n").map((line) => line.replace(/\s+#.*$/, ""))
  const local = (line: string) => line.replace(/^npm run eval -- /, "").split(/\s+/)
  const standIn = startCli(local(serve!).map((arg) => arg === "8787" ? "0" : arg), { env: { CI: "" } })
  try {
    await vi.waitFor(() => expect(standIn.stdout()).toContain("Ctrl-C stops it."), { timeout: 10_000 })
    const url = /listening on (http:\/\/[\d.:]+)/.exec(standIn.stdout())![1]!
    const cookie = /export EVAL_COOKIE='([^']+)'/.exec(standIn.stdout())![1]!
    const graded = await evalCliAsync(local(run!).map((arg) => arg.replace("http://127.0.0.1:8787", url)), {
      env: { EVAL_COOKIE: cookie, CI: "" }
    })
    expect(graded.code, graded.stderr).toBe(0)
    check(standIn.stdout(), graded, output!)
  } finally {
    standIn.signal("SIGTERM")
    await standIn.done
  }
}

describe("the README's flaky-cases example", () => {
  it("shows the flaky cases it says, on the committed golden set, against the stand-in started with --flaky", () =>
    readmeStandInExample("### Flaky cases", (standInOut, graded, shown) => {
      const flaky = [...shown.matchAll(/^~ \S+ +(\S+)$/gm)].map((m) => m[1]!)
      expect(flaky.length).toBeGreaterThan(0)
      expect(standInOut).toContain(`flaky:     every second ask of ${flaky.join(", ")} also cites a page from memory`)
      // Every line the README shows, the flaky cases and the verdict line, as the run prints them.
      for (const line of shown.trim().split("\n").filter((l) => l !== "")) expect(graded.stdout).toContain(line)
    }))
})

describe("the README's miscarried-approval example", () => {
  it("fails the approvals the stand-in started with --miscarry carries out twice, on the fact it shows", () =>
    readmeStandInExample("#### An approval carried out wrongly", (standInOut, graded, shown) => {
      expect(standInOut).toContain("miscarry:  every decision on a proposal is carried out wrongly (twice)")
      // Every line the README shows, as the scorecard prints it.
      for (const line of shown.trim().split("\n")) expect(graded.stdout).toContain(line)
    }))
})
