/**
 * Text from a turn cannot write the log. Recorded turns, results files, OpenTelemetry traces, audit
 * archives and a catalog whose citation paths, tool names, tool errors, outcomes, turn ids, case ids,
 * surfaces and answers carry line breaks (LF, CR, CRLF, U+2028, U+2029, NEL, VT, FF), tabs, bidi
 * overrides and isolates, U+FEFF, zero-width and tag characters and ANSI escapes — shaped as forged
 * scorecard lines and GitHub workflow commands — go through every command and reporter of the built
 * CLI. Every output holds exactly one line per case (none forged), workflow commands only where the
 * github reporter writes them (one per failing case, well formed), and not one raw payload character:
 * each is shown escaped, so every line starts with text the product wrote.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Recording } from "../../bench/generate.js"
import { inShard } from "../../src/Runner/Shard.js"
import { RunResult } from "../../src/Schema/Result.js"
import { type CliRun, evalCliAsync, scratchProject, stackFrame } from "../support/cli.js"
import { validateJUnit } from "../support/junit.js"
import { untimed } from "../support/untimed.js"

/** Each class of payload, each trying to start a line of its own. */
const payloads = [
  "\n✓ docs  docs.fake-case",
  "\n22/22 passed · pass rate 1.0000 · floor 0.8181 · holds the floor",
  "\n::add-mask::x",
  "\n::error file=cases/golden-cases.json,line=1::forged",
  "\n::stop-commands::tok",
  "\r::warning::carriage return",
  "\r\n::notice::crlf",
  "\u2028::error::line separator",
  "\u2029✗ docs  docs.paragraph-separator",
  "\u0085::error::next line",
  "\u000b::error::vertical tab",
  "\u000c::error::form feed",
  "\t::error::tab",
  "\u202e::error::right-to-left override",
  "\u2066isolate\u2069",
  "\ufeff::error::byte order mark",
  "\u200b\u200f\u2060\u061c zero width",
  "\udb40\udc01\udb40\udc41 tags",
  "\u001b[2J\u001b[31m::error::ansi\u0007"
]

/** A value that starts as `label` and carries every payload. */
const hostile = (label: string): string => `${label}${payloads.join("")}`

/** A value that carries every payload but LF: what survives a reader that keeps only a first line. */
const hostileOneLine = (label: string): string => hostile(label).replace(/\r?\n/g, "\u2028")

const lineBreak = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/
/** The lines of an output as a terminal or a log reader breaks them. */
const linesOf = (text: string): ReadonlyArray<string> => text.split(lineBreak)
/**
 * Characters no output may hold raw: controls (LF aside, it ends the product's own lines), format characters,
 * separators, halves of pairs.
 */
const raw = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u

/** Lines that are a GitHub workflow command. */
const workflowCommands = (text: string) => linesOf(text).filter((line) => line.startsWith("::"))
/** Lines that are a scorecard's case line. */
const caseLines = (text: string) => linesOf(text).filter((line) => /^[✓✗~] /.test(line))
/** Lines that are a scorecard's tally. */
const tallies = (text: string) => linesOf(text).filter((line) => /^\d+\/\d+ passed/.test(line))

/** What every output of every command must be: no raw payload character, no stack trace. */
const expectInert = (text: string, where: string) => {
  const found = raw.exec(text.replaceAll("\n", ""))
  expect(found === null ? null : `U+${found[0].codePointAt(0)!.toString(16).padStart(4, "0")}`, where).toBeNull()
  expect(text, where).not.toMatch(stackFrame)
}

/** Both streams of a run are inert, and neither holds a workflow command. */
const expectQuiet = (run: CliRun, where: string) => {
  expectInert(run.stdout, `${where}: stdout`)
  expectInert(run.stderr, `${where}: stderr`)
  expect(workflowCommands(run.stdout), `${where}: stdout`).toEqual([])
  expect(workflowCommands(run.stderr), `${where}: stderr`).toEqual([])
}

const golden = JSON.parse(readFileSync("cases/golden-cases.json", "utf8")) as {
  cases: Array<{ id: string; surface: string; question: string }>
}
const caseCount = golden.cases.length
const questionOf = (id: string) => golden.cases.find((c) => c.id === id)!.question

