/** A `calls-tool` expectation's `with` counts in the case-set fingerprint with all its keys, in any order. */
import { describe, expect, it } from "@effect/vitest"
import type { Case } from "../../src/Schema/Case.js"
import { caseSetFingerprint } from "../../src/Scorecard/CaseSet.js"

const withInput = (input: unknown): Case => ({
  id: "a",
  surface: "docs",
  question: "Who owns payments-api?",
  guards: "a guessed owner",
  expect: [{ kind: "calls-tool", tool: "catalog", with: input }]
})

describe("caseSetFingerprint over calls-tool's with", () => {
  it("ignores the order of with's keys, and sees every one of them", () => {
    const fingerprint = caseSetFingerprint([withInput({ service: "payments-api", fields: ["owner"] })])
    expect(caseSetFingerprint([withInput({ fields: ["owner"], service: "payments-api" })])).toBe(fingerprint)
    expect(caseSetFingerprint([withInput({ service: "payments-api", fields: ["team"] })])).not.toBe(fingerprint)
    expect(caseSetFingerprint([withInput({ service: "payments-api" })])).not.toBe(fingerprint)
    expect(caseSetFingerprint([withInput({ service: "search-api", fields: ["owner"] })])).not.toBe(fingerprint)
  })
})
