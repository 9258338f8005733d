import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { decodeAnyValue } from "../../src/Otel/Attributes.js"
import { readTurnsOf } from "../../src/Otel/Conventions.js"
import { groupTraces, readSpans } from "../../src/Otel/Otlp.js"
import type { Problem } from "../../src/Schema/Errors.js"

const traceId = "0af7651916cd43dd8448eb211c80319c"
const id = (n: number) => n.toString(16).padStart(16, "0")
const str = (key: string, value: string) => ({ key, value: { stringValue: value } })

interface SpanSpec {
  readonly n: number
  readonly parent?: number
  readonly name?: string
  readonly start: string
  readonly attributes?: ReadonlyArray<unknown>
  readonly status?: unknown
  readonly events?: ReadonlyArray<unknown>
}
const span = (s: SpanSpec) => ({
  traceId,
  spanId: id(s.n),
  ...(s.parent === undefined ? {} : { parentSpanId: id(s.parent) }),
  name: s.name ?? `span ${s.n}`,
  startTimeUnixNano: s.start,
  endTimeUnixNano: String(BigInt(s.start) + 1_000_000n),
  attributes: s.attributes ?? [],
  ...(s.status === undefined ? {} : { status: s.status }),
  ...(s.events === undefined ? {} : { events: s.events })
})
const doc = (spans: ReadonlyArray<unknown>) =>
  JSON.stringify({ resourceSpans: [{ resource: {}, scopeSpans: [{ scope: { name: "t" }, spans }] }] })

describe("attribute values", () => {
  it("decodes every OTLP value kind", () => {
    const value = (v: unknown) => Either.getOrThrow(decodeAnyValue(v))
    expect(value({ stringValue: "docs" })).toBe("docs")
    expect(value({ intValue: 42 })).toBe(42)
    expect(value({ intValue: "42" })).toBe(42)
    expect(value({ intValue: "9223372036854775807" })).toBe("9223372036854775807")
    expect(value({ doubleValue: 0.25 })).toBe(0.25)
    expect(value({ doubleValue: "NaN" })).toBeNaN()
    expect(value({ boolValue: false })).toBe(false)
    expect(value({ bytesValue: "AQID" })).toBe("AQID")
    expect(value({ arrayValue: { values: [{ stringValue: "a" }, { intValue: "2" }] } })).toEqual(["a", 2])
    expect(value({ arrayValue: {} })).toEqual([])
    expect(value({ kvlistValue: { values: [{ key: "path", value: { stringValue: "docs/a.md" } }] } })).toEqual({
      path: "docs/a.md"
    })
    expect(value({})).toBeNull()
  })

  it("says where inside a value it is broken and what was expected", () => {
    expect(decodeAnyValue({ intValue: 1.5 })).toEqual(
      Either.left({ at: ".intValue", message: "expected an integer (a number or a string of digits), got 1.5" })
    )
    expect(decodeAnyValue({ arrayValue: { values: [{ stringValue: "a" }, { boolValue: "yes" }] } })).toEqual(
      Either.left({ at: ".arrayValue.values[1].boolValue", message: "expected true or false, got \"yes\"" })
    )
    expect(Either.isLeft(decodeAnyValue({ mapValue: 1 }))).toBe(true)
  })
})

