/**
 * The tokens a turn used, read from its spans: the real libraries' model calls summed, each once,
 * though the run's root repeats their sum; none when the model reports none. The rules for what no
 * installed library writes (older names, totals that disagree with the calls, counts that are no whole
 * number) are held on spans the OpenTelemetry SDK's own tracer writes.
 */
import { describe, expect, it } from "@effect/vitest"
import type { Attributes } from "@opentelemetry/api"
import { Either } from "effect"
import { readTurnsOf } from "../../src/Otel/Conventions.js"
import { groupTraces, readSpans, type Span } from "../../src/Otel/Otlp.js"
import { toTurn } from "../../src/Otel/Turn.js"
import type { Problem } from "../../src/Schema/Errors.js"
import { resolveOtelRules } from "../../src/Schema/Otel.js"
import {
  aiSdkProducers,
  callUsage,
  producers,
  proposalTurn,
  refundTurn,
  type SpanTree,
  traceSpans,
  traceStreamedTurn,
  traceTurn
} from "../support/otelTraces.js"

/** The turns of one OTLP JSON document, read without a problem. */
const readAll = (document: string) => {
  const spans = Either.getOrThrow(readSpans("trace.json", document, 0))
  const problems: Array<Problem> = []
  const reads = Either.getOrThrow(groupTraces(spans)).flatMap((t) => readTurnsOf(t, problems))
  expect(problems).toEqual([])
  return { spans, reads }
}

/** The usage of the one turn a document holds, as its trace records it (undefined: the trace has no `usage`). */
const usageIn = (document: string) => {
  const { reads } = readAll(document)
  expect(reads).toHaveLength(1)
  const turn = Either.getOrThrow(
    toTurn(reads[0]!, "docs", resolveOtelRules("docs", { proposalTools: ["propose_change"] }))
  )
  expect("usage" in turn.trace).toBe(turn.trace.usage !== undefined)
  return turn.trace.usage
}

/** The refund turn's two model calls, summed. */
const refundUsage = {
  inputTokens: callUsage.tools.inputTokens + callUsage.answer.inputTokens,
  outputTokens: callUsage.tools.outputTokens + callUsage.answer.outputTokens
}

/** A span's token counts, in any convention's names. */
const countsOn = (span: Span) =>
  Object.fromEntries([...span.attributes].filter(([key]) => /usage|token_count/.test(key)))

/** The attribute each producer's root would repeat the run's input total in, if it does. */
const rootTotal: Readonly<Record<string, string>> = {
  "ai-sdk-7 (GenAI)": "gen_ai.usage.input_tokens",
  "ai-sdk-7 (LegacyOpenTelemetry)": "ai.usage.inputTokens",
  "ai-sdk-6": "ai.usage.inputTokens"
}

describe("the tokens a turn used, as the real libraries count them", () => {
  for (const producer of producers) {
    it(`${producer}: sums the turn's model calls, each once`, async () => {
      const document = await traceTurn(producer, refundTurn())
      const { spans } = readAll(document)
      // Both model calls counted their tokens; the AI SDK's roots repeat the sum, which a double count would add again.
      expect(spans.filter((s) => Object.keys(countsOn(s)).length > 0).length).toBe(producer in rootTotal ? 3 : 2)
      const root = spans.find((s) => s.parentSpanId === undefined)!
      const total = rootTotal[producer]
      if (total !== undefined) expect(root.attributes.get(total)).toBe(refundUsage.inputTokens)
      expect(usageIn(document)).toEqual(refundUsage)
      expect(usageIn(await traceTurn(producer, proposalTurn()))).toEqual(callUsage.tools)
    })

    it(`${producer}: a model that reports no tokens leaves no count in the spans, and no usage in the trace`, async () => {
      const document = await traceTurn(producer, { ...refundTurn(), noUsage: true })
      expect(readAll(document).spans.map(countsOn).filter((c) => Object.keys(c).length > 0)).toEqual([])
      expect(usageIn(document)).toBeUndefined()
    })
  }

  for (const producer of aiSdkProducers) {
    it(`${producer}: a streamed turn counts its streamed model calls; one aborted mid-answer, the calls that finished`, async () => {
      expect(usageIn(await traceStreamedTurn(producer, refundTurn()))).toEqual(refundUsage)
      // The answer's call was cut off before the provider's finish, which carries the counts.
      expect(usageIn(await traceStreamedTurn(producer, refundTurn(), { abortMidAnswer: true }))).toEqual(
        callUsage.tools
      )
    })
  }
})

