/** Builders for turns and surfaces in tests: a valid default, overridden where a test cares. */
import type { Surface } from "../../src/Schema/Surface.js"
import type { Citation, ToolExecution, Turn, TurnTrace } from "../../src/Schema/Trace.js"

export const docsSurface: Surface = { endpoint: "/api/ai/docs/ask", tools: ["search_docs", "catalog"] }

export const agentSurface: Surface = {
  endpoint: "/api/ai/agent/ask",
  tools: ["search_docs", "propose_change", "apply_change", "deploy"],
  gatedTools: ["apply_change", "deploy"]
}

export const trace = (overrides: Partial<TurnTrace> = {}): TurnTrace => ({
  turnId: "turn_1",
  surface: "docs",
  outcome: "answered",
  citations: [],
  toolExecutions: [],
  proposal: null,
  ...overrides
})

export const turn = (overrides: Partial<TurnTrace> = {}, answer = "An answer."): Turn => ({
  answer,
  trace: trace(overrides)
})

export const cite = (path: string, match: Citation["match"] = "path"): Citation => ({ path, match })

export const call = (tool: string, error?: string | null): ToolExecution =>
  error === undefined ? { tool, output: { ok: true } } : { tool, error }

/** An execution of `tool` with `input`; it errored when `error` is given. */
export const callWith = (tool: string, input: unknown, error?: string): ToolExecution =>
  error === undefined ? { tool, input, output: { ok: true } } : { tool, input, error }

/** The trajectory kinds, added after the first six: the tests that cover each of them list them once, here. */
export const trajectoryKinds = [
  "calls-tool",
  "calls-in-order",
  "calls-at-most",
  "no-repeated-calls",
  "answer-matches",
  "cites-all",
  "within-budget"
] as const
