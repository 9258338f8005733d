/**
 * Conversation cases graded from OpenTelemetry traces the real libraries wrote: a case takes, in order,
 * the turns of one conversation — the AI SDK's approval continuation is the conversation's next run —
 * whatever attribute the library names the conversation by (`gen_ai.conversation.id` from the AI SDK
 * 7's GenAI integration, its runtime context on the legacy integration, the AI SDK 6's telemetry
 * metadata, OpenInference's `session.id` from a LangChain run's `session_id`). `import` records the
 * conversation's turns in order, and they replay to the same verdicts.
 */
import { beforeAll, describe, expect, it } from "@effect/vitest"
import { Schema } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { RunResult } from "../../src/Schema/Result.js"
import { RecordedConversation } from "../../src/Schema/Trace.js"
import { evalCli, stackFrame } from "../support/cli.js"
import {
  type AiSdkProducer,
  aiSdkProducers,
  approvalTurn,
  otelCatalog,
  refundTurn,
  traceApprovalTurn,
  traceTurn
} from "../support/otelTraces.js"

const question = approvalTurn().question

const cases = {
  version: 1,
  cases: [
    {
      id: "otel.scale-approved",
      surface: "ops-agent",
      guards: "An approved scale-up run other than once, as proposed",
      turns: [
        { ask: question, expect: [{ kind: "stops-at-approval" }] },
        { approve: true, expect: [{ kind: "runs-as-proposed" }, { kind: "outcome", is: "answered" }] }
      ]
    }
  ]
}

const denied = {
  version: 1,
  cases: [{
    id: "otel.scale-denied",
    surface: "ops-agent",
    guards: "A denied scale-up run all the same",
    turns: [
      { ask: question, expect: [{ kind: "stops-at-approval" }] },
      { deny: "Not during the freeze.", expect: [{ kind: "never-calls", tool: "apply_change" }] }
    ]
  }]
}

let dir = ""

const write = (name: string, value: unknown) => {
  const file = join(dir, name)
  writeFileSync(file, typeof value === "string" ? value : JSON.stringify(value, null, 2))
  return file
}

/** What a run's results show of each step: its kind and its failing facts or error. */
const stepsOf = (file: string) =>
  Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(file, "utf8"))).cases.map((c) =>
    (c.turns ?? []).map((t) =>
      [
        t.kind,
        ...t.expectations.filter((e) => !e.passed).map((e) => e.fact),
        ...(t.error === undefined ? [] : [t.error])
      ]
        .join(": ")
    )
  )

const followUp = {
  version: 1,
  cases: [{
    id: "otel.refund-follow-up",
    surface: "docs",
    guards: "A follow-up on refunds citing a page it did not retrieve",
    turns: [
      { ask: refundTurn().question, expect: [{ kind: "cites", path: "docs/billing/refunds.md" }] },
      {
        ask: "And for annual plans?",
        expect: [{ kind: "cites-only-surfaced" }, { kind: "answer-includes", text: "30 days" }]
      }
    ]
  }]
}

/** The follow-up's second question, traced by LangChain, in a session or in none. */
const annualTurn = (conversationId?: string) => ({
  ...refundTurn(),
  question: "And for annual plans?",
  answer: "Annual plans have 30 days too; see [Refunds](docs/billing/refunds.md).",
  ...(conversationId === undefined ? {} : { conversationId })
})

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), "eval-otel-conversation-"))
  write("surfaces.json", otelCatalog)
  write("approved.json", cases)
  write("denied.json", denied)
  write("follow-up.json", followUp)
})

const run = (casesFile: string, traces: ReadonlyArray<string>, results: string) =>
  evalCli([
    "run",
    "--cases",
    join(dir, casesFile),
    "--surfaces",
    join(dir, "surfaces.json"),
    "--baseline",
    join(dir, "baseline.json"),
    ...traces.flatMap((t) => ["--otel", t]),
    "--json",
    join(dir, results)
  ])

