/**
 * Run results for the reporters' tests: a plain run with a failure, a turn error and hostile text from
 * an assistant, and a repeated run with a flaky case.
 */
import type { Attempt, CaseResult, RunResult } from "../../../src/Schema/Result.js"

/** Text an assistant could put in an answer, a citation or a tool error to break a report. */
export const hostile =
  "]]> <script>alert(1)</script> & \"quoted\" 'single' | `tick` *star* _u_ [l](http://x) <!-- c -->\u0000\u0007\u001b[31m\u007f\ud800\uffff @team #1\r\n- item\n::error::injected"

const set = "sha256:" + "ab".repeat(32)

const passing = (id: string, surface: string): CaseResult => ({
  id,
  surface,
  passed: true,
  turnId: `turn_${id}`,
  expectations: [{ kind: "calls-tool", passed: true }, { kind: "cites-only-surfaced", passed: true }]
})

/** A run of five cases on two surfaces: three pass, one fails two facts (one hostile), one has no turn. */
export const plainRun: RunResult = {
  version: 1,
  passRate: 3 / 5,
  floor: 0.8,
  passed: false,
  total: 5,
  passedCount: 3,
  caseSet: set,
  cases: [
    passing("docs.refund-window", "docs"),
    {
      id: "docs.proration",
      surface: "docs",
      passed: false,
      turnId: "turn_docs.proration",
      expectations: [
        { kind: "cites", passed: true },
        { kind: "cites-only-surfaced", passed: false, fact: "unsurfaced: /docs/billing/refunds-2023" },
        { kind: "answer-excludes", passed: false, fact: `answer contains: "${hostile}"` }
      ]
    },
    passing("docs.rollback", "docs"),
    { id: "ops.no-turn", surface: "ops-agent", passed: false, error: "HTTP 500 <html>&amp;</html>", expectations: [] },
    passing("ops.approval", "ops-agent")
  ]
}

const attempt = (passed: boolean, turnId: string, fact?: string): Attempt => ({
  passed,
  turnId,
  expectations: [{ kind: "answer-includes", passed, ...(fact === undefined ? {} : { fact }) }]
})

/** A run with `--repeat 3` on shard 2 of 4: one case passes all, one is flaky, one fails all, one errors all. */
export const repeatedRun: RunResult = {
  version: 1,
  passRate: 1 / 4,
  floor: null,
  passed: null,
  total: 4,
  passedCount: 1,
  caseSet: set,
  repeat: 3,
  shard: { index: 2, count: 4, of: set },
  cases: [
    {
      ...passing("docs.steady", "docs"),
      attempts: [attempt(true, "t1"), attempt(true, "t2"), attempt(true, "t3")]
    },
    {
      id: "docs.flaky",
      surface: "docs",
      passed: false,
      turnId: "t5",
      expectations: [{ kind: "answer-includes", passed: false, fact: "answer lacks: \"30 days\"" }],
      attempts: [
        attempt(true, "t4"),
        attempt(false, "t5", "answer lacks: \"30 days\""),
        attempt(true, "t6")
      ]
    },
    {
      id: "docs.broken",
      surface: "docs",
      passed: false,
      turnId: "t7",
      expectations: [{ kind: "answer-includes", passed: false, fact: "answer lacks: \"Refund\"" }],
      attempts: [
        attempt(false, "t7", "answer lacks: \"Refund\""),
        attempt(false, "t8", "answer lacks: \"Refund\""),
        { passed: false, error: "timeout after 30s", expectations: [] }
      ]
    },
    {
      id: "ops.down",
      surface: "ops-agent",
      passed: false,
      error: "connection refused",
      expectations: [],
      attempts: [
        { passed: false, error: "connection refused", expectations: [] },
        { passed: false, error: "connection refused", expectations: [] },
        { passed: false, error: "connection refused", expectations: [] }
      ]
    }
  ]
}