// ---------------------------------------------------------------------------------------------------
// Spans the OpenTelemetry SDK writes: shapes and names no installed library makes

const question = "How long do customers have to ask for a refund?"

/** A GenAI agent run: `total` on its `invoke_agent` span, one inference span per entry of `calls`. */
const genAiRun = (total: Attributes, calls: ReadonlyArray<Attributes>, operation = "chat"): SpanTree => ({
  name: "invoke_agent docs",
  attributes: {
    "gen_ai.operation.name": "invoke_agent",
    "gen_ai.agent.name": "docs",
    "gen_ai.input.messages": JSON.stringify([{ role: "user", parts: [{ type: "text", content: question }] }]),
    "gen_ai.output.messages": JSON.stringify([{ role: "assistant", parts: [{ type: "text", content: "30 days." }] }]),
    "gen_ai.response.finish_reasons": ["stop"],
    ...total
  },
  children: calls.map((counts) => ({
    name: `${operation} model`,
    attributes: {
      "gen_ai.operation.name": operation,
      ...(operation === "execute_tool" ? { "gen_ai.tool.name": "search_docs" } : {}),
      ...counts
    }
  }))
})

/** The GenAI conventions' counts of a span. */
const genAi = (input: unknown, output: unknown, names: "current" | "older" = "current"): Attributes => {
  const [inputKey, outputKey] = names === "current"
    ? ["gen_ai.usage.input_tokens", "gen_ai.usage.output_tokens"]
    : ["gen_ai.usage.prompt_tokens", "gen_ai.usage.completion_tokens"]
  return {
    ...(input === undefined ? {} : { [inputKey]: input as number }),
    ...(output === undefined ? {} : { [outputKey]: output as number })
  }
}

/** An AI SDK 4 run, as its `ai.*` spans name its counts (`promptTokens`, `completionTokens`): no installed AI SDK writes these names. */
const aiSdk4Run = (total: Attributes, calls: ReadonlyArray<Attributes>): SpanTree => ({
  name: "ai.generateText",
  attributes: {
    "ai.operationId": "ai.generateText",
    "ai.telemetry.functionId": "docs",
    "ai.prompt": JSON.stringify({ prompt: question }),
    "ai.response.text": "30 days.",
    "ai.response.finishReason": "stop",
    ...total
  },
  children: calls.map((counts) => ({
    name: "ai.generateText.doGenerate",
    attributes: { "ai.operationId": "ai.generateText.doGenerate", "ai.response.finishReason": "stop", ...counts }
  }))
})

const aiSdk4 = (input: number, output: number): Attributes => ({
  "ai.usage.promptTokens": input,
  "ai.usage.completionTokens": output
})

/** An OpenInference run: a CHAIN root, and the spans below it. */
const openInferenceRun = (children: ReadonlyArray<SpanTree>): SpanTree => ({
  name: "docs",
  attributes: { "openinference.span.kind": "CHAIN", "input.value": question, "output.value": "30 days." },
  children
})

/** An OpenInference LLM span with its counts. */
const llm = (counts: Attributes, children: ReadonlyArray<SpanTree> = []): SpanTree => ({
  name: "ChatModel",
  attributes: { "openinference.span.kind": "LLM", ...counts },
  children
})

const openInference = (input: number, output: number): Attributes => ({
  "llm.token_count.prompt": input,
  "llm.token_count.completion": output,
  "llm.token_count.total": input + output
})

const { answer: second, tools: first } = callUsage

/** An OTLP JSON document with the integer values of some attributes written another way. */
const withIntegers = (document: string, as: Readonly<Record<string, (n: number) => unknown>>): string =>
  JSON.stringify(JSON.parse(document), (_key, value: unknown) => {
    if (typeof value !== "object" || value === null || !("key" in value) || !("value" in value)) return value
    const { key, value: attribute } = value as { key: string; value: { intValue?: unknown } }
    const rewrite = as[key]
    return rewrite !== undefined && typeof attribute.intValue === "number"
      ? { key, value: rewrite(attribute.intValue) }
      : value
  })

