/**
 * `eval run --otel` and `eval import --otel`, as a user runs them: the built CLI as a subprocess, on
 * OTLP JSON files the real libraries wrote in this test.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { RunResult } from "../../src/Schema/Result.js"
import { RecordedTurn } from "../../src/Schema/Trace.js"
import { evalCli, stackFrame } from "../support/cli.js"
import {
  otelCases,
  otelCatalog,
  otelCatalogRulesUnderOtel,
  proposalTurn,
  refundTurn,
  traceApprovalTurn,
  traceStreamedTurn,
  traceTurn
} from "../support/otelTraces.js"

let dir = ""
let traceIdOfStray = ""

const inDir = (args: ReadonlyArray<string>) => evalCli(args, { cwd: dir })
const results = (file: string) => Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(join(dir, file), "utf8")))

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "eval-otel-"))
  mkdirSync(join(dir, "cases"))
  writeFileSync(join(dir, "cases/surfaces.json"), JSON.stringify(otelCatalog, null, 2))
  writeFileSync(join(dir, "cases/golden-cases.json"), JSON.stringify(otelCases, null, 2))
  // The refund turn from the AI SDK 7 (GenAI conventions) with its case id; the proposal from LangChain
  // (OpenInference), linked by question; a turn no case asks, from the AI SDK 6.
  const refund = await traceTurn("ai-sdk-7 (GenAI)", refundTurn("otel.refund-window"))
  const proposal = await traceTurn("langchain (OpenInference)", proposalTurn())
  const stray = await traceTurn("ai-sdk-6", { ...refundTurn(), question: "Is there a refund fee?" })
  traceIdOfStray = JSON.parse(stray).resourceSpans[0].scopeSpans[0].spans[0].traceId
  writeFileSync(join(dir, "traces.jsonl"), `${[refund, proposal, stray].join("\n")}\n`)
  mkdirSync(join(dir, "exports"))
  writeFileSync(join(dir, "exports/1-refund.json"), refund)
  writeFileSync(join(dir, "exports/2-proposal.json"), proposal)
  writeFileSync(join(dir, "exports/notes.txt"), "not a trace")
}, 60_000)

describe("eval run --otel", () => {
  it("grades the traced turns, fails a case without one with the reason, and lists the turn no case asks", () => {
    const run = inDir(["run", "--otel", "traces.jsonl", "--json", "results.json"])
    expect(run.stderr).not.toMatch(stackFrame)
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(
      /✗ +docs +otel\.refund-window\n +calls-tool +catalog errored: catalog unavailable\n +cites-only-surfaced +unsurfaced: docs\/billing\/refunds-2023\.md\n/
    )
    expect(run.stdout).toMatch(/✓ +ops-agent +otel\.scale-search-api\n/)
    expect(run.stdout).toMatch(/✗ +docs +otel\.no-trace\n +turn error +no turn for case otel\.no-trace in the traces/)
    expect(run.stdout).toContain("1/3 passed")
    expect(run.stderr).toContain(`1 turn in the traces linked to no case:\n  ${traceIdOfStray}:`)
    expect(run.stderr).toContain("no case of surface docs asks \"Is there a refund fee?\"")
    const result = results("results.json")
    expect(result.cases.find((c) => c.id === "otel.refund-window")?.turnId).toMatch(/^[0-9a-f]{32}:[0-9a-f]{16}$/)
  })

  it("reads a folder's .json files, and refuses a second source of turns", () => {
    const run = inDir(["run", "--otel", "exports", "--json", "folder.json"])
    expect(run.code).toBe(0)
    expect(results("folder.json").passedCount).toBe(1)
    const both = inDir(["run", "--otel", "traces.jsonl", "--fixtures", "cases"])
    expect(both.code).toBe(2)
    expect(both.stderr).toContain(
      "error: --otel cannot be used with --fixtures or --base-url: pick one source of turns"
    )
  })

  it("exits 2 on a span tree it cannot read, naming the file, the trace and the attribute", () => {
    const refund = JSON.parse(readFileSync(join(dir, "exports/1-refund.json"), "utf8"))
    const spans: Array<
      { traceId: string; spanId: string; name: string; attributes: Array<{ key: string; value: unknown }> }
    > = refund.resourceSpans[0].scopeSpans[0].spans
    const root = spans.find((s) => s.name.startsWith("invoke_agent"))!
    root.attributes = root.attributes.map((a) =>
      a.key === "gen_ai.input.messages" ? { key: a.key, value: { stringValue: "[{\"role\": " } } : a
    )
    writeFileSync(join(dir, "broken.json"), JSON.stringify(refund))
    const run = inDir(["run", "--otel", "broken.json"])
    expect(run.code).toBe(2)
    expect(run.stderr).not.toMatch(stackFrame)
    expect(run.stderr).toContain(
      `broken.json: trace ${root.traceId}: span ${root.spanId} "invoke_agent docs": gen_ai.input.messages: not valid JSON`
    )
    const notOtlp = inDir(["run", "--otel", "cases/golden-cases.json"])
    expect(notOtlp.code).toBe(2)
    expect(notOtlp.stderr).toContain("cases/golden-cases.json: $.resourceSpans: missing")
  })
})

describe("the evidence rules, in the surface's evidence block or still under otel", () => {
  it("grade the traces alike, and validate suggests moving those under otel", () => {
    const older = mkdtempSync(join(tmpdir(), "eval-otel-rules-"))
    mkdirSync(join(older, "cases"))
    writeFileSync(join(older, "cases/surfaces.json"), JSON.stringify(otelCatalogRulesUnderOtel, null, 2))
    writeFileSync(join(older, "cases/golden-cases.json"), JSON.stringify(otelCases, null, 2))
    writeFileSync(join(older, "traces.jsonl"), readFileSync(join(dir, "traces.jsonl")))
    const run = evalCli(["run", "--otel", "traces.jsonl", "--json", "results.json"], { cwd: older })
    expect(run.code).toBe(0)
    expect(inDir(["run", "--otel", "traces.jsonl", "--json", "rules.json"]).code).toBe(0)
    const verdicts = (at: string, file: string) =>
      Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(join(at, file), "utf8"))).cases.map((
        c
      ) => [c.id, c.expectations])
    // The verdicts the rules decide — a citation under the docs/ prefix, a proposal tool's proposal — are the same.
    expect(verdicts(older, "results.json")).toEqual(verdicts(dir, "rules.json"))

    const suggested = evalCli(["validate"], { cwd: older })
    expect(suggested.code).toBe(0)
    expect(suggested.stdout).toContain(
      "cases/surfaces.json: $.surfaces.docs.otel: suggestion: move citationPrefixes to the surface's \"evidence\" block: " +
        "they serve live protocols and traces alike (read from \"otel\" until then)\n"
    )
    expect(suggested.stdout).toContain(
      "cases/surfaces.json: $.surfaces[\"ops-agent\"].otel: suggestion: move proposalTools to"
    )
    expect(inDir(["validate"]).stdout).not.toContain("suggestion")
  })
})

describe("eval run --otel on the AI SDK's aborted streams and tool approvals", () => {
  beforeAll(async () => {
    // The refund turn streamed by the AI SDK 7 (GenAI) and aborted mid-answer, with its case id; the
    // agent turn from the AI SDK 6 waiting for a `needsApproval` tool, linked by question.
    const aborted = await traceStreamedTurn("ai-sdk-7 (GenAI)", refundTurn("otel.refund-window"), {
      abortMidAnswer: true
    })
    const waiting = (await traceApprovalTurn("ai-sdk-6", "pending")).asked
    writeFileSync(join(dir, "ai-sdk.jsonl"), `${aborted}\n${waiting}\n`)
  }, 60_000)

  it("grades the aborted turn as an error turn and the waiting call as the proposal, where both were bad input", () => {
    const run = inDir(["run", "--otel", "ai-sdk.jsonl", "--json", "ai-sdk.json"])
    expect(run.stderr).not.toMatch(stackFrame)
    expect(run.notes).not.toContain("missing: it records the answer")
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(
      /✗ +docs +otel\.refund-window\n(?: +\S.*\n)* +outcome +outcome: error \(expected answered\)\n/
    )
    expect(run.stdout).toMatch(/✓ +ops-agent +otel\.scale-search-api\n/)
    const byId = new Map(results("ai-sdk.json").cases.map((c) => [c.id, c]))
    expect(byId.get("otel.refund-window")?.expectations.find((e) => e.kind === "outcome")).toEqual({
      kind: "outcome",
      passed: false,
      fact: "outcome: error (expected answered)"
    })
    expect(byId.get("otel.scale-search-api")?.passed).toBe(true)
  })
})

describe("eval import --otel", () => {
  it("writes a recorded turn per linked case that grades as the traces do, and lists what it could not link", () => {
    const run = inDir(["import", "--otel", "traces.jsonl", "--out", "imported"])
    expect(run.stderr).not.toMatch(stackFrame)
    expect(run.code).toBe(0)
    expect(readdirSync(join(dir, "imported")).sort()).toEqual(["otel.refund-window.json", "otel.scale-search-api.json"])
    expect(run.stdout).toMatch(
      /^wrote 2 recorded turns to imported:\n +otel\.refund-window +[0-9a-f]{32}:[0-9a-f]{16}\n/
    )
    expect(run.stdout).toContain(`1 turn linked to no case:\n  ${traceIdOfStray}:`)
    expect(run.stdout).toContain("1 case of 3 got no turn from the traces")
    const recorded = Schema.decodeUnknownSync(RecordedTurn)(
      JSON.parse(readFileSync(join(dir, "imported/otel.scale-search-api.json"), "utf8"))
    )
    expect(recorded.trace).toMatchObject({
      surface: "ops-agent",
      outcome: "awaiting-approval",
      proposal: { id: "chg_42" }
    })
    // Replayed as recorded turns, every verdict is the one graded from the traces.
    expect(inDir(["run", "--otel", "traces.jsonl", "--json", "from-traces.json"]).code).toBe(0)
    expect(inDir(["run", "--fixtures", "imported", "--json", "from-fixtures.json"]).code).toBe(0)
    const verdicts = (file: string) => results(file).cases.map((c) => [c.id, c.passed, c.expectations])
    expect(verdicts("from-fixtures.json")).toEqual(verdicts("from-traces.json"))
    // Importing again replaces the recordings, and says so.
    const again = inDir(["import", "--otel", "traces.jsonl", "--out", "imported"])
    expect(again.code).toBe(0)
    expect(again.stdout.match(/\(replaced the recording there\)$/gm)).toHaveLength(2)
  })
})

describe("the README's OpenTelemetry commands", () => {
  const readme = readFileSync("README.md", "utf8")
  const argsOf = (pattern: RegExp) => pattern.exec(readme)![1]!.split(/\s+/)

  it("grade and import the traces an application exported", () => {
    const run = inDir(argsOf(/^npx turn-eval (run --otel traces\.jsonl)$/m))
    expect(run.code).toBe(0)
    expect(run.stdout).toContain("1/3 passed")
    const imported = inDir(argsOf(/^npx turn-eval (import --otel traces\.jsonl --out \S+)/m))
    expect(imported.code).toBe(0)
    expect(imported.stdout).toMatch(/^wrote 2 recorded turns to /)
  })
})

describe("eval import of a turn too deep to write", () => {
  it("lists it as not usable and writes the others, where JSON.stringify would overflow the stack", () => {
    // A tool input 100,000 levels deep, as a hand-edited export could hold: the attribute is JSON text.
    const deep = `${"[".repeat(100_000)}${"]".repeat(100_000)}`
    const edited = readFileSync(join(dir, "exports/1-refund.json"), "utf8").replace(
      /"stringValue":"(\{\\"query\\":\\"refund window\\"\})"/,
      () => `"stringValue":${JSON.stringify(deep)}`
    )
    expect(edited).toContain("[[[[")
    writeFileSync(join(dir, "deep.json"), edited)
    const imported = inDir(["import", "--otel", "deep.json", "--otel", "exports/2-proposal.json", "--out", "deep-out"])
    expect(imported.stderr).not.toMatch(stackFrame)
    expect(imported.code).toBe(0)
    expect(imported.stdout).toMatch(/^wrote 1 recorded turn to deep-out:/)
    expect(imported.stdout).toMatch(/case otel\.refund-window: its turn is nested too deep to write as JSON$/m)
    expect(readdirSync(join(dir, "deep-out"))).toEqual(["otel.scale-search-api.json"])
  })
})
