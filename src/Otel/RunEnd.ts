/**
 * How an agent run ended, where the AI SDK's spans record it. An aborted stream leaves no event or
 * status of its own: a run that finished records its finish reason on its root span
 * (`gen_ai.response.finish_reasons`, `ai.response.finishReason`), and a stream aborted mid-answer ends
 * its spans without one (the AI SDK 7) or with `other`, a finish reason none of its model calls had
 * (the AI SDK 6).
 */
import { attributeText } from "./Attributes.js"
import type { Convention } from "./Conventions.js"
import type { Span } from "./Otlp.js"

/** How a run ended, as its spans record it. */
export interface RunEnd {
  /** False when the root span records no finish: the run ended before it finished, as an aborted stream does. */
  readonly finished: boolean
}

const text = (span: Span, key: string): string | undefined => attributeText(span.attributes.get(key))

/** The spans of a run that are model calls: GenAI inference spans, the AI SDK's `doGenerate` and `doStream`. */
const modelCallsOf = (below: ReadonlyArray<Span>, convention: Convention): ReadonlyArray<Span> =>
  below.filter((s) =>
    convention === "gen-ai"
      ? ["chat", "text_completion", "generate_content"].includes(text(s, "gen_ai.operation.name") ?? "")
      : ["ai.generateText.doGenerate", "ai.streamText.doStream"].includes(text(s, "ai.operationId") ?? "")
  )

/** The finish reasons a span records. */
const reasonsOf = (span: Span, convention: "gen-ai" | "ai-sdk"): ReadonlyArray<string> => {
  const value = span.attributes.get(convention === "gen-ai" ? "gen_ai.response.finish_reasons" : "ai.response.finishReason")
  return typeof value === "string" ? [value] : Array.isArray(value) ? value.filter((v): v is string => typeof v === "string") : []
}

/**
 * Whether the run finished: its root records a finish reason or its answer. The AI SDK 6 ends an
 * aborted stream's root with `other` for want of the stream's finish; a run that really finished for
 * another reason has a model call that says `other` too.
 */
const finishedRun = (root: Span, convention: "gen-ai" | "ai-sdk", modelCalls: ReadonlyArray<Span>): boolean => {
  const reasons = reasonsOf(root, convention)
  if (reasons.length === 0) return root.attributes.has(convention === "gen-ai" ? "gen_ai.output.messages" : "ai.response.text")
  if (convention === "gen-ai" || reasons[0] !== "other" || modelCalls.length === 0) return true
  return modelCalls.some((s) => reasonsOf(s, convention).includes("other"))
}

/** How a run ended: `root` is its root span, `below` its spans. */
export const runEndOf = (root: Span, convention: Convention, below: ReadonlyArray<Span>): RunEnd =>
  convention === "openinference" ? { finished: true } : { finished: finishedRun(root, convention, modelCallsOf(below, convention)) }
