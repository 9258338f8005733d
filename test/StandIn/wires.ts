/**
 * What the wire tests share: the turn a client should read back from a stand-in turn over any
 * protocol (what every wire carries, with the losses each module's header names), and a request
 * helper signed in by cookie, bearer token or API key.
 */
import { Either, Redacted } from "effect"
import { readFileSync } from "node:fs"
import { identifiersIn, matchCitations, type StatedCitation } from "../../src/Evidence/Derive.js"
import { defaultEvidence } from "../../src/Evidence/Rules.js"
import { eventsOf } from "../../src/Runner/EventStream.js"
import type { Citation } from "../../src/Schema/Trace.js"
import type { AssistantTurn } from "../../src/StandIn/Assistant.js"
import { flaws, respondWithFlaws } from "../../src/StandIn/Flaws.js"
import type { StandIn } from "../../src/StandIn/Server.js"
import { fetchAt } from "../support/live.js"

/** The committed golden set's questions, by surface: each case's, and each ask of a conversation's, asked alone. */
export const goldenQuestions: ReadonlyArray<
  { readonly id: string; readonly surface: string; readonly question: string }
> = (JSON.parse(readFileSync("cases/golden-cases.json", "utf8")) as {
  cases: ReadonlyArray<
    { id: string; surface: string; question?: string; turns?: ReadonlyArray<{ readonly ask?: string }> }
  >
}).cases.flatMap(({ id, question, surface, turns }) =>
  question !== undefined
    ? [{ id, surface, question }]
    : (turns ?? []).flatMap((t, i) =>
      t.ask === undefined ? [] : [{ id: `${id} turn ${i + 1}`, surface, question: t.ask }]
    )
)

/** A question whose turn's catalog call errors (the catalog has no such service); none in the golden set does. */
export const toolErrorQuestion = { surface: "docs", question: "Who owns ledger-api?" } as const

/**
 * A turn that ended in an error after its catalog call: the stand-in's assistant never fails, so the
 * wires' mapping of a failed turn is held on this one.
 */
export const failedTurn: AssistantTurn = {
  ...respondWithFlaws("docs", "Which repo is search-api in?"),
  outcome: "error",
  answer: "the model provider is overloaded"
}

/** Every question the wire tests ask: the golden set's, one whose tool errors, and each flaw's example. */
export const wireQuestions: ReadonlyArray<
  { readonly id: string; readonly surface: string; readonly question: string }
> = [
  ...goldenQuestions,
  { id: "tool error", ...toolErrorQuestion },
  ...flaws.map((f) => ({ id: f.name, surface: f.surface, question: f.example }))
]

/** A golden question whose turn stops at a proposal waiting for approval. */
export const gatedQuestion = goldenQuestions.find((q) => q.id === "agent.rollback-payments-stops-at-approval")!

/** A turn as a client reads it from a wire: the parts of a `TurnTrace` a live protocol can carry. */
export interface ReadTurn {
  readonly answer: string
  readonly outcome: string
  readonly executions: ReadonlyArray<
    { readonly tool: string; readonly input: unknown; readonly output?: unknown; readonly error?: string }
  >
  readonly citations: ReadonlyArray<Citation>
  readonly proposal: { readonly id: string; readonly actions: ReadonlyArray<unknown> } | null
}

/**
 * A turn as a client reads it, given what the wire carried: the answer, the outcome it can tell
 * (answered, awaiting-approval or error), the executions, and citations matched against what the
 * executions' outputs (and `sources`) surfaced, by the default evidence rules.
 */
export const readTurn = (parts: {
  readonly answer: string
  readonly outcome: string
  readonly executions: ReadTurn["executions"]
  readonly proposal: ReadTurn["proposal"]
  readonly sources?: ReadonlyArray<string>
  readonly stated?: ReadonlyArray<StatedCitation>
}): ReadTurn => {
  const surfaced = identifiersIn(parts.executions.map((e) => e.output ?? null), defaultEvidence.identifierFields)
  for (const source of parts.sources ?? []) surfaced.add(source)
  return {
    answer: parts.answer,
    outcome: parts.outcome,
    executions: parts.executions,
    citations: matchCitations(parts.answer, surfaced, defaultEvidence, parts.stated ?? []),
    proposal: parts.proposal
  }
}

/**
 * The turn a client should read back from the stand-in's turn. What no live wire carries: an outcome
 * beyond answered, awaiting-approval and error (refused, handed-off read as answered); a quote match
 * (a surfaced citation reads as a path match); a proposal that is not pending. `quotes` keeps the
 * citations' quotes, for a wire that states them (the AI SDK's `text-end`).
 */
export const expectedRead = (turn: AssistantTurn, options: { readonly quotes?: boolean } = {}): ReadTurn => ({
  answer: turn.outcome === "error" ? "" : turn.answer,
  outcome: ["awaiting-approval", "error"].includes(turn.outcome) ? turn.outcome : "answered",
  executions: turn.toolExecutions.map((e) =>
    typeof e.error === "string" && e.error !== ""
      ? { tool: e.tool, input: e.input, error: e.error }
      : { tool: e.tool, input: e.input, output: e.output }
  ),
  citations: turn.citations.map(({ match, path, quote }) => ({
    path,
    ...(options.quotes === true && quote !== undefined ? { quote } : {}),
    match: match === "quote" ? "path" : match
  })),
  proposal: turn.proposal !== null && turn.outcome === "awaiting-approval"
    ? { id: turn.proposal.id, actions: turn.proposal.actions ?? [] }
    : null
})

/** How a request signs in. */
export type SignIn = "cookie" | "bearer" | "api-key" | "none" | { readonly header: string; readonly value: string }

/** The headers that sign a request in as the stand-in's first account. */
export const signIn = (s: StandIn, how: SignIn = "cookie"): Record<string, string> =>
  how === "cookie"
    ? { cookie: Redacted.value(s.cookie()) }
    : how === "bearer"
    ? { authorization: `Bearer ${Redacted.value(s.token())}` }
    : how === "api-key"
    ? { "x-api-key": Redacted.value(s.token()) }
    : how === "none"
    ? {}
    : { [how.header]: how.value }

/** Posts JSON to the stand-in, signed in. */
export const post = (s: StandIn, path: string, body: unknown, how: SignIn = "cookie", signal?: AbortSignal) =>
  fetchAt(s)(`${s.url}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "text/event-stream", ...signIn(s, how) },
    body: JSON.stringify(body),
    ...(signal === undefined ? {} : { signal })
  })

/** The data of each event of an event stream's text, in order, read as a live run reads it. */
export const sseData = (text: string): ReadonlyArray<string> => Either.getOrThrow(eventsOf(text)).map((e) => e.data)

/** A RunAgentInput as an AG-UI client posts it. */
export const runInput = (threadId: string, runId: string, question: string) => ({
  threadId,
  runId,
  messages: [{ id: `${runId}-user`, role: "user", content: question }],
  tools: [],
  context: [],
  state: {},
  forwardedProps: {}
})