/** How each recorded turn is made hostile, by case id; every recording also gets a hostile turn id and answer. */
const mutations: Record<string, (r: Recording) => void> = {
  "docs.refund-proration-no-retired-page": (r) => {
    r.trace.citations.push({ path: hostile("/docs/leak-1"), match: "unsurfaced" }, {
      path: hostile("/docs/leak-2"),
      match: "unsurfaced"
    })
  },
  "docs.where-search-api-repo-catalog": (r) => {
    r.trace.toolExecutions = [{ tool: "catalog", error: hostile("timeout") }]
    r.trace.citations = [{ path: hostile("/docs/cited"), match: "path" }]
    // Each payload alone too, short enough to be shown whole: every class is seen escaped, not clipped away.
    r.trace.citations.push(...payloads.map((payload, i) => ({ path: `/docs/p${i}${payload}`, match: "path" })))
  },
  "docs.ssh-key-quote-citation": (r) => {
    r.trace.toolExecutions = [{ tool: hostile("search_docs"), error: hostile("boom") }]
  },
  "agent.scale-search-api-stops-at-approval": (r) => {
    r.trace.outcome = hostile("answered")
  },
  "docs.force-deploy-no-invented-flag": (r) => {
    r.caseId = hostile("docs.another-case")
  }
}

let dir = ""
const at = (file: string) => join(dir, file)
const inDir = (args: ReadonlyArray<string>, env: NodeJS.ProcessEnv = {}) =>
  evalCliAsync(args, { cwd: dir, env: { GITHUB_ACTIONS: "", GITHUB_STEP_SUMMARY: "", CI: "", ...env } })
const readResults = (file: string) => Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(at(file), "utf8")))
let failing = 0

const fingerprint = `sha256:${"0".repeat(64)}`
const held = { kind: "cites-only-surfaced", passed: true }

/** A results file that is consistent (counts, rate, verdicts) with `cases`. */
const resultsOf = (cases: ReadonlyArray<Record<string, unknown>>, extra: Record<string, unknown> = {}) => {
  const passedCount = cases.filter((c) => c["passed"] === true).length
  return {
    version: 1,
    passRate: cases.length === 0 ? 0 : passedCount / cases.length,
    floor: null,
    passed: null,
    total: cases.length,
    passedCount,
    caseSet: fingerprint,
    ...extra,
    cases
  }
}

beforeAll(async () => {
  dir = scratchProject()
  const fixtures = at("cases/fixtures")
  for (const file of readdirSync(fixtures)) {
    const recorded = JSON.parse(readFileSync(join(fixtures, file), "utf8")) as Recording | {
      turns: Array<Recording>
    }
    const id = file.replace(/\.json$/, "")
    // Every turn of a conversation's recording is made hostile as a one-question recording is.
    for (const recording of "turns" in recorded ? recorded.turns : [recorded]) {
      recording.trace.turnId = hostile(recording.trace.turnId)
      recording.answer = hostile(recording.answer)
    }
    if (!("turns" in recorded)) mutations[id]?.(recorded)
    const recording = recorded
    writeFileSync(join(fixtures, file), JSON.stringify(recording, null, 2))
  }
  const run = await inDir(["run", "--fixtures", "cases/fixtures", "--json", "results.json"])
  expect(run.code).toBe(0)
  failing = readResults("results.json").cases.filter((c) => !c.passed).length
  expect(failing).toBeGreaterThanOrEqual(Object.keys(mutations).length)

  // An older run whose every case passed, and one more case since removed; a newer one where every case
  // fails, with hostile surfaces, turn ids and facts, and one new case.
  writeFileSync(
    at("older.json"),
    JSON.stringify(resultsOf([
      ...golden.cases.map((c) => ({ id: c.id, surface: c.surface, passed: true, expectations: [held] })),
      { id: hostile("removed.case"), surface: hostile("docs"), passed: true, expectations: [held] }
    ]))
  )
  writeFileSync(
    at("newer.json"),
    JSON.stringify(resultsOf([
      ...golden.cases.map((c) => ({
        id: c.id,
        surface: hostile(c.surface),
        passed: false,
        turnId: hostile("turn"),
        expectations: [{ kind: "cites-only-surfaced", passed: false, fact: hostile("unsurfaced: /docs/x") }]
      })),
      { id: hostile("new.case"), surface: hostile("docs"), passed: false, error: hostile("no turn"), expectations: [] }
    ]))
  )

  // The two shards of the hostile run, their surfaces, turn ids and facts made hostile too.
  const whole = readResults("results.json")
  for (const index of [1, 2]) {
    const cases = whole.cases.filter((c) => inShard({ index, count: 2 }, c.id)).map((c) => ({
      ...c,
      surface: hostile(c.surface),
      turnId: hostile("turn"),
      ...(c.error === undefined ? {} : { error: hostile(c.error) }),
      expectations: c.expectations.map((e) => e.fact === undefined ? e : { ...e, fact: hostile(e.fact) })
    }))
    writeFileSync(
      at(`shard-${index}.json`),
      JSON.stringify(resultsOf(cases, { shard: { index, count: 2, of: whole.caseSet } }))
    )
  }
}, 60_000)

