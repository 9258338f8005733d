/**
 * Drafting a golden-set case from a turn a user rated thumbs-down. The facts the turn shows become
 * expectations — those it broke (an unsurfaced citation, a tool that only errored, a gated tool run
 * without an approval stop, an `error` outcome) and those it held (tools that ran, surfaced citations,
 * gated tools left alone) — each graded over the rated turn itself and marked `drafted` with the
 * verdict, so a person reviewing the draft sees why each one is there. Pure: values in, a case out.
 */
import { gradeExpectation } from "../Graders/index.js"
import {
  type Case,
  type ConversationCase,
  type Expectation,
  isConversation,
  type QuestionCase,
  type Step,
  type StepAction
} from "../Schema/Case.js"
import type { Surface } from "../Schema/Surface.js"
import { type Proposal, surfaced, type Turn, type TurnTrace } from "../Schema/Trace.js"

/** A rated turn as the app holds it: its question, answer and trace, and the rating's comment. */
export interface RatedTurn {
  readonly question: string
  readonly answer: string
  readonly trace: TurnTrace
  readonly comment?: string | null | undefined
}

/** A drafted expectation and the verdict of the rated turn on it. */
export interface DraftedFact {
  readonly expectation: Expectation
  readonly passed: boolean
  readonly fact?: string
}

/** A drafted case, with the facts the rated turn broke (the ones a fixed assistant must turn around). */
export interface Draft {
  readonly case: QuestionCase
  readonly violated: ReadonlyArray<DraftedFact>
}

/** The tag every drafted case carries, so `--filter thumbs-down` selects the cases grown from ratings. */
const draftTag = "thumbs-down"

const maxIdShown = 80

const shownId = (turnId: string): string => turnId.length > maxIdShown ? `${turnId.slice(0, maxIdShown)}…` : turnId

const distinct = <A>(values: ReadonlyArray<A>): ReadonlyArray<A> => [...new Set(values)]

/**
 * The expectations a turn's facts suggest, ungraded, in the order a case lists them: citations, then
 * tools, then the approval stop and the gated tools, then the outcome.
 */
export const candidateExpectations = (trace: TurnTrace, surface: Surface): ReadonlyArray<Expectation> => {
  const gated = surface.gatedTools ?? []
  const ran = distinct(trace.toolExecutions.map((e) => e.tool))
  const citing: ReadonlyArray<Expectation> = trace.citations.length === 0
    ? trace.outcome === "refused" ? [{ kind: "no-citations" }] : []
    : [
      { kind: "cites-only-surfaced" },
      ...distinct(trace.citations.filter(surfaced).map((c) => c.path))
        .filter((path) => path.trim() !== "")
        .map((path): Expectation => ({ kind: "cites", path }))
    ]
  const calling = ran
    .filter((tool) => surface.tools.includes(tool) && !gated.includes(tool) && tool.trim() !== "")
    .map((tool): Expectation => ({ kind: "calls-tool", tool }))
  // A turn that ran a gated tool, left a proposal or waited for approval was acting on a change: it
  // must stop for approval. Gated tools it did not touch stay untouched either way.
  const acting = gated.length > 0 &&
    (ran.some((tool) => gated.includes(tool)) || trace.proposal !== null || trace.outcome === "awaiting-approval")
  const approval: ReadonlyArray<Expectation> = [
    ...(acting ? [{ kind: "stops-at-approval" } as const] : []),
    ...gated.filter((tool) => !ran.includes(tool)).map((tool): Expectation => ({ kind: "never-calls", tool }))
  ]
  const outcome: ReadonlyArray<Expectation> = trace.outcome === "error" && !acting
    ? [{ kind: "outcome", is: "answered" }]
    : []
  const all = [...citing, ...calling, ...approval, ...outcome]
  // A turn that shows none of these facts still pins its outcome, so the draft is a case.
  return all.length > 0 ? all : [{ kind: "outcome", is: trace.outcome }]
}

/**
 * Grades the candidate expectations over the rated turn and marks each: violated ones first. A turn
 * that carried out an approval (`approved`, the proposal it approved) is also held to `runs-as-proposed`.
 */
export const draftExpectations = (turn: Turn, surface: Surface, approved?: Proposal): ReadonlyArray<DraftedFact> => {
  const turnId = shownId(turn.trace.turnId)
  const candidates: ReadonlyArray<Expectation> = [
    ...(approved === undefined ? [] : [{ kind: "runs-as-proposed" } as const]),
    ...candidateExpectations(turn.trace, surface)
  ]
  const graded = candidates.map((expectation): DraftedFact => {
    const verdict = gradeExpectation(expectation, turn, surface, approved === undefined ? undefined : { approved })
    const drafted = verdict.passed
      ? `held by turn ${turnId}`
      : `violated by turn ${turnId}${verdict.fact === undefined ? "" : `: ${verdict.fact}`}`
    const marked = { ...expectation, drafted }
    return verdict.fact === undefined
      ? { expectation: marked, passed: verdict.passed }
      : { expectation: marked, passed: verdict.passed, fact: verdict.fact }
  })
  return [...graded.filter((f) => !f.passed), ...graded.filter((f) => f.passed)]
}

