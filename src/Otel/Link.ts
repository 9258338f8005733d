/**
 * Linking turns read from traces to the cases of a golden set. A turn belongs to the case whose id it
 * carries (`eval.case_id`, `ai.telemetry.metadata.caseId`); a turn without one belongs to every case of
 * its surface that asks exactly its question. A linked turn is used only when its surface and question
 * are the case's, as with recorded turns; a case with several turns gets the one that started last.
 *
 * A conversation case takes, in order, the turns of one conversation (the traces' conversation id:
 * `gen_ai.conversation.id`, `session.id`, the AI SDK's `conversationId` telemetry metadata or runtime
 * context): the conversation whose first turn is the case's (and started last, when several are), one
 * turn per step from that first turn on. The AI SDK's run that continues after an approval is the next
 * turn of its conversation.
 */
import { Either } from "effect"
import { type Case, type ConversationCase, isConversation, openingQuestion, stepKind } from "../Schema/Case.js"
import type { Problem } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import { type ResolvedOtelRules, resolveOtelRules } from "../Schema/Otel.js"
import type { Catalog } from "../Schema/Surface.js"
import type { Turn } from "../Schema/Trace.js"
import { plural } from "../Words.js"
import type { ReadTurn } from "./Conventions.js"
import { toTurn, turnIdOf } from "./Turn.js"

/** A turn no case was given, and why. */
export interface Unlinked {
  readonly turn: ReadTurn
  readonly reason: string
}

/** A case's turn, or why the turn linked to it cannot be used; for a conversation case, each step's. */
export interface Linked {
  readonly read: ReadTurn
  readonly turn: Either.Either<Turn, string>
  /** A conversation case's steps in order: each one's turn and the read it came from, or why there is none. */
  readonly steps?: ReadonlyArray<{ readonly read?: ReadTurn; readonly turn: Either.Either<Turn, string> }>
}