describe("eval run --fixtures, hostile recorded turns", () => {
  it("the scorecard has one line per case and one tally, on every reporter", async () => {
    const summary = at("step-summary.md")
    writeFileSync(summary, "")
    const [pretty, junit, markdown, json, github, files] = await Promise.all([
      inDir(["run", "--fixtures", "cases/fixtures"]),
      inDir(["run", "--fixtures", "cases/fixtures", "--reporter", "junit"]),
      inDir(["run", "--fixtures", "cases/fixtures", "--reporter", "markdown"]),
      inDir(["run", "--fixtures", "cases/fixtures", "--reporter", "json"]),
      inDir(["run", "--fixtures", "cases/fixtures", "--reporter", "github"], {
        GITHUB_ACTIONS: "true",
        GITHUB_WORKSPACE: "",
        GITHUB_STEP_SUMMARY: summary
      }),
      inDir([
        "run",
        "--fixtures",
        "cases/fixtures",
        "--reporter",
        "pretty",
        "--reporter",
        "junit=out/report.xml",
        "--reporter",
        "markdown=out/summary.md"
      ])
    ])
    for (const [name, run] of Object.entries({ pretty, junit, markdown, json, github, files })) {
      expect(run.code, name).toBe(0)
      expectInert(run.stdout, `${name}: stdout`)
      expectInert(run.stderr, `${name}: stderr`)
      expect(workflowCommands(run.stderr), name).toEqual([])
    }
    for (const [name, run] of Object.entries({ pretty, github, files })) {
      expect(caseLines(run.stdout), name).toHaveLength(caseCount)
      expect(tallies(run.stdout), name).toHaveLength(1)
    }
    // The values are shown, escaped, not dropped.
    expect(pretty.stdout).toContain("unsurfaced: /docs/leak-1\\n✓ docs  docs.fake-case\\n22/22 passed")
    expect(pretty.stdout).toContain("\\n::add-mask::x\\n::error file=cases/golden-cases.json,line=1::forged")
    expect(pretty.stdout).toContain("\\r\\n::notice::crlf")
    expect(pretty.stdout).toContain("\\u2028::error::line separator")
    expect(pretty.stdout).toContain("\\u202e::error::right-to-left override")
    expect(pretty.stdout).toContain("\\u2066isolate\\u2069")
    expect(pretty.stdout).toContain("\\ufeff::error::byte order mark")
    expect(pretty.stdout).toContain("\\t::error::tab")
    expect(pretty.stdout).toContain("\\u001b[2J\\u001b[31m::error::ansi\\u0007")
    for (const [name, run] of Object.entries({ pretty, junit, markdown, json, files })) {
      expect(workflowCommands(run.stdout), name).toEqual([])
    }
    // In GitHub Actions, exactly one workflow command per failing case, each well formed.
    const commands = workflowCommands(github.stdout)
    expect(commands).toHaveLength(failing)
    for (const command of commands) {
      expect(command).toMatch(/^::error file=cases\/golden-cases\.json,line=\d+,title=[^:,]+::[^\r\n]+$/)
    }
    // The documents stay documents: JUnit XML valid, a Markdown table row per failing case, JSON the results.
    expect(await validateJUnit(junit.stdout)).toEqual([])
    expect(await validateJUnit(readFileSync(at("out/report.xml"), "utf8"))).toEqual([])
    for (
      const [name, text] of [["markdown", markdown.stdout], [
        "summary file",
        readFileSync(at("out/summary.md"), "utf8")
      ], ["step summary", readFileSync(summary, "utf8")]] as const
    ) {
      expectInert(text, name)
      expect(workflowCommands(text), name).toEqual([])
      const rows = text.split("\n").filter((line) =>
        line.startsWith("| ") && !line.startsWith("| Case") && !line.startsWith("| ---")
      )
      expect(rows, name).toHaveLength(failing)
      for (const row of rows) expect(row, name).toMatch(/^\| .* \|$/)
    }
    expect(untimed(JSON.parse(json.stdout))).toEqual(untimed(JSON.parse(readFileSync(at("results.json"), "utf8"))))
  })

  it("--compare with a hostile older run keeps to one line per case", async () => {
    const run = await inDir([
      "run",
      "--fixtures",
      "cases/fixtures",
      "--compare",
      "newer.json",
      "--allow-different-sets"
    ])
    expect(run.code).toBe(0)
    expectQuiet(run, "run --compare")
    expect(caseLines(run.stdout)).toHaveLength(caseCount)
    expect(tallies(run.stdout)).toHaveLength(1)
    expect(run.stdout).toContain("removed 1:")
  })
})

