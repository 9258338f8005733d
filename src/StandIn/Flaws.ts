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
import type { Citation, ToolExecution } from "../Schema/Trace.js"
import { type AssistantTurn, lowerFirst, respond } from "./Assistant.js"

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
export const respondWithFlaws = (surface: string, question: string): AssistantTurn => {
  const turn = respond(surface, question)
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
