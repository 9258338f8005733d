/**
 * The tokens a turn's model calls used, read from their spans and summed over the turn. Each convention
 * writes the counts on its model-call spans, and its agent run's root often repeats their sum:
 *
 * - GenAI: `gen_ai.usage.input_tokens` and `gen_ai.usage.output_tokens` (`prompt_tokens` and
 *   `completion_tokens` before they were renamed) on inference spans (`gen_ai.operation.name` `chat`,
 *   `text_completion` or `generate_content`); `invoke_agent` may carry the run's total.
 * - The AI SDK: `ai.usage.inputTokens` and `ai.usage.outputTokens` (`promptTokens` and
 *   `completionTokens` in the AI SDK 4) on `ai.generateText.doGenerate` and `ai.streamText.doStream`;
 *   `ai.generateText` and `ai.streamText` carry the sum of theirs.
 * - OpenInference: `llm.token_count.prompt` and `llm.token_count.completion` on `LLM` spans.
 *
 * The model calls' counts are summed, each call once: a model call that holds other model calls with
 * counts (a model wrapping another) is not counted on top of them. The root's counts are read only
 * when no model call of the turn carries any. docs/otel.md names every attribute.
 */
import { summedUsage, type Usage } from "../Schema/Trace.js"
import { attributeText, type AttributeValue } from "./Attributes.js"
import type { Convention } from "./Conventions.js"
import type { Span, Trace } from "./Otlp.js"

/** The `gen_ai.operation.name` of GenAI inference spans: one model call each. */
const inferenceOperations: ReadonlyArray<string> = ["chat", "text_completion", "generate_content"]

/** The AI SDK's model-call spans (`ai.operationId`). */
const aiSdkModelCalls: ReadonlyArray<string> = ["ai.generateText.doGenerate", "ai.streamText.doStream"]

/**
 * Whether a span is one call of a model in a convention: a GenAI inference span, the AI SDK's
 * `doGenerate` or `doStream`, an OpenInference `LLM` span.
 */
export const isModelCall = (span: Span, convention: Convention): boolean => {
  switch (convention) {
    case "gen-ai":
      return inferenceOperations.includes(attributeText(span.attributes.get("gen_ai.operation.name")) ?? "")
    case "ai-sdk":
      return aiSdkModelCalls.includes(attributeText(span.attributes.get("ai.operationId")) ?? "")
    case "openinference":
      return attributeText(span.attributes.get("openinference.span.kind"))?.toUpperCase() === "LLM"
  }
}

/** The attributes each convention writes a span's counts in, the current name first. */
const countKeys: {
  readonly [C in Convention]: { readonly input: ReadonlyArray<string>; readonly output: ReadonlyArray<string> }
} = {
  "gen-ai": {
    input: ["gen_ai.usage.input_tokens", "gen_ai.usage.prompt_tokens"],
    output: ["gen_ai.usage.output_tokens", "gen_ai.usage.completion_tokens"]
  },
  "ai-sdk": {
    input: ["ai.usage.inputTokens", "ai.usage.promptTokens"],
    output: ["ai.usage.outputTokens", "ai.usage.completionTokens"]
  },
  openinference: { input: ["llm.token_count.prompt"], output: ["llm.token_count.completion"] }
}

/**
 * A token count: a whole number, zero or more, whether it came as an integer, a double (`12.0`) or
 * text (`"12"`); anything else — a fraction, a negative, a count too large to hold exactly — is none.
 */
export const tokenCount = (value: AttributeValue | undefined): number | undefined => {
  const n = typeof value === "number"
    ? value
    : typeof value === "string" && /^\s*\d+(?:\.0*)?\s*$/.test(value)
    ? Number(value)
    : undefined
  return n !== undefined && Number.isSafeInteger(n) && n >= 0 ? n : undefined
}

/** A span's counts, each the first readable one of its names; undefined when it has neither. */
const countsOf = (
  span: Span,
  convention: Convention
): { readonly input?: number | undefined; readonly output?: number | undefined } | undefined => {
  const first = (keys: ReadonlyArray<string>) => {
    for (const key of keys) {
      const count = tokenCount(span.attributes.get(key))
      if (count !== undefined) return count
    }
    return undefined
  }
  const input = first(countKeys[convention].input)
  const output = first(countKeys[convention].output)
  if (input === undefined && output === undefined) return undefined
  return { input, output }
}

/**
 * The tokens a turn used: its model calls' counts summed (`below` holds the spans below `root`, parent
 * first), else the root's own; undefined when no span of the turn carries a count. A side that no span
 * counts is 0.
 */
export const usageOf = (
  root: Span,
  convention: Convention,
  below: ReadonlyArray<Span>,
  trace: Trace
): Usage | undefined => {
  const counted: Array<readonly [number | undefined, number | undefined]> = []
  // The spans that hold a counted model call: a model call among them is not counted again. Walked from
  // the end, as `below` is parent first, a span's inner calls are met before it.
  const holding = new Set<string>()
  for (let i = below.length - 1; i >= 0; i--) {
    const span = below[i]!
    if (holding.has(span.spanId) || !isModelCall(span, convention)) continue
    const counts = countsOf(span, convention)
    if (counts === undefined) continue
    counted.push([counts.input, counts.output])
    for (
      let at = span.parentSpanId;
      at !== undefined && at !== root.spanId && !holding.has(at);
      at = trace.byId.get(at)?.parentSpanId
    ) {
      holding.add(at)
    }
  }
  if (counted.length > 0) return summedUsage(counted)
  const own = countsOf(root, convention)
  return own === undefined ? undefined : summedUsage([[own.input, own.output]])
}