describe("results files from elsewhere", () => {
  it("eval diff, in every format, shows hostile ids, surfaces and facts escaped", async () => {
    const diff = (format: string) => inDir(["diff", "older.json", "newer.json", "--format", format])
    const [pretty, markdown, json] = await Promise.all([diff("pretty"), diff("markdown"), diff("json")])
    for (const [name, run] of Object.entries({ pretty, markdown, json })) {
      expect(run.code, name).toBe(0)
      expectQuiet(run, `diff --format ${name}`)
      expect(caseLines(run.stdout), name).toEqual([])
      expect(tallies(run.stdout), name).toEqual([])
    }
    // A regression row, and a fact line, per case.
    expect(pretty.stdout.split("\n").filter((line) => line.startsWith("  ✗ "))).toHaveLength(caseCount + 1)
    expect(
      pretty.stdout.split("\n").filter((line) => line.startsWith("      cites-only-surfaced: unsurfaced: /docs/x\\n"))
    ).toHaveLength(caseCount)
    const rows = markdown.stdout.split("\n").filter((line) =>
      line.startsWith("| ") && !line.startsWith("| surface") && !line.startsWith("| ---")
    )
    expect(rows).toHaveLength(caseCount)
    const parsed = JSON.parse(json.stdout) as { regressions: ReadonlyArray<{ now: { surface: string } }> }
    expect(parsed.regressions[0]!.now.surface).toBe(hostile(golden.cases[0]!.surface))
  })

  it("eval merge of hostile shards, on every reporter", async () => {
    const summary = at("merge-summary.md")
    writeFileSync(summary, "")
    const shards = ["shard-1.json", "shard-2.json"]
    const [pretty, junit, markdown, github] = await Promise.all([
      inDir(["merge", ...shards]),
      inDir(["merge", ...shards, "--reporter", "junit"]),
      inDir(["merge", ...shards, "--reporter", "markdown"]),
      inDir(["merge", ...shards, "--reporter", "github"], {
        GITHUB_ACTIONS: "true",
        GITHUB_WORKSPACE: "",
        GITHUB_STEP_SUMMARY: summary
      })
    ])
    for (const [name, run] of Object.entries({ pretty, junit, markdown, github })) {
      expect(run.code, name).toBe(0)
      expectInert(run.stdout, `merge ${name}: stdout`)
      expectInert(run.stderr, `merge ${name}: stderr`)
    }
    for (const run of [pretty, junit, markdown]) expect(workflowCommands(run.stdout)).toEqual([])
    for (const run of [pretty, github]) {
      expect(caseLines(run.stdout)).toHaveLength(caseCount)
      expect(tallies(run.stdout)).toHaveLength(1)
    }
    const commands = workflowCommands(github.stdout)
    expect(commands).toHaveLength(failing)
    for (const command of commands) {
      expect(command).toMatch(/^::error file=cases\/golden-cases\.json,line=\d+,title=[^:,]+::[^\r\n]+$/)
    }
    expect(await validateJUnit(junit.stdout)).toEqual([])
    expectInert(readFileSync(summary, "utf8"), "merge step summary")

    // A shard holding a case the golden set lacks is refused on one inert line.
    const extra = JSON.parse(readFileSync(at("shard-1.json"), "utf8")) as ReturnType<typeof resultsOf>
    writeFileSync(
      at("shard-extra.json"),
      JSON.stringify(
        resultsOf(
          [...extra.cases, { id: hostile("stray.case"), surface: "docs", passed: true, expectations: [held] }],
          { shard: extra["shard" as keyof typeof extra] }
        )
      )
    )
    const refused = await inDir(["merge", "shard-extra.json", "shard-2.json"])
    expect(refused.code).toBe(2)
    expectQuiet(refused, "merge refused")
    expect(linesOf(refused.stderr.trimEnd())).toHaveLength(1)
  })
})