describe("reading spans", () => {
  it("orders each trace parent first, siblings by start time, ties in the order read", () => {
    // Written in the order an exporter sends them (children end first); times rounded to the millisecond,
    // so a child can start at its parent's instant and siblings can tie.
    const text = doc([
      span({ n: 4, parent: 2, start: "1700000000005000000", name: "tool b" }),
      span({ n: 3, parent: 2, start: "1700000000005000000", name: "tool a" }),
      span({ n: 5, parent: 1, start: "1700000000009000000", name: "step 2" }),
      span({ n: 2, parent: 1, start: "1700000000001000000", name: "step 1" }),
      span({ n: 1, start: "1700000000001000000", name: "root" })
    ])
    const [trace] = Either.getOrThrow(groupTraces(Either.getOrThrow(readSpans("t.json", text))))
    expect(trace!.spans.map((s) => s.name)).toEqual(["root", "step 1", "tool b", "tool a", "step 2"])
  })

  it("reads one document per line and groups a trace's spans across lines", () => {
    const text = [doc([span({ n: 2, parent: 1, start: "2" })]), "", doc([span({ n: 1, start: "1" })])].join("\n")
    const traces = Either.getOrThrow(groupTraces(Either.getOrThrow(readSpans("t.jsonl", text))))
    expect(traces.map((t) => t.spans.map((s) => s.spanId))).toEqual([[id(1), id(2)]])
  })

  it("names the file, the line and the JSON path of a broken document", () => {
    const bad = JSON.stringify({
      resourceSpans: [{ scopeSpans: [{ spans: [{ ...span({ n: 1, start: "1" }), traceId: "xyz" }] }] }]
    })
    const result = readSpans("t.jsonl", [doc([span({ n: 1, start: "1" })]), bad].join("\n"))
    expect(Either.isLeft(result) && result.left.message).toBe(
      "t.jsonl: line 2: $.resourceSpans[0].scopeSpans[0].spans[0].traceId: expected a trace id of 32 hex digits, got \"xyz\""
    )
    const attr = readSpans(
      "t.json",
      doc([span({ n: 1, start: "1", attributes: [{ key: "gen_ai.tool.name", value: { intValue: "x" } }] })])
    )
    expect(Either.isLeft(attr) && attr.left.message).toBe(
      "t.json: $.resourceSpans[0].scopeSpans[0].spans[0].attributes[0].value.intValue: attribute " +
        "\"gen_ai.tool.name\": expected an integer (a number or a string of digits), got \"x\""
    )
    const notJson = readSpans("t.json", "{\"resourceSpans\": [")
    expect(Either.isLeft(notJson) && notJson.left.message).toMatch(/^t\.json: not valid JSON/)
    const empty = readSpans("t.json", JSON.stringify({ resourceSpans: [] }))
    expect(Either.isLeft(empty) && empty.left.message).toMatch(/^t\.json: no spans/)
  })

  it("refuses a span id used twice and parents that form a loop, naming the trace", () => {
    const twice = Either.getOrThrow(readSpans("t.json", doc([span({ n: 1, start: "1" }), span({ n: 1, start: "2" })])))
    const dup = groupTraces(twice)
    expect(Either.isLeft(dup) && dup.left.message).toBe(
      `t.json: trace ${traceId}: span ${id(1)} appears twice ("span 1")`
    )
    const looped = Either.getOrThrow(
      readSpans("t.json", doc([span({ n: 1, parent: 2, start: "1" }), span({ n: 2, parent: 1, start: "1" })]))
    )
    const loop = groupTraces(looped)
    expect(Either.isLeft(loop) && loop.left.message).toBe(
      `t.json: trace ${traceId}: the parentSpanId of spans ${id(1)}, ${id(2)} form a loop`
    )
  })
})

describe("reading a turn", () => {
  const agent = (attributes: ReadonlyArray<unknown>, extra: Partial<SpanSpec> = {}) =>
    span({
      n: 1,
      start: "1",
      name: "invoke_agent docs",
      attributes: [str("gen_ai.operation.name", "invoke_agent"), ...attributes],
      ...extra
    })
  const read = (spans: ReadonlyArray<unknown>) => {
    const [trace] = Either.getOrThrow(groupTraces(Either.getOrThrow(readSpans("t.json", doc(spans)))))
    const problems: Array<Problem> = []
    return { turns: readTurnsOf(trace!, problems), problems }
  }

  it("names the trace, the span and the attribute it cannot read", () => {
    const { problems, turns } = read([
      agent([str("gen_ai.agent.name", "docs"), str("gen_ai.input.messages", "[{\"role\":\"user\",")]),
      span({
        n: 2,
        parent: 1,
        start: "2",
        name: "execute_tool",
        attributes: [str("gen_ai.operation.name", "execute_tool")]
      })
    ])
    expect(turns).toEqual([])
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      expect.stringMatching(
        new RegExp(`^trace ${traceId}: span ${id(1)} "invoke_agent docs": gen_ai\\.input\\.messages: not valid JSON`)
      ),
      `trace ${traceId}: span ${id(2)} "execute_tool": gen_ai.tool.name: missing: it names the tool`
    ])
  })

  it("needs the question, and says so", () => {
    const { problems } = read([agent([str("gen_ai.input.messages", JSON.stringify([{ role: "system", parts: [] }]))])])
    expect(problems[0]?.message).toBe(
      `span ${
        id(1)
      } "invoke_agent docs": gen_ai.input.messages: no question in it: expected a user message with a text part`
    )
  })

  it("takes the first line of an exception's message as a tool's error, and finds the case id above the turn", () => {
    const { turns } = read([
      span({ n: 9, start: "0", name: "POST /ask", attributes: [str("eval.case_id", "docs.refunds")] }),
      agent([
        str(
          "gen_ai.input.messages",
          JSON.stringify([{ role: "user", parts: [{ type: "text", content: "Refunds?" }] }])
        ),
        str(
          "gen_ai.output.messages",
          JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "30 days." }] }])
        )
      ], { parent: 9 }),
      span({
        n: 2,
        parent: 1,
        start: "2",
        attributes: [str("gen_ai.operation.name", "execute_tool"), str("gen_ai.tool.name", "catalog")],
        status: { code: "STATUS_CODE_ERROR", message: "timeout\n\nError: timeout\n    at x (y.js:1:1)" },
        events: [{
          name: "exception",
          timeUnixNano: "3",
          attributes: [str("exception.message", "timeout\n    at x (y.js:1:1)")]
        }]
      })
    ])
    expect(turns).toHaveLength(1)
    expect(turns[0]).toMatchObject({
      question: "Refunds?",
      answer: "30 days.",
      caseId: { value: "docs.refunds", attribute: "eval.case_id" },
      toolCalls: [{ tool: "catalog", error: "timeout" }]
    })
  })
})
