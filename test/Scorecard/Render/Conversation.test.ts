import { describe, expect, it } from "@effect/vitest"
import type { CaseResult, RunResult } from "../../../src/Schema/Result.js"
import { failingFacts, showFact } from "../../../src/Scorecard/Attempts.js"
import { renderGitHubAnnotations } from "../../../src/Scorecard/Render/GitHub.js"
import { renderJUnit } from "../../../src/Scorecard/Render/JUnit.js"
import { renderMarkdown } from "../../../src/Scorecard/Render/Markdown.js"
import { renderPretty } from "../../../src/Scorecard/Render/Pretty.js"
import { hostile } from "./results.js"

const fact = "ran with another input: apply_change {\"replicas\":12} (proposed {\"replicas\":10})"

/** A conversation case whose approval ran as it should not, and one whose second step could not be taken. */
const ran: CaseResult = {
  id: "ops.scale-approved",
  surface: "ops-agent",
  passed: false,
  turnId: "turn_1",
  expectations: [
    { kind: "stops-at-approval", passed: true, step: 1 },
    { kind: "runs-as-proposed", passed: false, fact, step: 2 }
  ],
  turns: [
    { step: 1, kind: "ask", message: "Scale search-api to 10 replicas.", turnId: "turn_1", expectations: [] },
    { step: 2, kind: "approve", turnId: "turn_2", expectations: [] }
  ]
}
const stopped: CaseResult = {
  id: "ops.nothing-to-approve",
  surface: "ops-agent",
  passed: false,
  turnId: "turn_3",
  error: "turn 2 (deny): nothing to deny: turn 1 answered",
  expectations: [{ kind: "outcome", passed: false, fact: `outcome: ${hostile}`, step: 1 }],
  turns: [
    { step: 1, kind: "ask", message: "Who owns it?", turnId: "turn_3", expectations: [] },
    { step: 2, kind: "deny", message: "No.", expectations: [], error: "nothing to deny: turn 1 answered" },
    { step: 3, kind: "ask", message: "Thanks.", expectations: [], skipped: "turn 2 (deny) could not be taken" }
  ]
}
const run: RunResult = {
  version: 2,
  passRate: 0,
  floor: null,
  passed: null,
  total: 2,
  passedCount: 0,
  caseSet: `sha256:${"cd".repeat(32)}`,
  cases: [ran, stopped]
}

describe("a conversation case in the reports", () => {
  it("names each failing fact by its step, and a step that could not be taken by its own", () => {
    expect(failingFacts(ran).map(showFact)).toEqual([`turn 2 (approve) · runs-as-proposed: ${fact}`])
    expect(failingFacts(stopped).map(showFact)).toEqual([
      `turn 1 (ask) · outcome: outcome: ${hostile}`,
      "turn 2 (deny): nothing to deny: turn 1 answered"
    ])
  })

  it("pretty, GitHub and Markdown name the step; JUnit keeps one testcase per case", () => {
    const pretty = renderPretty(run, { color: false })
    expect(pretty).toContain(`✗ ops-agent  ops.scale-approved\n    turn 2 (approve) · runs-as-proposed  ${fact}`)
    expect(pretty).toContain("    turn 2 (deny)  nothing to deny: turn 1 answered")
    const annotations = renderGitHubAnnotations(run, { casesFile: "cases.json", caseLines: new Map() })
    expect(annotations).toContain(`turn 2 (approve) · runs-as-proposed: ${fact}`)
    // The assistant's text never starts a command of its own.
    expect(
      annotations.split("\n").filter((line) => line.startsWith("::")).every((line) =>
        /^::(error|warning|notice|group|endgroup)/.test(line)
      )
    )
      .toBe(true)
    expect(renderMarkdown(run, {})).toContain("**turn 2 \\(approve\\) · runs\\-as\\-proposed**")
    const junit = renderJUnit(run)
    expect(junit.match(/<testcase /g)).toHaveLength(2)
    expect(junit).toContain("turn 2 (approve) · runs-as-proposed: ran with another input")
  })
})