/** Lower-case ASCII words joined by `-`: `What's the refund window?` → `whats-the-refund-window`. */
const slug = (text: string, maxLength: number): string => {
  const words = text.normalize("NFKD").replace(/[\u0300-\u036f]/g, "").replace(/['\u2019]/g, "").toLowerCase().split(
    /[^a-z0-9]+/
  ).filter((w) => w !== "")
  let out = ""
  for (const word of words) {
    const next = out === "" ? word : `${out}-${word}`
    if (next.length > maxLength) break
    out = next
  }
  return out === "" && words[0] !== undefined ? words[0].slice(0, maxLength) : out
}

/** A case id from the surface and the question, not among `taken`: `docs.what-was-the-old-refund-policy`. */
export const caseIdFor = (surface: string, question: string, taken: ReadonlySet<string>): string => {
  const base = `${slug(surface, 40) || "case"}.${slug(question, 56) || "rated-turn"}`
  if (!taken.has(base)) return base
  for (let n = 2;; n++) {
    const candidate = `${base}-${n}`
    if (!taken.has(candidate)) return candidate
  }
}

const maxGuards = 300

/** What the case guards: the rating's comment, or — without one — the facts the turn broke. */
export const guardsFor = (
  comment: string | null | undefined,
  turnId: string,
  violated: ReadonlyArray<DraftedFact>
): string => {
  const said = (comment ?? "").replace(/\s+/g, " ").trim()
  if (said !== "") return said.length > maxGuards ? `${said.slice(0, maxGuards)}…` : said
  const facts = violated.flatMap((f) => f.fact === undefined ? [] : [f.fact])
  const base = `The answer rated down on turn ${shownId(turnId)}`
  return facts.length === 0 ? base : `${base}: ${facts.join("; ")}`
}

/** A turn of the conversation a rated turn is in, before it: what the person said (or decided) and the turn. */
export interface EarlierTurn {
  readonly said: StepAction
  readonly answer: string
  readonly trace: TurnTrace
}

/** The draft of a conversation case, and its steps' turns in order, to record. */
export interface ConversationDraft {
  readonly case: ConversationCase
  readonly violated: ReadonlyArray<DraftedFact>
  readonly turns: ReadonlyArray<EarlierTurn>
}

/**
 * Drafts a conversation case from a rated turn that was not its conversation's first: the conversation's
 * earlier steps, each held to the facts its own turn held (its outcome, when it held none of the others),
 * then the rated step with every drafted fact, violated ones first. An approve step is also held to
 * `runs-as-proposed`, against the proposal the turn before it left.
 */
export const draftConversation = (
  earlier: ReadonlyArray<EarlierTurn>,
  rated: EarlierTurn & { readonly comment?: string | null | undefined },
  surfaceName: string,
  surface: Surface,
  options: { readonly taken: ReadonlySet<string>; readonly id?: string | undefined }
): ConversationDraft => {
  const turns = [...earlier, rated]
  const approvedAt = (i: number): Proposal | undefined =>
    "approve" in turns[i]!.said ? turns[i - 1]?.trace.proposal ?? undefined : undefined
  const stepOf = (turn: EarlierTurn, expect: ReadonlyArray<Expectation>): Step => ({ ...turn.said, expect })
  const steps = earlier.map((turn, i) => {
    const held = draftExpectations(turn, surface, approvedAt(i)).filter((f) => f.passed).map((f) => f.expectation)
    const outcome: Expectation = {
      kind: "outcome",
      is: turn.trace.outcome,
      drafted: `held by turn ${shownId(turn.trace.turnId)}`
    }
    return stepOf(turn, held.length > 0 ? held : [outcome])
  })
  const facts = draftExpectations(rated, surface, approvedAt(earlier.length))
  const violated = facts.filter((f) => !f.passed)
  const first = turns.find((t) => "ask" in t.said)?.said
  const question = first !== undefined && "ask" in first ? first.ask : "conversation"
  return {
    case: {
      id: options.id ?? caseIdFor(surfaceName, question, options.taken),
      surface: surfaceName,
      guards: guardsFor(rated.comment, rated.trace.turnId, violated),
      turns: [...steps, stepOf(rated, facts.map((f) => f.expectation))],
      tags: [draftTag]
    },
    violated,
    turns
  }
}

/** Drafts a case of `surfaceName` from a rated turn; `id` overrides the id made from the question. */
export const draftCase = (
  rated: RatedTurn,
  surfaceName: string,
  surface: Surface,
  options: { readonly taken: ReadonlySet<string>; readonly id?: string | undefined }
): Draft => {
  const facts = draftExpectations({ answer: rated.answer, trace: rated.trace }, surface)
  const violated = facts.filter((f) => !f.passed)
  return {
    case: {
      id: options.id ?? caseIdFor(surfaceName, rated.question, options.taken),
      surface: surfaceName,
      question: rated.question,
      guards: guardsFor(rated.comment, rated.trace.turnId, violated),
      expect: facts.map((f) => f.expectation),
      tags: [draftTag]
    },
    violated
  }
}

/** A case as JSON in the golden set's layout: one key per line, each expectation on a line of its own. */
export const renderCase = (testCase: Case, indent = ""): string => {
  const inner = `${indent}  `
  const line = (value: object): string =>
    `{${Object.entries(value).map(([k, v]) => `${JSON.stringify(k)}: ${JSON.stringify(v)}`).join(", ")}}`
  const expectations = (expect: ReadonlyArray<Expectation>, at: string): string =>
    `[\n${expect.map((e) => `${at}  ${line(e)}`).join(",\n")}\n${at}]`
  const step = (s: Step): string => {
    const { expect, ...did } = s
    const [key, value] = Object.entries(did)[0]!
    return `${inner}  {${JSON.stringify(key)}: ${JSON.stringify(value)}, "expect": ${
      expectations(expect, `${inner}  `)
    }}`
  }
  const body = isConversation(testCase)
    ? [
      `${inner}"guards": ${JSON.stringify(testCase.guards)}`,
      `${inner}"turns": [\n${testCase.turns.map(step).join(",\n")}\n${inner}]`
    ]
    : [
      `${inner}"question": ${JSON.stringify(testCase.question)}`,
      `${inner}"guards": ${JSON.stringify(testCase.guards)}`,
      `${inner}"expect": ${expectations(testCase.expect, inner)}`
    ]
  const fields = [
    `${inner}"id": ${JSON.stringify(testCase.id)}`,
    `${inner}"surface": ${JSON.stringify(testCase.surface)}`,
    ...body,
    ...(testCase.tags === undefined
      ? []
      : [`${inner}"tags": [${testCase.tags.map((t) => JSON.stringify(t)).join(", ")}]`])
  ]
  return `${indent}{\n${fields.join(",\n")}\n${indent}}`
}

/**
 * The text of a cases file with `testCase` added at the end of its `cases`, everything else left byte
 * for byte as it was, the new case laid out like the first one; `undefined` when the text holds no
 * top-level `cases` list. The caller checks the result decodes to the old cases plus the new one.
 */
export const appendCaseText = (text: string, testCase: Case): string | undefined => {
  let depth = 0
  let inString = false
  let escaped = false
  let stringStart = -1
  let lastString: string | undefined
  let key: string | undefined
  let open = -1
  let close = -1
  for (let i = text.charCodeAt(0) === 0xfeff ? 1 : 0; i < text.length && close < 0; i++) {
    const c = text[i]
    if (inString) {
      if (escaped) escaped = false
      else if (c === "\\") escaped = true
      else if (c === "\"") {
        inString = false
        if (depth === 1) lastString = JSON.parse(text.slice(stringStart, i + 1)) as string
      }
      continue
    }
    if (c === "\"") {
      inString = true
      stringStart = i
    } else if (c === ":" && depth === 1) {
      key = lastString
    } else if (c === "," && depth === 1) {
      key = undefined
    } else if (c === "{" || c === "[") {
      if (depth === 1 && c === "[" && key === "cases" && open < 0) open = i
      depth++
    } else if (c === "}" || c === "]") {
      depth--
      if (depth === 1 && c === "]" && open >= 0) close = i
    }
  }
  if (open < 0 || close < 0) return undefined
  let last = close - 1
  while (last > open && /\s/.test(text[last]!)) last--
  let first = open + 1
  while (first < close && /\s/.test(text[first]!)) first++
  const between = text.slice(open + 1, first)
  const newline = between.lastIndexOf("\n")
  const comma = last === open ? "" : ","
  const added = newline < 0
    ? `${comma}${comma === "" ? "" : " "}${JSON.stringify(testCase)}`
    : `${comma}\n${renderCase(testCase, between.slice(newline + 1))}`
  return `${text.slice(0, last + 1)}${added}${text.slice(last + 1)}`
}
