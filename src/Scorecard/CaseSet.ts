/**
 * The fingerprint of a case set: a sha256 over each case's id, surface, question and expectations, in
 * id order. Two runs compare like with like only when their fingerprints agree. An expectation's
 * `drafted` mark is left out, so accepting a drafted case (deleting its marks) does not change the set.
 */
import { createHash } from "node:crypto"
import { canonical } from "../Graders/Json.js"
import { type Case, type Expectation, expectationsOf, isConversation, type Step } from "../Schema/Case.js"

/**
 * An expectation as the fingerprint reads it: a JSON value it holds (`calls-tool`'s `with`) as its
 * canonical text, so that its keys, which the list of keys below does not name, count, and in any order.
 */
const comparable = (expectation: Expectation): Expectation =>
  "with" in expectation ? { ...expectation, with: canonical(expectation.with) } : expectation

/** A conversation's step as the fingerprint reads it: what it does and its expectations. */
const comparableStep = (step: Step) => ({ ...step, expect: step.expect.map(comparable) })

/**
 * `sha256:<hex>` over the cases that ran; order in the file, tags, `guards` and `drafted` marks do not
 * change it. A conversation case counts its steps in order, each with what it does and its expectations.
 */
export const caseSetFingerprint = (cases: ReadonlyArray<Case>): string => {
  const parts = [...cases]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((c) =>
      isConversation(c)
        ? { id: c.id, surface: c.surface, turns: c.turns.map(comparableStep) }
        : { expect: c.expect.map(comparable), id: c.id, question: c.question, surface: c.surface }
    )
  // A list of keys makes JSON.stringify keep only those, in that order, at every level: sorted, it
  // serialises equal content the same way whatever order the keys were written in.
  const keys = new Set(["expect", "id", "question", "surface"])
  for (const c of cases) {
    if (isConversation(c)) { for (const key of ["turns", "ask", "approve", "deny"]) keys.add(key) }
    for (const e of expectationsOf(c)) for (const key of Object.keys(e)) if (key !== "drafted") keys.add(key)
  }
  return `sha256:${createHash("sha256").update(JSON.stringify(parts, [...keys].sort())).digest("hex")}`
}

/** A fingerprint as messages show it: its first 12 hex digits. */
export const shortFingerprint = (fingerprint: string): string => fingerprint.replace(/^sha256:/, "").slice(0, 12)
