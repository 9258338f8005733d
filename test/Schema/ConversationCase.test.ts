import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Schema } from "effect"
import { Layer } from "effect"
import { mkdtempSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { Runner } from "../../src/Runner/Runner.js"
import { SurfaceClient } from "../../src/Runner/SurfaceClient.js"
import { CasesFile, type ConversationCase, fastCasesFile } from "../../src/Schema/Case.js"
import { decodeValue } from "../../src/Schema/Decode.js"
import { caseProblems } from "../../src/Schema/Validate.js"
import { failingFacts, showFact } from "../../src/Scorecard/Attempts.js"
import { caseSetFingerprint } from "../../src/Scorecard/CaseSet.js"
import { agentSurface, callWith, trace } from "../support/turns.js"

const conversation = {
  id: "ops.restart",
  surface: "ops-agent",
  guards: "an approved restart runs as proposed",
  turns: [
    { ask: "Restart the payments worker.", expect: [{ kind: "stops-at-approval" }] },
    { approve: true, expect: [{ kind: "runs-as-proposed" }] },
    { deny: "Not now.", expect: [{ kind: "never-calls", tool: "deploy" }] },
    { ask: "Is it healthy?", expect: [{ kind: "calls-tool", tool: "search_docs" }] }
  ]
}

const problems = (value: unknown) =>
  Either.match(decodeValue(CasesFile, "cases.json", { version: 1, cases: [value] }), {
    onLeft: (error) => error.problems,
    onRight: () => []
  })

const catalog = { surfaces: { "ops-agent": agentSurface } }

describe("a conversation case", () => {
  it("decodes its steps in order, the fast decoder to the same value", () => {
    const file = { version: 1, cases: [conversation] }
    const decoded = Either.getOrThrow(decodeValue(CasesFile, "cases.json", file))
    expect(decoded.cases[0]).toEqual(conversation)
    expect(fastCasesFile(file)).toEqual(decoded)
  })

  it("names the step a problem is in, with that step's own fields", () => {
    expect(problems({ ...conversation, turns: [conversation.turns[0], { approve: false, expect: [] }] })).toEqual([
      { path: "$.cases[0].turns[1].approve", message: "expected true (to deny, write \"deny\": REASON)" },
      { path: "$.cases[0].turns[1].expect", message: "expected at least one expectation" }
    ])
    expect(problems({ ...conversation, turns: [{ say: "hi", expect: [] }] })).toEqual([{
      path: "$.cases[0].turns[0]",
      message: "expected a step: {\"ask\": TEXT, \"expect\": […]}, {\"approve\": true, \"expect\": […]} " +
        "or {\"deny\": REASON, \"expect\": […]}"
    }])
    expect(problems({ ...conversation, question: "Also one question?" })).toEqual([
      expect.objectContaining({ path: "$.cases[0].question" })
    ])
    expect(problems({ ...conversation, turns: [] })).toEqual([
      { path: "$.cases[0].turns", message: "expected at least one step" }
    ])
  })

  it("validate: a conversation opens with an ask, runs-as-proposed grades an approve step, tools are the surface's", () => {
    const file = Schema.decodeUnknownSync(CasesFile)({
      version: 1,
      cases: [
        { ...conversation, turns: [conversation.turns[1], conversation.turns[0]] },
        {
          ...conversation,
          id: "ops.misplaced",
          turns: [
            { ask: "Restart it.", expect: [{ kind: "runs-as-proposed" }] },
            { deny: "No.", expect: [{ kind: "never-calls", tool: "delete_namespace" }] }
          ]
        },
        {
          id: "docs.one",
          surface: "ops-agent",
          question: "What?",
          guards: "g",
          expect: [{ kind: "runs-as-proposed" }]
        }
      ]
    })
    expect(caseProblems(file, catalog)).toEqual([
      {
        path: "$.cases[0].turns[0]",
        message: "expected an \"ask\" step first: an approve step answers the proposal the step before it left"
      },
      {
        path: "$.cases[1].turns[0].expect[0].kind",
        message:
          "\"runs-as-proposed\" grades an approve step (what ran once the proposal was approved); this step is an ask"
      },
      {
        path: "$.cases[1].turns[1].expect[0].tool",
        message:
          "unknown tool \"delete_namespace\" on surface \"ops-agent\"; its tools are search_docs, propose_change, apply_change, deploy"
      },
      {
        path: "$.cases[2].expect[0].kind",
        message:
          "\"runs-as-proposed\" grades an approve step of a conversation case (\"turns\"); this case asks one question"
      }
    ])
  })

  it("is fingerprinted by its steps in order, not by what it guards", () => {
    const decoded = Schema.decodeUnknownSync(CasesFile)({ version: 1, cases: [conversation] })
      .cases[0] as ConversationCase
    const base = caseSetFingerprint([decoded])
    expect(caseSetFingerprint([{ ...decoded, guards: "reworded", tags: ["x"] }])).toBe(base)
    expect(caseSetFingerprint([{ ...decoded, turns: [...decoded.turns].reverse() }])).not.toBe(base)
    expect(
      caseSetFingerprint([{
        ...decoded,
        turns: [{ ...decoded.turns[0]!, ask: "Restart it." } as never, ...decoded.turns.slice(1)]
      }])
    )
      .not.toBe(base)
    expect(
      caseSetFingerprint([{
        ...decoded,
        turns: [decoded.turns[0]!, { deny: "No.", expect: [{ kind: "runs-as-proposed" }] }]
      }])
    )
      .not.toBe(
        caseSetFingerprint([{
          ...decoded,
          turns: [decoded.turns[0]!, { approve: true, expect: [{ kind: "runs-as-proposed" }] }]
        }])
      )
  })
})

describe("a conversation replayed from its recording", () => {
  const testCase = Schema.decodeUnknownSync(CasesFile)({
    version: 1,
    cases: [{ ...conversation, turns: conversation.turns.slice(0, 2) }]
  }).cases[0]!
  const proposal = {
    id: "chg_1",
    summary: "Restart",
    status: "pending",
    actions: [{ tool: "apply_change", input: { a: 1 } }]
  }
  const stopped = {
    answer: "Proposed.",
    trace: trace({ surface: "ops-agent", outcome: "awaiting-approval", proposal })
  }
  const ran = {
    answer: "Done.",
    trace: trace({ turnId: "turn_2", surface: "ops-agent", toolExecutions: [callWith("apply_change", { a: 2 })] })
  }
  let folder = ""
  const run = (recording: unknown) => {
    folder = mkdtempSync(join(tmpdir(), "conversation-"))
    writeFileSync(join(folder, `${testCase.id}.json`), JSON.stringify(recording))
    return Effect.runPromise(
      Effect.flatMap(Runner, (runner) => runner.run(catalog, [testCase])).pipe(
        Effect.provide(Runner.Default.pipe(Layer.provide(SurfaceClient.Fixture(folder)))),
        Effect.provide(NodeContext.layer)
      )
    ).then((results) => results[0]!)
  }

  it("grades each step over its own turn, the approve step against the proposal the turn before left", async () => {
    const result = await run({
      caseId: testCase.id,
      turns: [{ ask: "Restart the payments worker.", ...stopped }, { approve: true, ...ran }]
    })
    expect(result.passed).toBe(false)
    expect(failingFacts(result).map(showFact)).toEqual([
      "turn 2 (approve) · runs-as-proposed: ran with another input: apply_change {\"a\":2} (proposed {\"a\":1})"
    ])
    expect(result.turns?.map((t) => [t.step, t.kind, t.turnId])).toEqual([[1, "ask", "turn_1"], [
      2,
      "approve",
      "turn_2"
    ]])
  })

  it("fails the step a recording does not hold, or holds as another step, and skips none it took", async () => {
    const short = await run({ caseId: testCase.id, turns: [{ ask: "Restart the payments worker.", ...stopped }] })
    expect(short.error).toMatch(
      /^turn 2 \(approve\): recorded turn .*: it holds 1 turn, none for turn 2 \(approve\): record it again$/
    )
    const other = await run({
      caseId: testCase.id,
      turns: [{ ask: "Restart the payments worker.", ...stopped }, { deny: "No.", ...ran }]
    })
    expect(other.error).toMatch(/its turn 2 records another step than the case's turn 2 \(approve\)/)
    const single = await run({ caseId: testCase.id, question: "Restart the payments worker.", ...stopped })
    expect(single.error).toMatch(/it records one question; the case is a conversation$/)
  })
})

describe("a conversation from a table, as the typed API takes one", () => {
  const testCase = Schema.decodeUnknownSync(CasesFile)({
    version: 1,
    cases: [{ ...conversation, turns: conversation.turns.slice(0, 2) }]
  }).cases[0]!
  const proposal = { id: "chg_1", actions: [{ tool: "apply_change", input: { a: 1 } }] }
  const stopped = {
    answer: "Proposed.",
    trace: trace({ surface: "ops-agent", outcome: "awaiting-approval", proposal })
  }
  const ran = {
    answer: "Done.",
    trace: trace({ turnId: "turn_2", surface: "ops-agent", toolExecutions: [callWith("apply_change", { a: 1 })] })
  }
  const runTable = (turns: ReadonlyArray<typeof stopped>) =>
    Effect.runPromise(
      Effect.flatMap(Runner, (runner) => runner.run(catalog, [testCase])).pipe(
        Effect.provide(Runner.Default.pipe(Layer.provide(SurfaceClient.fromTable(new Map([[testCase.id, turns]])))))
      )
    ).then((results) => results[0]!)

  it("takes each step's turn from the case's list, in order", async () => {
    const result = await runTable([stopped, ran])
    expect([result.passed, result.error, result.turns?.map((t) => t.turnId)]).toEqual([true, undefined, [
      "turn_1",
      "turn_2"
    ]])
  })

  it("fails a step the list holds no turn for, naming it", async () => {
    const result = await runTable([stopped])
    expect(result.error).toBe("turn 2 (approve): no turn for turn 2 (approve) of case ops.restart")
  })

  it("fails an approval after a turn that left no proposal, and takes nothing after it", async () => {
    const answered = { ...stopped, trace: trace({ surface: "ops-agent" }) }
    const result = await runTable([answered, ran])
    expect(result.turns?.map((t) => [t.kind, t.error, t.turnId])).toEqual([
      ["ask", undefined, "turn_1"],
      ["approve", "nothing to approve: turn 1 answered", undefined]
    ])
  })
})
