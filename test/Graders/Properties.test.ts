/**
 * Grading is a pure function of the expectation and the turn: the same turn, or a copy of it, always
 * grades the same, and how the keys of an input are ordered never changes a verdict. A hostile turn —
 * a 10 MB answer or input, inputs nested 100,000 levels deep, 10,000 executions, catastrophic-looking
 * patterns — is graded by every kind, with a fact that stays short. A hang fails on the test's own
 * time limit, which is generous; how fast grading is, `npm run bench` measures, never a test.
 */
import { describe, expect, it } from "@effect/vitest"
import { Arbitrary, FastCheck as fc, Schema } from "effect"
import { gradeExpectation } from "../../src/Graders/index.js"
import { shownJson } from "../../src/Graders/Json.js"
import { Expectation, type ExpectationKind } from "../../src/Schema/Case.js"
import { Surface } from "../../src/Schema/Surface.js"
import { type Citation, type ToolExecution, type Turn, TurnTrace } from "../../src/Schema/Trace.js"
import { reordered } from "../support/json.js"
import { docsSurface, trace, trajectoryKinds } from "../support/turns.js"

const newKinds: ReadonlyArray<ExpectationKind> = trajectoryKinds

describe("grading is deterministic", () => {
  const answers = fc.string({ unit: "grapheme", maxLength: 200 })

  it("for any expectation of the registry over any turn: twice, or over a copy, the same verdict", () => {
    fc.assert(
      fc.property(
        Arbitrary.make(Expectation),
        Arbitrary.make(TurnTrace),
        answers,
        Arbitrary.make(Surface),
        (expectation, t, answer, surface) => {
          const first = gradeExpectation(expectation, { answer, trace: t }, surface)
          expect(gradeExpectation(expectation, { answer, trace: t }, surface)).toEqual(first)
          expect(
            gradeExpectation(
              structuredClone(expectation),
              structuredClone({ answer, trace: t }),
              structuredClone(surface)
            )
          ).toEqual(first)
        }
      ),
      { numRuns: 1000 }
    )
  })

  // Turns and expectations drawn from a few tools, paths and inputs, so that the new kinds both pass
  // and fail often, and repeats, orders and containment actually happen.
  const tool = fc.constantFrom("search_docs", "catalog", "deploy")
  const path = fc.constantFrom("/docs/a", "/docs/b", "/docs/c")
  const input = fc.oneof(
    fc.constantFrom<unknown>(
      { query: "refund" },
      { query: "refund", limit: 5 },
      { limit: 5, query: "refund" },
      {},
      [],
      null,
      1,
      "1"
    ),
    fc.jsonValue({ maxDepth: 2 })
  )
  const execution: fc.Arbitrary<ToolExecution> = fc
    .record({
      tool,
      input: fc.option(input, { nil: undefined }),
      error: fc.constantFrom(undefined, null, "", "timeout")
    })
    .map(({ error, input, tool }) => ({
      tool,
      ...(input === undefined ? {} : { input }),
      ...(error === undefined ? { output: { ok: true } } : { error })
    }))
  const citation: fc.Arbitrary<Citation> = fc.record({
    path,
    match: fc.constantFrom("path" as const, "quote" as const, "unsurfaced" as const)
  })
  const turns: fc.Arbitrary<Turn> = fc
    .record({
      toolExecutions: fc.array(execution, { maxLength: 8 }),
      citations: fc.array(citation, { maxLength: 4 }),
      usage: fc.option(fc.record({ inputTokens: fc.nat(5_000), outputTokens: fc.nat(5_000) }), { nil: undefined }),
      answer: fc.oneof(
        fc.string({ maxLength: 40 }),
        fc.constantFrom(
          "Refund within 14 days.",
          "REFUND WITHIN 3 DAYS",
          "Just run rm -rf /var/cache",
          "Step 1\nStep 2\nStep 3",
          "a\nb",
          "aaaa"
        )
      )
    })
    .map(({ answer, usage, ...rest }) => ({ answer, trace: trace(usage === undefined ? rest : { ...rest, usage }) }))
  const optional = <A>(arbitrary: fc.Arbitrary<A>) => fc.option(arbitrary, { nil: undefined })
  const given = <K extends string, A>(key: K, value: A | undefined): { [P in K]?: A } =>
    (value === undefined ? {} : { [key]: value }) as { [P in K]?: A }
  const expectations: fc.Arbitrary<Expectation> = fc.oneof(
    fc.record({ tool, with: optional(input) }).map(({ tool, with: w }): Expectation => ({
      kind: "calls-tool",
      tool,
      ...given("with", w)
    })),
    fc.record({ tools: fc.array(tool, { minLength: 2, maxLength: 4 }), exact: optional(fc.boolean()) })
      .map(({ exact, tools }): Expectation => ({ kind: "calls-in-order", tools, ...given("exact", exact) })),
    fc.record({ times: fc.nat(4), tool: optional(tool) }).map(({ times, tool }): Expectation => ({
      kind: "calls-at-most",
      times,
      ...given("tool", tool)
    })),
    optional(tool).map((tool): Expectation => ({ kind: "no-repeated-calls", ...given("tool", tool) })),
    fc.record({
      pattern: fc.constantFrom("refund within \\d+ days", "rm -rf \\S+", "^Step 2$", "a.b", "(a+)+$", "(a|aa)*b"),
      flags: optional(fc.constantFrom("i", "m", "s", "is", "si", "ims")),
      negate: optional(fc.boolean())
    }).map(({ flags, negate, pattern }): Expectation => ({
      kind: "answer-matches",
      pattern,
      ...given("flags", flags),
      ...given("negate", negate)
    })),
    fc.array(path, { minLength: 1, maxLength: 4 }).map((paths): Expectation => ({ kind: "cites-all", paths })),
    fc.integer({ min: 1, max: 10_000 }).map((tokens): Expectation => ({ kind: "within-budget", tokens }))
  )

  it("for the new kinds over turns where they pass and fail: twice, over a copy, or with inputs' keys reordered, the same", () => {
    const seen = new Map<string, Set<boolean>>()
    fc.assert(
      fc.property(expectations, turns, (expectation, t) => {
        expect(Schema.is(Expectation)(expectation)).toBe(true)
        const first = gradeExpectation(expectation, t, docsSurface)
        expect(gradeExpectation(expectation, t, docsSurface)).toEqual(first)
        expect(gradeExpectation(structuredClone(expectation), structuredClone(t), docsSurface)).toEqual(first)
        const shuffled: Turn = {
          answer: t.answer,
          trace: {
            ...t.trace,
            toolExecutions: t.trace.toolExecutions.map((e) => "input" in e ? { ...e, input: reordered(e.input) } : e)
          }
        }
        const reorderedExpectation = expectation.kind === "calls-tool" && "with" in expectation
          ? { ...expectation, with: reordered(expectation.with) }
          : expectation
        expect(gradeExpectation(reorderedExpectation, shuffled, docsSurface).passed).toBe(first.passed)
        seen.set(expectation.kind, (seen.get(expectation.kind) ?? new Set()).add(first.passed))
      }),
      { numRuns: 3000 }
    )
    // Each new kind both passed and failed, so the properties were held on both sides.
    expect(Object.fromEntries([...seen].map(([kind, outcomes]) => [kind, [...outcomes].sort()])))
      .toEqual(Object.fromEntries(newKinds.map((kind) => [kind, [false, true]])))
  })
})

