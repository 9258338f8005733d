/**
 * Linking turns read from traces to the cases of a golden set. A turn belongs to the case whose id it
 * carries (`eval.case_id`, `ai.telemetry.metadata.caseId`); a turn without one belongs to every case of
 * its surface that asks exactly its question. A linked turn is used only when its surface and question
 * are the case's, as with recorded turns; a case with several turns gets the one that started last.
 */
import { Either } from "effect"
import { type Case, openingQuestion } from "../Schema/Case.js"
import type { Problem } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import { type ResolvedOtelRules, resolveOtelRules } from "../Schema/Otel.js"
import type { Catalog } from "../Schema/Surface.js"
import type { Turn } from "../Schema/Trace.js"
import type { ReadTurn } from "./Conventions.js"
import { toTurn, turnIdOf } from "./Turn.js"

/** A turn no case was given, and why. */
export interface Unlinked {
  readonly turn: ReadTurn
  readonly reason: string
}

/** Each case's turn, or why the turn linked to it cannot be used; and the turns left over. */
export interface Links {
  readonly byCase: ReadonlyMap<string, { readonly read: ReadTurn; readonly turn: Either.Either<Turn, string> }>
  readonly unlinked: ReadonlyArray<Unlinked>
}

const clip = (text: string, max = 80): string => inert(text.length > max ? `${text.slice(0, max)}…` : text)

/** Where a turn came from, for messages: `trace T (file F)`. */
const whereFrom = (turn: ReadTurn): string => `trace ${turn.traceId} (${turn.file})`

const agentAttribute: Record<ReadTurn["convention"], string> = {
  "gen-ai": "gen_ai.agent.name",
  "ai-sdk": "ai.telemetry.functionId",
  openinference: "agent.name or the root span's name"
}

/** The catalog surface each agent name is, by the surfaces' `otel.agentNames` (default: their own names). */
const surfacesByAgentName = (catalog: Catalog): ReadonlyMap<string, { name: string; rules: ResolvedOtelRules }> => {
  const byAgent = new Map<string, { name: string; rules: ResolvedOtelRules }>()
  for (const [name, surface] of Object.entries(catalog.surfaces)) {
    const rules = resolveOtelRules(name, surface.otel, surface.evidence)
    for (const agent of rules.agentNames) if (!byAgent.has(agent)) byAgent.set(agent, { name, rules })
  }
  return byAgent
}

/**
 * Links read turns to `cases`. A turn linked to a case whose span tree lacks its answer is a problem
 * naming the trace and the attribute (returned, for the caller to report as bad input).
 */
export const linkTurns = (
  reads: ReadonlyArray<ReadTurn>,
  cases: ReadonlyArray<Case>,
  catalog: Catalog
): Either.Either<Links, ReadonlyArray<Problem & { readonly file: string }>> => {
  const byAgent = surfacesByAgentName(catalog)
  const surfaceOf = (read: ReadTurn) => read.agentName === undefined ? undefined : byAgent.get(read.agentName)
  const byId = new Map(cases.map((c) => [c.id, c] as const))
  const chosen = new Map<string, ReadTurn>()
  const unlinked: Array<Unlinked> = []
  const give = (testCase: Case, read: ReadTurn) => {
    const before = chosen.get(testCase.id)
    if (before === undefined) return void chosen.set(testCase.id, read)
    const [later, earlier] = read.start >= before.start ? [read, before] : [before, read]
    chosen.set(testCase.id, later)
    unlinked.push({ turn: earlier, reason: `case ${testCase.id} is given a later turn (${turnIdOf(later)})` })
  }
  for (const read of reads) {
    if (read.caseId !== undefined) {
      const testCase = byId.get(read.caseId.value)
      if (testCase === undefined) {
        unlinked.push({
          turn: read,
          reason: `${read.caseId.attribute} ${JSON.stringify(clip(read.caseId.value))} is no case of the golden set`
        })
      } else give(testCase, read)
      continue
    }
    if (read.agentName === undefined) {
      unlinked.push({ turn: read, reason: `no case id, and no surface: ${agentAttribute[read.convention]} is missing` })
      continue
    }
    const surface = surfaceOf(read)
    if (surface === undefined) {
      unlinked.push({
        turn: read,
        reason: `agent ${
          JSON.stringify(clip(read.agentName))
        } is no surface of the catalog (a surface's otel.agentNames can name it)`
      })
      continue
    }
    const matching = cases.filter((c) => c.surface === surface.name && openingQuestion(c) === read.question)
    if (matching.length === 0) {
      unlinked.push({
        turn: read,
        reason: `no case of surface ${surface.name} asks ${JSON.stringify(clip(read.question))}`
      })
    }
    for (const testCase of matching) give(testCase, read)
  }
  const problems: Array<Problem & { file: string }> = []
  const byCase = new Map<string, { read: ReadTurn; turn: Either.Either<Turn, string> }>()
  for (const [caseId, read] of chosen) {
    const testCase = byId.get(caseId)!
    const named = surfaceOf(read)
    const surfaceName = named?.name ?? testCase.surface
    if (surfaceName !== testCase.surface) {
      byCase.set(caseId, {
        read,
        turn: Either.left(
          `the turn in ${whereFrom(read)} is of surface ${surfaceName}, the case's is ${testCase.surface}`
        )
      })
      continue
    }
    if (read.question !== openingQuestion(testCase)) {
      byCase.set(caseId, {
        read,
        turn: Either.left(
          `the turn in ${whereFrom(read)} answers another question: ${JSON.stringify(clip(read.question))}`
        )
      })
      continue
    }
    const rules = named?.rules ??
      resolveOtelRules(surfaceName, catalog.surfaces[surfaceName]?.otel, catalog.surfaces[surfaceName]?.evidence)
    const turn = toTurn(read, surfaceName, rules)
    if (Either.isLeft(turn)) {
      problems.push({ file: read.file, path: `trace ${read.traceId}`, message: `span ${read.spanId}: ${turn.left}` })
    } else byCase.set(caseId, { read, turn })
  }
  return problems.length > 0 ? Either.left(problems) : Either.right({ byCase, unlinked })
}
