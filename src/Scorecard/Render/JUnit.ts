/**
 * The JUnit XML report CI systems read (GitLab, Jenkins, the test-report actions): a testsuite per
 * surface, a testcase per case. A failing case is a `<failure>` naming each failing fact, a case whose
 * turn could not be obtained an `<error>`, and a flaky case under `--repeat` a `<failure>` that says so
 * and lists every attempt. Text from the assistant is shown inert, and characters XML 1.0 cannot hold
 * are written as escapes, so no answer can make the document invalid.
 *
 * The document is valid against both the Apache Ant JUnit schema (the strictest: a bare `<testsuites>`,
 * every suite with its `package`, `id`, `timestamp`, `hostname` and `time`, every case with its
 * `time`, `<system-out>` and `<system-err>` present) and the Jenkins one, so every reader takes it.
 * Times are seconds from each case's `durationMs`; a case from results written before durations were
 * kept has `time="0"`.
 */
import { inert } from "../../Schema/Inert.js"
import type { CaseResult, RunResult } from "../../Schema/Result.js"
import { attemptLines, attemptsOf, failingFacts, flakiness, showFact } from "../Attempts.js"
import { showRate } from "../Scorecard.js"

/** What the JUnit report needs beyond the results. */
export interface JUnitOptions {
  /** Each testsuite's `package`: `turn-eval` when absent (a sharded run adds its shard). */
  readonly name?: string | undefined
  /**
   * The cases file, written as each testcase's `file` attribute (GitLab shows it with a failure). The
   * Ant and Jenkins schemas reject that attribute, so give it only for readers that want it.
   */
  readonly casesFile?: string | undefined
  /** When the run began, each testsuite's `timestamp` (UTC); the Unix epoch when absent, to stay pure. */
  readonly timestamp?: Date | undefined
  /** The machine that ran it, each testsuite's `hostname`; `localhost` when absent. */
  readonly hostname?: string | undefined
}

// Code units XML 1.0 cannot hold: C0 controls other than tab, LF and CR, U+FFFE, U+FFFF and lone surrogates.
const notXml =
  /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

