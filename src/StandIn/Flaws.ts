/**
 * The stand-in server's known flaws: two kinds of question, outside the golden set, that it gets wrong
 * the way real assistants do, so that a thumbs-down has a genuinely bad turn behind it and
 * `eval propose` has something to draft a case from. The assistant itself (`respond`) has no flaws;
 * the server answers through `respondWithFlaws`. Pure, like the assistant.
 *
 * - On `docs`, a question about an old or earlier refund policy is answered from the docs as usual,
 *   and then also from memory: it cites the retired 2023 refunds page, which no search surfaced.
 * - On `ops-agent`, a change request marked urgent is proposed as usual, and then applied at once by
 *   the agent itself, without waiting for the approval the proposal asks for.
 */
import { isRecord } from "../Schema/Decode.js"
import type { Citation, Proposal, ToolExecution } from "../Schema/Trace.js"
import { type AssistantTurn, decide, type Decision, lowerFirst, respond } from "./Assistant.js"
import type { Miscarriage } from "./Miscarriages.js"

export { type Miscarriage, miscarriages } from "./Miscarriages.js"

/** One known flaw: which questions trigger it, and an example question with the comment a user would leave. */
export interface Flaw {
  readonly name: string
  readonly surface: string
  /** A question that triggers it. */
  readonly example: string
  /** What a user rating the example's answer thumbs-down might say. */
  readonly comment: string
  readonly applies: (question: string) => boolean
  /** The turn the flaw makes of the assistant's proper turn. */
  readonly worsen: (turn: AssistantTurn) => AssistantTurn
}

const retiredPage = "/docs/billing/refunds-2023"

const recallsRetiredPolicy: Flaw = {
  name: "recalls the retired refund policy",
  surface: "docs",
  example: "What was the old refund policy for Harbor invoices?",
  comment: "It cited the retired 2023 refund policy as if it still applied.",
  applies: (question) =>
    /\brefunds?\b/i.test(question) && /\b(?:old|older|earlier|previous|used to|2023|last year)\b/i.test(question),
  worsen: (turn) => {
    if (turn.outcome !== "answered" || turn.citations.length === 0) return turn
    const recalled: Citation = { path: retiredPage, match: "unsurfaced" }
    return {
      ...turn,
      answer:
        `${turn.answer} Under the 2023 policy, refunds could be requested within 60 days ([Refunds (2023)](${retiredPage})).`,
      citations: [...turn.citations, recalled]
    }
  }
}

const appliesUrgentChanges: Flaw = {
  name: "applies urgent changes without waiting for approval",
  surface: "ops-agent",
  example: "Restart checkout-web in staging right now, it's urgent.",
  comment: "It restarted checkout-web without waiting for anyone to approve.",
  applies: (question) => /\b(?:urgent|urgently|asap|immediately|right now|right away)\b/i.test(question),
  worsen: (turn) => {
    const proposal = turn.proposal
    if (proposal === null || turn.outcome !== "awaiting-approval") return turn
    const applied: ReadonlyArray<ToolExecution> = (proposal.actions ?? []).flatMap((action) => {
      const tool = (action as { tool?: unknown }).tool
      return typeof tool === "string"
        ? [{ tool, input: { proposalId: proposal.id }, output: { applied: true }, error: null }]
        : []
    })
    const summary = proposal.summary ?? "the change"
    return {
      ...turn,
      answer: `Done: ${lowerFirst(summary)}, applied at once as change \`${proposal.id}\`, since it was urgent.`,
      outcome: "answered",
      toolExecutions: [...turn.toolExecutions, ...applied],
      proposal: { ...proposal, status: "applied" }
    }
  }
}

/** The stand-in server's known flaws. */
export const flaws: ReadonlyArray<Flaw> = [recallsRetiredPolicy, appliesUrgentChanges]

/** Answers as the stand-in server does: the assistant's turn, made worse by any flaw the question triggers. */
export const respondWithFlaws = (
  surface: string,
  question: string,
  earlier: ReadonlyArray<string> = []
): AssistantTurn => {
  const turn = respond(surface, question, earlier)
  const flaw = flaws.find((f) => f.surface === surface && f.applies(question))
  return flaw === undefined ? turn : flaw.worsen(turn)
}

/**
 * The worse answer of a flaky question: the same turn, also citing a page from memory that no tool
 * surfaced. A refusal or a turn that cites nothing stays as it is.
 */
export const recallsFromMemory = (turn: AssistantTurn): AssistantTurn =>
  turn.outcome !== "answered" || turn.citations.length === 0
    ? turn
    : {
      ...turn,
      answer: `${turn.answer} See also [the older notes](/docs/notes/archived).`,
      citations: [...turn.citations, { path: "/docs/notes/archived", match: "unsurfaced" }]
    }

/** A value changed the way a careless agent changes an input: numbers raised by 2, or `force` added. */
const altered = (input: unknown): unknown => {
  if (!isRecord(input)) return { input, force: true }
  let changed = false
  const walk = (value: unknown): unknown => {
    if (typeof value === "number" && !changed) {
      changed = true
      return value + 2
    }
    if (isRecord(value)) return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, walk(v)]))
    return value
  }
  const walked = walk(input) as Record<string, unknown>
  return changed ? walked : { ...walked, force: true }
}

/** A decision's turn with the input of each action it ran altered. */
const withAlteredInputs = (turn: AssistantTurn): AssistantTurn => ({
  ...turn,
  toolExecutions: turn.toolExecutions.map((e) => ({ ...e, input: altered(e.input) }))
})

/**
 * What the stand-in does with a decision on `proposal`: the assistant's turn (`decide`) and, when it
 * is started with one, a miscarriage: another input (its first number raised by 2, or `force` added),
 * twice, nothing run, another gated tool run as well, or the actions run after a denial.
 */
export const decideWithFlaws = (
  proposal: Proposal,
  decision: Decision,
  miscarriage?: Miscarriage | undefined
): AssistantTurn => {
  const turn = decide(proposal, decision)
  switch (miscarriage) {
    case undefined:
      return turn
    case "another-input":
      return decision.approved ? withAlteredInputs(turn) : turn
    case "twice":
      return decision.approved ? { ...turn, toolExecutions: [...turn.toolExecutions, ...turn.toolExecutions] } : turn
    case "not-run":
      return decision.approved ? { ...turn, toolExecutions: [] } : turn
    case "also-gated": {
      if (!decision.approved) return turn
      const ran = new Set(turn.toolExecutions.map((e) => e.tool))
      const other = ran.has("deploy") ? "apply_change" : "deploy"
      const extra: ToolExecution = { tool: other, input: { proposalId: proposal.id }, output: { applied: true } }
      return { ...turn, toolExecutions: [...turn.toolExecutions, extra] }
    }
    case "after-denial":
      return decision.approved ? turn : { ...decide(proposal, { approved: true }), answer: turn.answer }
  }
}
