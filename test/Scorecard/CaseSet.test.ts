import { describe, expect, it } from "@effect/vitest"
import type { QuestionCase as Case } from "../../src/Schema/Case.js"
import { caseSetFingerprint } from "../../src/Scorecard/CaseSet.js"

const a: Case = {
  id: "a",
  surface: "docs",
  question: "Where is payments-api?",
  guards: "skipping the catalog",
  expect: [{ kind: "calls-tool", tool: "catalog" }, { kind: "answer-includes", text: "x", ignoreCase: false }],
  tags: ["catalog"]
}
const b: Case = {
  id: "b",
  surface: "docs",
  question: "Thanks!",
  guards: "tools on small talk",
  expect: [{ kind: "no-citations" }]
}

describe("caseSetFingerprint", () => {
  it("is a sha256 that ignores file order, tags and guards", () => {
    const fingerprint = caseSetFingerprint([a, b])
    expect(fingerprint).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(caseSetFingerprint([b, a])).toBe(fingerprint)
    expect(caseSetFingerprint([{ ...a, tags: [], guards: "reworded" }, b])).toBe(fingerprint)
  })

  it("ignores the key order of an expectation", () => {
    const reordered: Case = {
      ...a,
      expect: [{ tool: "catalog", kind: "calls-tool" } as Case["expect"][number], a.expect[1]!]
    }
    expect(caseSetFingerprint([reordered, b])).toBe(caseSetFingerprint([a, b]))
  })

  it("ignores drafted marks, so accepting a drafted case keeps the set", () => {
    const marked: Case = {
      ...a,
      expect: [
        { kind: "calls-tool", tool: "catalog", drafted: "held by turn t_1" },
        { kind: "answer-includes", text: "x", ignoreCase: false, drafted: "violated by turn t_1: answer lacks: \"x\"" }
      ]
    }
    expect(caseSetFingerprint([marked, b])).toBe(caseSetFingerprint([a, b]))
    expect(caseSetFingerprint([{ ...marked, expect: [marked.expect[0]!] }, b])).not.toBe(caseSetFingerprint([a, b]))
  })

  it("changes with a case added or removed, or an id, surface, question or expectation edited", () => {
    const fingerprint = caseSetFingerprint([a, b])
    const variants: ReadonlyArray<ReadonlyArray<Case>> = [
      [a],
      [a, b, { ...b, id: "c" }],
      [{ ...a, id: "a2" }, b],
      [{ ...a, surface: "ops-agent" }, b],
      [{ ...a, question: "Where is search-api?" }, b],
      [{ ...a, expect: [{ kind: "calls-tool", tool: "search_docs" }] }, b],
      [{ ...a, expect: [a.expect[0]!, { kind: "answer-includes", text: "x", ignoreCase: true }] }, b]
    ]
    for (const variant of variants) expect(caseSetFingerprint(variant)).not.toBe(fingerprint)
  })
})