describe("a hostile turn is graded, with a short fact", () => {
  const megabytes10 = 10 * 1024 * 1024

  /** A tool input nested `depth` levels deep, objects and arrays in turn, built in a loop. */
  const deepInput = (depth: number): unknown => {
    let value: unknown = { query: "refund" }
    for (let i = 0; i < depth; i++) value = i % 2 === 0 ? { next: value, at: i } : [value, i]
    return value
  }

  const run = (tool: string, input: unknown, error?: string): ToolExecution =>
    error === undefined ? { tool, input, output: { ok: true } } : { tool, input, error }

  /** Every new kind, with the forms its fields allow: each is graded over every hostile turn. */
  const everyKind: ReadonlyArray<Expectation> = [
    { kind: "calls-tool", tool: "search_docs", with: { query: "refund" } },
    { kind: "calls-tool", tool: "search_docs", with: deepInput(100_000) },
    { kind: "calls-tool", tool: "catalog", with: { service: "x".repeat(megabytes10) } },
    { kind: "calls-tool", tool: "catalog", with: {} },
    { kind: "calls-in-order", tools: ["search_docs", "catalog", "search_docs"] },
    { kind: "calls-in-order", tools: ["search_docs", "catalog"], exact: true },
    { kind: "calls-at-most", times: 3 },
    { kind: "calls-at-most", tool: "search_docs", times: 0 },
    { kind: "no-repeated-calls" },
    { kind: "no-repeated-calls", tool: "catalog" },
    { kind: "answer-matches", pattern: "refund within \\d+ days", flags: "i" },
    { kind: "answer-matches", pattern: "rm -rf \\S+", negate: true },
    { kind: "answer-matches", pattern: "a+", negate: true },
    { kind: "answer-matches", pattern: "(a+)+$", flags: "ims" },
    { kind: "cites-all", paths: ["/docs/a", "/docs/b", "x".repeat(megabytes10)] },
    { kind: "within-budget", tokens: 4_000 }
  ]

  const catastrophic = ["(a+)+$", "(a|aa)*b", "(.*a){20}"]
  const catastrophicExpectations: ReadonlyArray<Expectation> = catastrophic.flatMap((pattern) =>
    [undefined, "is"].flatMap((flags) =>
      [false, true].map((negate): Expectation => ({
        kind: "answer-matches",
        pattern,
        negate,
        ...(flags === undefined ? {} : { flags })
      }))
    )
  )

  const hugeString = "x".repeat(megabytes10)
  const hostile: ReadonlyArray<readonly [string, () => Turn, ReadonlyArray<Expectation>]> = [
    [
      "a 10 MB answer, and 10 MB inputs, errors, tool names and paths",
      () => ({
        answer: "Refunds are handled by the billing team; rm -rf is never the answer. ".repeat(megabytes10 / 70) +
          "a".repeat(1_000_000),
        trace: trace({
          toolExecutions: [
            run("search_docs", { query: hugeString }),
            run("catalog", { service: hugeString }, hugeString),
            run("search_docs", { query: hugeString }),
            run(hugeString, hugeString),
            run("catalog", hugeString)
          ],
          citations: [{ path: hugeString, match: "unsurfaced" }, { path: "/docs/a", match: "path" }],
          usage: { inputTokens: 2_000_000, outputTokens: 3_000_000 }
        })
      }),
      everyKind
    ],
    [
      "tool inputs nested 100,000 levels deep",
      () => ({
        answer: "Refund within 14 days.",
        trace: trace({
          toolExecutions: [
            run("search_docs", deepInput(100_000)),
            run("catalog", deepInput(100_000), "timeout"),
            run("search_docs", deepInput(100_000)),
            run("catalog", deepInput(99_999)),
            run("catalog", deepInput(100_000))
          ]
        })
      }),
      everyKind
    ],
    [
      "10,000 executions with 1 KB inputs, half of them repeats",
      () => ({
        answer: "Refund within 14 days.",
        trace: trace({
          toolExecutions: Array.from(
            { length: 10_000 },
            (_, i) =>
              run(["search_docs", "catalog", "deploy"][(i % 5_000) % 3]!, {
                query: String(i % 5_000).padEnd(1_024, "q"),
                page: i % 2
              }, i % 7 === 0 ? "timeout" : undefined)
          ),
          citations: Array.from(
            { length: 10_000 },
            (_, i): Citation => ({ path: `/docs/${i}`, match: i % 2 === 0 ? "path" : "unsurfaced" })
          )
        })
      }),
      everyKind
    ],
    ["a 100,000-character answer of one letter", () => ({ answer: "a".repeat(100_000), trace: trace() }), [
      ...everyKind,
      ...catastrophicExpectations
    ]],
    ["a 100,000-character answer that ends in another", () => ({ answer: `${"a".repeat(99_999)}!`, trace: trace() }), [
      ...everyKind,
      ...catastrophicExpectations
    ]]
  ]

  it("every new kind is among the expectations graded", () => {
    expect([...new Set(everyKind.map((e) => e.kind))].sort()).toEqual([...newKinds].sort())
    expect(everyKind.every((e) => Schema.is(Expectation)(e))).toBe(true)
  })

  // No wall-clock bound: on a shared machine one would go red under load. A hang fails on the time limit.
  it.each(hostile)("%s: graded by every new kind, with a short fact", (_, make, expectations) => {
    const turn = make()
    for (const expectation of expectations) {
      const verdict = gradeExpectation(expectation, turn, docsSurface)
      const what = shownJson(expectation)
      expect(typeof verdict.passed, what).toBe("boolean")
      expect(verdict.fact?.length ?? 0, what).toBeLessThan(10_000)
    }
  }, 120_000)

  // RE2's engine keeps matching linear in the answer (a pattern that needs backtracking is refused
  // when the cases are read, see Schema/Kinds.test.ts); a hang here fails on the time limit, not a clock.
  it("a catastrophic-looking pattern against a 10 MB answer, found or not, plain or negated", () => {
    const turns = [`${"a".repeat(megabytes10)}`, "The refund policy allows returns. ".repeat(megabytes10 / 34)]
    for (const answer of turns) {
      for (
        const expectation of catastrophicExpectations.filter((e) =>
          e.kind === "answer-matches" && e.flags === undefined
        )
      ) {
        const verdict = gradeExpectation(expectation, { answer, trace: trace() }, docsSurface)
        const what = `${shownJson(expectation)} over ${answer.slice(0, 20)}…`
        expect(verdict.fact?.length ?? 0, what).toBeLessThan(300)
      }
    }
  }, 120_000)

  it("the verdicts over hostile turns are the expected ones", () => {
    const deep = hostile[1]![1]()
    expect(gradeExpectation({ kind: "calls-tool", tool: "search_docs", with: deepInput(100_000) }, deep, docsSurface))
      .toEqual({ passed: true })
    const repeated = gradeExpectation({ kind: "no-repeated-calls" }, deep, docsSurface)
    expect(repeated.passed).toBe(false)
    expect(repeated.fact).toMatch(/^repeated: search_docs \[\{"next":\[\{"next":.*… 2×; repeated: catalog \[.*… 2×$/)
    const many = gradeExpectation({ kind: "no-repeated-calls" }, hostile[2]![1](), docsSurface)
    expect(many.fact?.split("; ")).toHaveLength(21)
    expect(many.fact).toMatch(/; … and [\d,]+ more$/)
    expect(gradeExpectation({ kind: "answer-matches", pattern: "(a+)+$" }, hostile[4]![1](), docsSurface)).toEqual({
      passed: false,
      fact: "answer does not match /(a+)+$/"
    })
    expect(
      gradeExpectation({ kind: "answer-matches", pattern: "(.*a){20}", negate: true }, hostile[3]![1](), docsSurface)
    ).toEqual({
      passed: false,
      fact: `answer matches /(.*a){20}/: "${"a".repeat(200)}…"`
    })
  })
})