describe("the counting rules, on spans the OpenTelemetry SDK writes", () => {
  it("GenAI: sums the inference spans, not the agent's total beside them; that total only when no inference span counts", async () => {
    const calls = [genAi(first.inputTokens, first.outputTokens), genAi(second.inputTokens, second.outputTokens)]
    expect(usageIn(await traceSpans(genAiRun(genAi(1000, 100), calls)))).toEqual(refundUsage)
    expect(usageIn(await traceSpans(genAiRun(genAi(1000, 100), [{}, {}])))).toEqual({
      inputTokens: 1000,
      outputTokens: 100
    })
    expect(usageIn(await traceSpans(genAiRun({}, [{}, {}])))).toBeUndefined()
  })

  it("GenAI: reads the older names (prompt_tokens, completion_tokens), and text_completion and generate_content calls", async () => {
    const older = [
      genAi(first.inputTokens, first.outputTokens, "older"),
      genAi(second.inputTokens, second.outputTokens, "older")
    ]
    expect(usageIn(await traceSpans(genAiRun({}, older)))).toEqual(refundUsage)
    for (const operation of ["text_completion", "generate_content"]) {
      expect(usageIn(await traceSpans(genAiRun(genAi(1000, 100), older, operation)))).toEqual(refundUsage)
    }
    // A span that is no model call (a tool's, here) is not counted.
    expect(usageIn(await traceSpans(genAiRun({}, older, "execute_tool")))).toBeUndefined()
  })

  it("a side no span counts is 0", async () => {
    const inputOnly = [genAi(first.inputTokens, undefined), genAi(second.inputTokens, undefined)]
    expect(usageIn(await traceSpans(genAiRun({}, inputOnly)))).toEqual({
      inputTokens: refundUsage.inputTokens,
      outputTokens: 0
    })
    const outputOnly = [genAi(undefined, first.outputTokens), genAi(undefined, second.outputTokens)]
    expect(usageIn(await traceSpans(genAiRun({}, outputOnly)))).toEqual({
      inputTokens: 0,
      outputTokens: refundUsage.outputTokens
    })
  })

  it("the AI SDK 4: sums its model calls' promptTokens and completionTokens, not the run's total; else that total", async () => {
    const calls = [aiSdk4(first.inputTokens, first.outputTokens), aiSdk4(second.inputTokens, second.outputTokens)]
    expect(usageIn(await traceSpans(aiSdk4Run(aiSdk4(1000, 100), calls)))).toEqual(refundUsage)
    expect(usageIn(await traceSpans(aiSdk4Run(aiSdk4(1000, 100), [{}, {}])))).toEqual({
      inputTokens: 1000,
      outputTokens: 100
    })
  })

  it("OpenInference: a model call inside another is counted once, the inner calls when they count, else the outer", async () => {
    const inner = [
      llm(openInference(first.inputTokens, first.outputTokens)),
      llm(openInference(second.inputTokens, second.outputTokens))
    ]
    const wrapper = openInference(refundUsage.inputTokens, refundUsage.outputTokens)
    expect(usageIn(await traceSpans(openInferenceRun([llm(wrapper, inner)])))).toEqual(refundUsage)
    expect(usageIn(await traceSpans(openInferenceRun([llm(wrapper, [llm({}), llm({})])])))).toEqual(refundUsage)
    expect(usageIn(await traceSpans(openInferenceRun([llm({}, inner)])))).toEqual(refundUsage)
    // A provider's own GenAI span inside the LangChain model call is another convention: not counted again.
    const provider: SpanTree = {
      name: "chat gpt",
      attributes: { "gen_ai.operation.name": "chat", ...genAi(first.inputTokens, first.outputTokens) }
    }
    expect(
      usageIn(
        await traceSpans(openInferenceRun([llm(openInference(first.inputTokens, first.outputTokens), [provider])]))
      )
    )
      .toEqual(callUsage.tools)
  })

  it("reads a count written as an integer, a double or text; ignores one that is no whole number of 0 or more", async () => {
    const calls = [
      genAi(String(first.inputTokens), 8.5),
      genAi(second.inputTokens, -5),
      genAi("many", second.outputTokens),
      genAi(2 ** 60, "")
    ]
    const written = await traceSpans(genAiRun({}, calls))
    const expected = { inputTokens: refundUsage.inputTokens, outputTokens: second.outputTokens }
    expect(usageIn(written)).toEqual(expected)
    // Other exporters write the same counts otherwise: a collector writes 64-bit integers as strings of
    // digits, and an SDK that holds counts as floats writes doubles. The JavaScript SDK writes neither.
    const rewritten = withIntegers(written, {
      "gen_ai.usage.input_tokens": (n) => ({ intValue: String(n) }),
      "gen_ai.usage.output_tokens": (n) => ({ doubleValue: n })
    })
    expect(rewritten).toContain(`{"intValue":"${second.inputTokens}"}`)
    expect(rewritten).toContain(`{"doubleValue":${second.outputTokens}}`)
    expect(usageIn(rewritten)).toEqual(expected)
  })
})