/** Untrusted text made safe for an XML 1.0 document: inert, then what XML cannot hold written as `\uXXXX`. */
export const xmlSafe = (value: string): string =>
  inert(value).replace(notXml, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`)

const escapeText = (value: string): string =>
  xmlSafe(value).replace(/[&<>\r]/g, (c) => c === "&" ? "&amp;" : c === "<" ? "&lt;" : c === ">" ? "&gt;" : "&#13;")

// Attribute values also keep their quotes, tabs and line breaks (a parser would turn raw ones into spaces).
const escapeAttribute = (value: string): string =>
  xmlSafe(value).replace(/[&<>"'\t\n\r]/g, (c) => `&#${c.charCodeAt(0)};`)

const attributes = (pairs: ReadonlyArray<readonly [string, string | number | undefined]>): string =>
  pairs
    .filter((pair): pair is readonly [string, string | number] => pair[1] !== undefined)
    .map(([key, value]) => ` ${key}="${escapeAttribute(String(value))}"`)
    .join("")

const maxMessage = 2_000
const clip = (text: string): string => text.length > maxMessage ? `${text.slice(0, maxMessage)}…` : text

interface Outcome {
  readonly element: "failure" | "error"
  readonly type: string
  readonly message: string
  readonly body: ReadonlyArray<string>
}

const outcomeOf = (c: CaseResult): Outcome | undefined => {
  const { verdict, passedAttempts, attempts } = flakiness(c)
  if (verdict === "passed") return undefined
  const failed = attemptsOf(c).filter((a) => !a.passed)
  const facts = [...new Set(failed.flatMap((a) => failingFacts(a).map(showFact)))]
  if (verdict === "flaky") {
    return {
      element: "failure",
      type: "flaky",
      message: `flaky: ${passedAttempts} of ${attempts} attempts passed; ${facts.join("; ")}`,
      body: attemptLines(c, { turns: true })
    }
  }
  // Only when no attempt got a turn to grade is the case an error rather than a failure.
  const element = failed.every((a) => a.error !== undefined) ? "error" : "failure"
  const type = element === "error" ? "turn-error" : "expectation"
  if (c.attempts === undefined) {
    return {
      element,
      type,
      message: facts.join("; "),
      body: [...facts, ...(c.turnId === undefined ? [] : [`turn: ${c.turnId}`])]
    }
  }
  return {
    element,
    type,
    message: `all ${attempts} attempts failed; ${facts.join("; ")}`,
    body: attemptLines(c, { turns: true })
  }
}

// Seconds with millisecond precision; "0" for a case whose results carry no duration.
const seconds = (ms: number | undefined): string => ms === undefined ? "0" : (ms / 1000).toFixed(3)

const suiteSeconds = (cases: ReadonlyArray<CaseResult>): string => {
  const known = cases.flatMap((c) => c.durationMs === undefined ? [] : [c.durationMs])
  return known.length === 0 ? "0" : seconds(known.reduce((a, b) => a + b, 0))
}

// Ant's timestamp: a dateTime to the second with no zone (it is UTC here).
const antTimestamp = (date: Date): string => date.toISOString().slice(0, 19)

const testcase = (c: CaseResult, options: JUnitOptions): string => {
  const head = `    <testcase${
    attributes([["name", c.id], ["classname", c.surface], ["time", seconds(c.durationMs)], ["file", options.casesFile]])
  }`
  const outcome = outcomeOf(c)
  if (outcome === undefined) return `${head}/>`
  return [
    `${head}>`,
    `      <${outcome.element}${attributes([["message", clip(outcome.message)], ["type", outcome.type]])}>${
      outcome.body.map(escapeText).join("\n")
    }</${outcome.element}>`,
    "    </testcase>"
  ].join("\n")
}

interface Tally {
  readonly tests: number
  readonly failures: number
  readonly errors: number
}

const tally = (cases: ReadonlyArray<CaseResult>): Tally => {
  const outcomes = cases.map(outcomeOf)
  return {
    tests: cases.length,
    failures: outcomes.filter((o) => o?.element === "failure").length,
    errors: outcomes.filter((o) => o?.element === "error").length
  }
}

const properties = (result: RunResult): ReadonlyArray<readonly [string, string]> => [
  ["pass-rate", showRate(result.passRate)],
  ["floor", result.floor === null ? "none" : showRate(result.floor)],
  ["verdict", result.passed === null ? "none" : result.passed ? "holds the floor" : "below the floor"],
  ["repeat", String(result.repeat ?? 1)],
  ...(result.shard === undefined
    ? []
    : [["shard", `${result.shard.index}/${result.shard.count}`] as const]),
  ["case-set", result.caseSet]
]

/** Renders a run's results as a JUnit XML report: a testsuite per surface, a testcase per case. */
export const renderJUnit = (result: RunResult, options: JUnitOptions = {}): string => {
  const surfaces = new Map<string, Array<CaseResult>>()
  for (const c of result.cases) {
    const cases = surfaces.get(c.surface)
    if (cases === undefined) surfaces.set(c.surface, [c])
    else cases.push(c)
  }
  const shard = result.shard === undefined ? "" : ` (shard ${result.shard.index}/${result.shard.count})`
  const timestamp = antTimestamp(options.timestamp ?? new Date(0))
  const hostname = options.hostname === undefined || options.hostname.trim() === "" ? "localhost" : options.hostname
  // Ant's aggregated form: the root has no attributes; each suite names its package and counts from 0.
  const lines = [`<?xml version="1.0" encoding="UTF-8"?>`, "<testsuites>"]
  for (const [id, [surface, cases]] of [...surfaces].entries()) {
    const suite = tally(cases)
    lines.push(
      `  <testsuite${
        attributes([
          ["name", surface],
          ["package", `${options.name ?? "turn-eval"}${shard}`],
          ["id", id],
          ["tests", suite.tests],
          ["failures", suite.failures],
          ["errors", suite.errors],
          ["time", suiteSeconds(cases)],
          ["timestamp", timestamp],
          ["hostname", hostname]
        ])
      }>`,
      "    <properties>",
      ...properties(result).map(([name, value]) =>
        `      <property${attributes([["name", name], ["value", value]])}/>`
      ),
      "    </properties>",
      ...cases.map((c) => testcase(c, options)),
      "    <system-out/>",
      "    <system-err/>",
      "  </testsuite>"
    )
  }
  lines.push("</testsuites>")
  return `${lines.join("\n")}\n`
}