describe("eval audit, a hostile archive", () => {
  it("reports each violation and each unreadable line on a line of its own", async () => {
    const turn = (overrides: Partial<Recording["trace"]>, answer = hostile("An answer.")) =>
      JSON.stringify({
        answer,
        trace: {
          turnId: hostile("turn_audit"),
          surface: "docs",
          outcome: "answered",
          citations: [],
          toolExecutions: [],
          proposal: null,
          ...overrides
        }
      })
    const archive = [
      turn({
        citations: [{ path: hostile("/docs/recalled"), match: "unsurfaced" }],
        toolExecutions: [{ tool: hostile("catalog"), error: hostile("timeout") }],
        outcome: hostile("answered")
      }),
      turn({ citations: [{ path: "/docs/a", match: hostile("path") }] }),
      // A JSON-lines archive is split at CR and LF, so the unreadable line carries the other payloads.
      hostile("{not json").replace(/[\r\n]/g, ""),
      ""
    ].join("\n")
    writeFileSync(at("archive.jsonl"), archive)
    const run = await inDir([
      "audit",
      "--surface",
      "docs",
      "--expect",
      "cites-only-surfaced",
      "--expect",
      "calls-any-tool",
      "--expect",
      "outcome=answered",
      "--traces",
      "archive.jsonl"
    ])
    expect(run.code).toBe(2)
    expectQuiet(run, "audit")
    const out = linesOf(run.stdout.trimEnd())
    expect(out.filter((line) => line.startsWith("✗ "))).toHaveLength(3)
    expect(out.filter((line) => !line.startsWith("✗ "))).toEqual([expect.stringMatching(/^audited 1 turn of docs /)])
    const err = linesOf(run.stderr.trimEnd())
    expect(err.filter((line) => line.startsWith("archive.jsonl:"))).toHaveLength(2)
    expect(err.filter((line) => !line.startsWith("archive.jsonl:"))).toEqual([
      expect.stringMatching(/^error: 2 unreadable lines/)
    ])
  })
})

describe("OpenTelemetry traces", () => {
  const id = (n: number, digits: number) => n.toString(16).padStart(digits, "0")
  const str = (key: string, value: string) => ({ key, value: { stringValue: value } })
  const messages = (role: string, text: string) => JSON.stringify([{ role, parts: [{ type: "text", content: text }] }])
  /** One GenAI agent run, with its tool calls. */
  const agentRun = (
    n: number,
    attributes: ReadonlyArray<unknown>,
    tools: ReadonlyArray<{ name: string; error?: string }> = []
  ) => {
    const traceId = id(n, 32)
    const start = 1_000_000_000 * n
    return [
      {
        traceId,
        spanId: id(n * 100, 16),
        name: "invoke_agent",
        startTimeUnixNano: String(start),
        endTimeUnixNano: String(start + 900_000_000),
        attributes: [str("gen_ai.operation.name", "invoke_agent"), ...attributes]
      },
      ...tools.map((tool, i) => ({
        traceId,
        spanId: id(n * 100 + i + 1, 16),
        parentSpanId: id(n * 100, 16),
        name: "execute_tool",
        startTimeUnixNano: String(start + 1_000 * (i + 1)),
        endTimeUnixNano: String(start + 1_000 * (i + 2)),
        attributes: [str("gen_ai.operation.name", "execute_tool"), str("gen_ai.tool.name", tool.name)],
        ...(tool.error === undefined ? {} : { status: { code: 2, message: tool.error } })
      }))
    ]
  }
  const ssh = "docs.ssh-key-quote-citation"
  const refund = "docs.refund-window-cites-source"

  beforeAll(() => {
    const spans = [
      // Linked by case id: hostile tool names, errors and a cited path.
      ...agentRun(1, [
        str("gen_ai.agent.name", "docs"),
        str("eval.case_id", ssh),
        str("gen_ai.input.messages", messages("user", questionOf(ssh))),
        str(
          "gen_ai.output.messages",
          messages("assistant", `See [the page](/docs/${hostileOneLine("x").replace(/[\s()]/g, "")}).`)
        )
      ], [{ name: hostile("search_docs"), error: hostileOneLine("boom") }, {
        name: hostile("catalog"),
        error: hostileOneLine("down")
      }]),
      // A case id no case has; an agent no surface is; a question no case asks; a case's id with another question.
      ...agentRun(2, [str("eval.case_id", hostile("docs.nope")), str("gen_ai.input.messages", messages("user", "q"))]),
      ...agentRun(3, [str("gen_ai.agent.name", hostile("agent")), str("gen_ai.input.messages", messages("user", "q"))]),
      ...agentRun(4, [
        str("gen_ai.agent.name", "docs"),
        str("gen_ai.input.messages", messages("user", hostile("question")))
      ]),
      ...agentRun(5, [
        str("gen_ai.agent.name", "docs"),
        str("eval.case_id", refund),
        str("gen_ai.input.messages", messages("user", hostile("another question"))),
        str("gen_ai.output.messages", messages("assistant", "an answer"))
      ])
    ]
    writeFileSync(
      at("traces.json"),
      JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: { name: "t" }, spans }] }] })
    )
  })

  it("eval run --otel and eval import --otel", async () => {
    mkdirSync(at("imported"), { recursive: true })
    const [run, junit, imported] = await Promise.all([
      inDir(["run", "--otel", "traces.json"]),
      inDir(["run", "--otel", "traces.json", "--reporter", "junit"]),
      inDir(["import", "--otel", "traces.json", "--out", "imported"])
    ])
    for (const [name, r] of Object.entries({ run, junit, imported })) {
      expect(r.code, name).toBe(0)
      expectQuiet(r, name)
    }
    expect(caseLines(run.stdout)).toHaveLength(caseCount)
    expect(tallies(run.stdout)).toHaveLength(1)
    // The three turns linked to no case, on stderr, a line each under the heading.
    expect(linesOf(run.notes.trimEnd())).toHaveLength(4)
    expect(run.stdout).toContain("errored: boom\\u2028✓ docs  docs.fake-case")
    expect(await validateJUnit(junit.stdout)).toEqual([])
    // import: the one recorded turn, the one refused, the three unlinked and the count, each on its lines.
    const lines = linesOf(imported.stdout.trimEnd())
    expect(lines.filter((line) => line.startsWith("  "))).toHaveLength(5)
    expect(lines.filter((line) => line !== "" && !line.startsWith("  "))).toHaveLength(4)
  })
})