describe.each(aiSdkProducers)("a conversation case from %s traces", (producer: AiSdkProducer) => {
  const slug = producer.replace(/\W+/g, "-")

  it("takes the approval's continuation as the next turn of the conversation, and grades what ran", async () => {
    const approved = await traceApprovalTurn(producer, "approved", { conversationId: `conv-${slug}-a` })
    const files = [write(`${slug}-asked.json`, approved.asked), write(`${slug}-continued.json`, approved.continued!)]
    const graded = run("approved.json", files, `${slug}-approved.json`)
    expect(graded.stderr).not.toMatch(stackFrame)
    expect(graded.stderr).not.toContain("linked to no case")
    expect(stepsOf(join(dir, `${slug}-approved.json`))).toEqual([["ask", "approve"]])

    const refused = await traceApprovalTurn(producer, "denied", { conversationId: `conv-${slug}-d` })
    const deniedFiles = [write(`${slug}-d1.json`, refused.asked), write(`${slug}-d2.json`, refused.continued!)]
    run("denied.json", deniedFiles, `${slug}-denied.json`)
    expect(stepsOf(join(dir, `${slug}-denied.json`))).toEqual([["ask", "deny"]])
  }, 60_000)
})

describe("a conversation of follow-ups from LangChain traces (OpenInference's session.id)", () => {
  it("takes each run of the session in order, and import records them to replay the same", async () => {
    const first = await traceTurn("langchain (OpenInference)", { ...refundTurn(), conversationId: "session-7" })
    const second = await traceTurn("langchain (OpenInference)", annualTurn("session-7"))
    const traces = [write("session-1.json", first), write("session-2.json", second)]
    const graded = run("follow-up.json", traces, "follow-up-results.json")
    expect(graded.stderr).not.toContain("linked to no case")
    expect(stepsOf(join(dir, "follow-up-results.json"))).toEqual([["ask", "ask"]])

    const imported = evalCli([
      "import",
      "--cases",
      join(dir, "follow-up.json"),
      "--surfaces",
      join(dir, "surfaces.json"),
      ...traces.flatMap((t) => ["--otel", t]),
      "--out",
      join(dir, "recorded")
    ])
    expect(imported.code).toBe(0)
    expect(imported.stdout).toContain("wrote 1 recorded turn to")
    const recorded = Schema.decodeUnknownSync(RecordedConversation)(
      JSON.parse(readFileSync(join(dir, "recorded", "otel.refund-follow-up.json"), "utf8"))
    )
    expect(recorded.turns.map((t) => t.ask)).toEqual([refundTurn().question, "And for annual plans?"])
    const replay = evalCli([
      "run",
      "--cases",
      join(dir, "follow-up.json"),
      "--surfaces",
      join(dir, "surfaces.json"),
      "--baseline",
      join(dir, "baseline.json"),
      "--fixtures",
      join(dir, "recorded"),
      "--json",
      join(dir, "replayed.json")
    ])
    expect(replay.stderr).not.toMatch(stackFrame)
    expect(stepsOf(join(dir, "replayed.json"))).toEqual(stepsOf(join(dir, "follow-up-results.json")))
  }, 60_000)

  it("fails the later step, saying why, when the traces name no conversation", async () => {
    const traces = [
      write("bare-1.json", await traceTurn("langchain (OpenInference)", refundTurn())),
      write("bare-2.json", await traceTurn("langchain (OpenInference)", annualTurn()))
    ]
    const graded = run("follow-up.json", traces, "bare-results.json")
    expect(graded.stderr).not.toMatch(stackFrame)
    const [steps] = stepsOf(join(dir, "bare-results.json"))
    expect(steps![0]).toBe("ask")
    expect(steps![1]).toMatch(
      /^ask: the turn in trace \w+ \(\S+\) names no conversation \(gen_ai\.conversation\.id, session\.id or the AI SDK's conversationId metadata\): turn 2 \(ask\) cannot be found$/
    )
    // The second run asks no case's first question: it is left over, and listed.
    expect(graded.stderr).toContain("no case of surface docs asks \"And for annual plans?\"")
  }, 60_000)
})