/** Each case's turn, or why the turn linked to it cannot be used; and the turns left over. */
export interface Links {
  readonly byCase: ReadonlyMap<string, Linked>
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
  // A conversation case's candidates are all kept: which conversation it takes is chosen once all are known.
  const candidates = new Map<string, Array<ReadTurn>>()
  const give = (testCase: Case, read: ReadTurn) => {
    if (isConversation(testCase)) {
      return void candidates.set(testCase.id, [...(candidates.get(testCase.id) ?? []), read])
    }
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
  const byCase = new Map<string, Linked>()
  /** The turn a read is for a case of this surface, or why not (its surface's rules read it). */
  const turnFor = (read: ReadTurn, testCase: Case): Either.Either<Turn, string> | undefined => {
    const named = surfaceOf(read)
    const surfaceName = named?.name ?? testCase.surface
    if (surfaceName !== testCase.surface) {
      return Either.left(
        `the turn in ${whereFrom(read)} is of surface ${surfaceName}, the case's is ${testCase.surface}`
      )
    }
    const rules = named?.rules ??
      resolveOtelRules(surfaceName, catalog.surfaces[surfaceName]?.otel, catalog.surfaces[surfaceName]?.evidence)
    const turn = toTurn(read, surfaceName, rules)
    if (Either.isLeft(turn)) {
      problems.push({ file: read.file, path: `trace ${read.traceId}`, message: `span ${read.spanId}: ${turn.left}` })
      return undefined
    }
    return turn
  }
  const used = new Set<ReadTurn>()
  for (const [caseId, found] of candidates) {
    const testCase = byId.get(caseId) as ConversationCase
    const linked = conversationOf(testCase, found, reads, unlinked, turnFor)
    if (linked === undefined) continue
    for (const step of linked.steps ?? []) if (step.read !== undefined) used.add(step.read)
    byCase.set(caseId, linked)
  }
  for (const [caseId, read] of chosen) {
    const testCase = byId.get(caseId)!
    const sameSurface = (surfaceOf(read)?.name ?? testCase.surface) === testCase.surface
    if (sameSurface && read.question !== openingQuestion(testCase)) {
      byCase.set(caseId, {
        read,
        turn: Either.left(
          `the turn in ${whereFrom(read)} answers another question: ${JSON.stringify(clip(read.question))}`
        )
      })
      continue
    }
    const turn = turnFor(read, testCase)
    if (turn !== undefined) byCase.set(caseId, { read, turn })
  }
  return problems.length > 0
    ? Either.left(problems)
    : Either.right({ byCase, unlinked: unlinked.filter((u) => !used.has(u.turn)) })
}

/** The attributes a conversation's id is read from, as a reason names them. */
const conversationNames = "gen_ai.conversation.id, session.id or the AI SDK's conversationId metadata"

/**
 * The conversation a conversation case takes: of the conversations its candidate turns are in, the one
 * whose first turn asks the case's opening question and started last; its turns from that first one
 * on, one a step. An ask step's turn must ask its question; an approve or deny step's is the run that
 * went on after the decision, whatever question it records. The turns of the other conversations are
 * left over, as are a conversation's turns past the case's last step.
 */
const conversationOf = (
  testCase: ConversationCase,
  found: ReadonlyArray<ReadTurn>,
  reads: ReadonlyArray<ReadTurn>,
  unlinked: Array<Unlinked>,
  turnFor: (read: ReadTurn, testCase: Case) => Either.Either<Turn, string> | undefined
): Linked | undefined => {
  const byStart = (a: ReadTurn, b: ReadTurn) => a.start < b.start ? -1 : a.start > b.start ? 1 : 0
  /** A read's conversation, from its first turn: every read of its id, or the read alone when it names none. */
  const conversation = (read: ReadTurn): ReadonlyArray<ReadTurn> =>
    read.conversationId === undefined
      ? [read]
      : reads.filter((r) => r.conversationId?.value === read.conversationId!.value).sort(byStart)
  const opening = openingQuestion(testCase)
  const openings = found.filter((read) => conversation(read)[0] === read && read.question === opening).sort(byStart)
  const first = openings.at(-1) ?? [...found].sort(byStart).at(-1)!
  const turns = openings.length === 0 ? [first] : conversation(first)
  for (const read of found) {
    if (!turns.includes(read)) {
      unlinked.push({ turn: read, reason: `case ${testCase.id} is given another conversation (${turnIdOf(first)})` })
    }
  }
  for (const read of turns.slice(testCase.turns.length)) {
    unlinked.push({
      turn: read,
      reason: `case ${testCase.id} has ${plural(testCase.turns.length, "step")}; its conversation has more turns`
    })
  }
  if (first.question !== opening) {
    return {
      read: first,
      turn: Either.left(
        `the turn in ${whereFrom(first)} answers another question: ${JSON.stringify(clip(first.question))}`
      )
    }
  }
  const steps = testCase.turns.map((step, i): NonNullable<Linked["steps"]>[number] => {
    const read = turns[i]
    const named = `turn ${i + 1} (${stepKind(step)})`
    if (read === undefined) {
      return {
        turn: Either.left(
          first.conversationId === undefined
            ? `the turn in ${whereFrom(first)} names no conversation (${conversationNames}): ${named} cannot be found`
            : `conversation ${JSON.stringify(clip(first.conversationId.value))} (${first.conversationId.attribute}) ` +
              `holds no turn for ${named}`
        )
      }
    }
    if ("ask" in step && read.question !== step.ask) {
      return {
        read,
        turn: Either.left(
          `the turn in ${whereFrom(read)} answers another question: ${JSON.stringify(clip(read.question))}`
        )
      }
    }
    const turn = turnFor(read, testCase)
    return turn === undefined ? { read, turn: Either.left("") } : { read, turn }
  })
  return { read: first, turn: steps[0]!.turn, steps }
}
