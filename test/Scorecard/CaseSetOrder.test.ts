/**
 * The case-set fingerprint as the contract defines it (docs/contract.md, `caseSet`), computed here
 * from that definition: sha256 over each case's id, surface, question and expectations, keys sorted and
 * `drafted` marks left out, the cases in id order (by code unit, so the same on every machine).
 */
import { describe, expect, it } from "@effect/vitest"
import { createHash } from "node:crypto"
import type { QuestionCase as Case } from "../../src/Schema/Case.js"
import { caseSetFingerprint, shortFingerprint } from "../../src/Scorecard/CaseSet.js"

const sortedKeys = (value: unknown): unknown =>
  Array.isArray(value)
    ? value.map(sortedKeys)
    : value !== null && typeof value === "object"
    ? Object.fromEntries(
      Object.keys(value).filter((k) => k !== "drafted").sort()
        .map((k) => [k, sortedKeys((value as Record<string, unknown>)[k])])
    )
    : value

/** The fingerprint the contract describes, for cases already in id order. */
const byContract = (inIdOrder: ReadonlyArray<Case>): string => {
  const parts = inIdOrder.map((c) =>
    sortedKeys({ id: c.id, surface: c.surface, question: c.question, expect: c.expect })
  )
  return `sha256:${createHash("sha256").update(JSON.stringify(parts)).digest("hex")}`
}

const one = (id: string, extra: Partial<Case> = {}): Case => ({
  id,
  surface: "docs",
  question: `What is ${id}?`,
  guards: "a guess",
  expect: [
    { kind: "answer-includes", text: id, ignoreCase: true, drafted: "held by turn t_1" },
    { kind: "no-citations" }
  ],
  ...extra
})

describe("caseSetFingerprint's order", () => {
  // In code-unit order: "-" < "." < "0" < "_" < "b"; a locale's order would put them otherwise.
  const inIdOrder = [one("a-b"), one("a.b"), one("a0"), one("a_b"), one("ab", { tags: ["t"] })]

  it("is the contract's sha256 over the cases in id order", () => {
    expect(caseSetFingerprint(inIdOrder)).toBe(byContract(inIdOrder))
  })

  it("is the same for the cases in any file order", () => {
    const shuffled = [inIdOrder[3]!, inIdOrder[0]!, inIdOrder[4]!, inIdOrder[2]!, inIdOrder[1]!]
    expect(caseSetFingerprint(shuffled)).toBe(byContract(inIdOrder))
    expect(caseSetFingerprint([...inIdOrder].reverse())).toBe(byContract(inIdOrder))
  })

  it("differs from the fingerprint of the same cases hashed in another order", () => {
    expect(caseSetFingerprint(inIdOrder)).not.toBe(byContract([...inIdOrder].reverse()))
  })

  it("is shown by its first 12 hex digits", () => {
    const fingerprint = caseSetFingerprint(inIdOrder)
    expect(shortFingerprint(fingerprint)).toBe(fingerprint.slice("sha256:".length, "sha256:".length + 12))
    expect(shortFingerprint(fingerprint)).toMatch(/^[0-9a-f]{12}$/)
  })
})
