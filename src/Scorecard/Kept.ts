/**
 * A graded turn as a results file keeps it, clipped so that a huge or hostile turn cannot swamp the
 * file or a page drawn from it: every string of the trace (tool names, errors, paths, quotes, the
 * outcome, the proposal's fields) to 200 characters, as facts are; each tool's input and output kept
 * whole when its JSON fits in 8,000 characters (a retrieval's results, say), else as that JSON
 * clipped (a string ending in `…`); the first 20 tool executions and citations, the rest counted in
 * `omitted`. The answer, what a person reads first, is kept to 4,000 characters. Pure.
 */
import { identifiersIn } from "../Evidence/Derive.js"
import { clippedJson, shownJson } from "../Graders/Json.js"
import type { KeptTurn } from "../Schema/Result.js"
import { clipped, maxListed, shown } from "../Schema/Shown.js"
import { type Citation, errored, type Proposal, surfaced, type ToolExecution, type Turn } from "../Schema/Trace.js"

/** The most characters of an answer a results file keeps. */
export const maxKeptAnswer = 4_000

/** The most characters of JSON a results file keeps of a tool's input or output. */
export const maxKeptValue = 8_000

/** A tool's input or output kept whole when its JSON fits in `maxKeptValue`, else as that JSON clipped. */
const keptValue = (value: unknown): unknown => {
  if (typeof value === "string") return clipped(value, maxKeptValue)
  const json = clippedJson(value, maxKeptValue)
  return json.endsWith("…") ? json : value
}

/** A proposal's action, kept as facts show values: whole when its JSON fits in 200 characters. */
const keptAction = (value: unknown): unknown => {
  if (typeof value === "string") return shown(value)
  const json = shownJson(value)
  return json.endsWith("…") ? json : value
}

const keptExecution = (e: ToolExecution): ToolExecution => ({
  tool: shown(e.tool),
  ...("input" in e ? { input: keptValue(e.input) } : {}),
  ...("output" in e ? { output: keptValue(e.output) } : {}),
  ...(e.error === undefined ? {} : { error: e.error === null ? null : shown(e.error) }),
  ...(e.unresolved === undefined ? {} : { unresolved: e.unresolved }),
  ...(e.durationMs === undefined ? {} : { durationMs: e.durationMs })
})

const keptCitation = (c: Citation): Citation => ({
  path: shown(c.path),
  ...(c.quote === undefined ? {} : { quote: shown(c.quote) }),
  match: c.match
})

const keptProposal = (p: Proposal): Proposal => ({
  id: shown(p.id),
  ...(p.summary === undefined ? {} : { summary: shown(p.summary) }),
  ...(p.status === undefined ? {} : { status: shown(p.status) }),
  ...(p.actions === undefined ? {} : { actions: p.actions.slice(0, maxListed).map(keptAction) })
})

/**
 * Everything a turn surfaced, by the surface's identifier fields: the identifiers in the outputs of
 * the tools that did not error, then the paths its citations matched, each once.
 */
export const surfacedItems = (trace: Turn["trace"], identifierFields: ReadonlyArray<string>): ReadonlyArray<string> => {
  const found = new Set<string>()
  for (const e of trace.toolExecutions) {
    if (!errored(e) && e.output !== undefined) identifiersIn(e.output, identifierFields, found)
  }
  for (const c of trace.citations) if (surfaced(c)) found.add(c.path)
  return [...found]
}

/** A turn as a results file keeps it, with everything it surfaced when that is given. */
export const keptTurn = ({ answer, trace }: Turn, items?: ReadonlyArray<string>): KeptTurn => {
  const executions = trace.toolExecutions.length - maxListed
  const citations = trace.citations.length - maxListed
  const more = (items?.length ?? 0) - maxListed
  return {
    answer: clipped(answer, maxKeptAnswer),
    trace: {
      turnId: shown(trace.turnId),
      surface: shown(trace.surface),
      outcome: shown(trace.outcome),
      citations: trace.citations.slice(0, maxListed).map(keptCitation),
      toolExecutions: trace.toolExecutions.slice(0, maxListed).map(keptExecution),
      proposal: trace.proposal === null ? null : keptProposal(trace.proposal),
      ...(trace.usage === undefined
        ? {}
        : { usage: { inputTokens: trace.usage.inputTokens, outputTokens: trace.usage.outputTokens } })
    },
    ...(items === undefined ? {} : { surfaced: items.slice(0, maxListed).map(shown) }),
    ...(executions > 0 || citations > 0 || more > 0
      ? {
        omitted: {
          ...(executions > 0 ? { toolExecutions: executions } : {}),
          ...(citations > 0 ? { citations } : {}),
          ...(more > 0 ? { surfaced: more } : {})
        }
      }
      : {})
  }
}