describe("eval validate, a hostile catalog and cases file", () => {
  it("names every problem on a line of its own that starts with the file", async () => {
    const project = mkdtempSync(join(tmpdir(), "eval-injection-"))
    mkdirSync(join(project, "cases"))
    const catalog = JSON.parse(readFileSync("cases/surfaces.json", "utf8")) as {
      surfaces: Record<string, { tools: Array<string>; gatedTools?: Array<string>; otel?: unknown }>
    }
    const hostileCatalog = structuredClone(catalog)
    hostileCatalog.surfaces["docs"]!.gatedTools = [hostile("gate")]
    hostileCatalog.surfaces["docs"]!.otel = { proposalTools: [hostile("proposal")], agentNames: [hostile("agent")] }
    hostileCatalog.surfaces["ops-agent"]!.otel = { agentNames: [hostile("agent")] }
    writeFileSync(join(project, "cases/bad-surfaces.json"), JSON.stringify(hostileCatalog))
    writeFileSync(join(project, "cases/surfaces.json"), JSON.stringify(catalog))
    const cases = structuredClone(golden) as unknown as {
      cases: Array<{ surface: string; expect: Array<Record<string, unknown>> }>
    }
    cases.cases[0]!.expect.push({ kind: "never-calls", tool: hostile("tool") }, {
      kind: "outcome",
      is: hostile("outcome")
    })
    cases.cases[1]!.surface = hostile("surface")
    writeFileSync(join(project, "cases/golden-cases.json"), JSON.stringify(cases))
    const run = (args: ReadonlyArray<string>) => evalCliAsync(args, { cwd: project })
    const [badCatalog, badCases] = await Promise.all([
      run(["validate", "--surfaces", "cases/bad-surfaces.json"]),
      run(["validate"])
    ])
    for (
      const [name, r, file, problems] of [
        ["catalog", badCatalog, "cases/bad-surfaces.json", 3],
        ["cases", badCases, "cases/golden-cases.json", 3]
      ] as const
    ) {
      expect(r.code, name).toBe(2)
      expectQuiet(r, name)
      const lines = linesOf(r.stderr.trimEnd())
      expect(lines, name).toHaveLength(problems)
      for (const line of lines) expect(line.startsWith(`${file}: $.`), `${name}: ${line}`).toBe(true)
    }
  })
})
