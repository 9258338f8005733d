import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { inert } from "../../../src/Schema/Inert.js"
import type { RunResult } from "../../../src/Schema/Result.js"
import { caseLines, renderGitHubAnnotations } from "../../../src/Scorecard/Render/GitHub.js"
import { hostile, plainRun, repeatedRun } from "./results.js"

// A workflow command read back the way the runner reads it: level, properties, message.
interface Command {
  readonly level: string
  readonly properties: Record<string, string>
  readonly message: string
}

const unescape = (value: string): string =>
  value.replace(
    /%(25|0D|0A|3A|2C)/g,
    (_, code: string) => ({ "25": "%", "0D": "\r", "0A": "\n", "3A": ":", "2C": "," })[code]!
  )

const parseCommands = (text: string): Array<Command> =>
  text === "" ? [] : text.split("\n").map((line) => {
    const match = /^::(\w+) ([^:]*)::(.*)$/.exec(line)
    if (match === null) throw new Error(`not a workflow command: ${JSON.stringify(line)}`)
    const properties: Record<string, string> = {}
    for (const pair of match[2]!.split(",")) {
      const at = pair.indexOf("=")
      properties[pair.slice(0, at)] = unescape(pair.slice(at + 1))
    }
    return { level: match[1]!, properties, message: unescape(match[3]!) }
  })

const casesFile = "cases/golden-cases.json"
const lines = new Map([["docs.proration", 17], ["ops.no-turn", 42], ["docs.flaky", 7], ["docs.broken", 12], [
  "ops.down",
  30
]])

describe("renderGitHubAnnotations", () => {
  it("annotates each failing case as an error on its line, with its facts", () => {
    const commands = parseCommands(renderGitHubAnnotations(plainRun, { casesFile, caseLines: lines }))
    expect(commands.map((c) => [c.level, c.properties])).toEqual([
      ["error", { file: casesFile, line: "17", title: "failed: docs.proration" }],
      ["error", { file: casesFile, line: "42", title: "failed: ops.no-turn" }]
    ])
    expect(commands[0]!.message.split("\n")).toEqual([
      "cites-only-surfaced: unsurfaced: /docs/billing/refunds-2023",
      inert(`answer-excludes: answer contains: "${hostile}"`)
    ])
    expect(commands[1]!.message).toBe("turn error: HTTP 500 <html>&amp;</html>")
  })

  it("keeps hostile text inside its command: no line break, escape sequence or second command gets out", () => {
    const text = renderGitHubAnnotations(plainRun, { casesFile, caseLines: lines })
    expect(text.split("\n")).toHaveLength(2)
    expect(text).not.toMatch(/[\r\u001b\u0000]/)
    expect(text.split("\n").filter((l) => l.startsWith("::error::"))).toEqual([])
    const [first] = parseCommands(text)
    expect(first!.message).toContain("\\u001b[31m")
    expect(first!.message).toContain("\\r\\n- item\\n::error::injected")
  })

  it("escapes percent signs, and commas and colons in properties, so every value reads back exactly", () => {
    const result: RunResult = {
      ...plainRun,
      cases: [{
        id: "a",
        surface: "docs",
        passed: false,
        expectations: [{ kind: "answer-includes", passed: false, fact: "answer lacks: \"100%0A, done: yes\"" }]
      }]
    }
    const awkward = "cases/golden,set: v2%0A.json"
    const [command] = parseCommands(renderGitHubAnnotations(result, { casesFile: awkward, caseLines: new Map() }))
    expect(command).toEqual({
      level: "error",
      properties: { file: awkward, line: "1", title: "failed: a" },
      message: "answer-includes: answer lacks: \"100%0A, done: yes\""
    })
  })

  it("marks a flaky case as a warning titled flaky, with each attempt's facts, apart from cases that always fail", () => {
    const commands = parseCommands(renderGitHubAnnotations(repeatedRun, { casesFile, caseLines: lines }))
    expect(commands.map((c) => [c.level, c.properties.line, c.properties.title])).toEqual([
      ["warning", "7", "flaky: docs.flaky (2 of 3 attempts passed)"],
      ["error", "12", "failed: docs.broken (all 3 attempts)"],
      ["error", "30", "failed: ops.down (all 3 attempts)"]
    ])
    expect(commands[0]!.message.split("\n")).toEqual([
      "attempt 1: passed",
      "attempt 2: failed",
      "  answer-includes: answer lacks: \"30 days\"",
      "attempt 3: passed"
    ])
    expect(commands[1]!.message.split("\n")).toEqual([
      "answer-includes: answer lacks: \"Refund\"",
      "turn error: timeout after 30s"
    ])
  })

  it("says nothing when every case passed", () => {
    const passing: RunResult = { ...plainRun, cases: plainRun.cases.filter((c) => c.passed) }
    expect(renderGitHubAnnotations(passing, { casesFile, caseLines: lines })).toBe("")
  })
})

describe("caseLines", () => {
  it("finds the line of every case's id in the golden set", () => {
    const path = fileURLToPath(new URL("../../../cases/golden-cases.json", import.meta.url))
    const text = readFileSync(path, "utf8")
    const ids = (JSON.parse(text) as { cases: Array<{ id: string }> }).cases.map((c) => c.id)
    const found = caseLines(text)
    expect([...found.keys()]).toEqual(ids)
    const rows = text.split("\n")
    for (const [id, line] of found) {
      expect(rows[line - 1]).toMatch(new RegExp(`"id"\\s*:\\s*"${id.replace(/\./g, "\\.")}"`))
    }
  })

  it("reads any formatting: keys in any order, CRLF, escapes, and \"id\" inside other strings or nested objects", () => {
    const text = [
      "\ufeff{\"version\": 1, \"note\": \"{\\\"id\\\": \\\"fake\\\"}\",",
      " \"cases\": [",
      "  {\"surface\": \"docs\", \"question\": \"what is \\\"id\\\": \\\"x\\\"?\",",
      "   \"expect\": [{\"kind\": \"outcome\", \"id\": \"nested\"}],",
      "   \"id\"",
      "     :",
      "     \"docs.\\u0061\"}, {\"id\": \"b\"},",
      "",
      "  {\"tags\": [\"id\"], \"id\": \"c\"}",
      " ],",
      " \"other\": {\"id\": \"not-a-case\"}",
      "}"
    ].join("\r\n")
    expect(Object.fromEntries(caseLines(text))).toEqual({ "docs.a": 5, b: 7, c: 9 })
    expect(Object.fromEntries(caseLines(text.replace(/\r\n/g, "\n")))).toEqual({ "docs.a": 5, b: 7, c: 9 })
    expect(Object.fromEntries(caseLines(JSON.stringify(JSON.parse(text.slice(1)))))).toEqual({
      "docs.a": 1,
      b: 1,
      c: 1
    })
  })

  it("gives what it could read of a broken file, and nothing of one that is not JSON", () => {
    expect(Object.fromEntries(caseLines("{\"cases\": [\n{\"id\": \"a\"},\n{\"id\": \"b"))).toEqual({ a: 2 })
    expect(caseLines("").size).toBe(0)
    expect(caseLines("not json at all \"id\": \"x\"").size).toBe(0)
    expect(caseLines("[{\"id\": \"top-level array\"}]").size).toBe(0)
  })

  it("points a case it cannot find at line 1", () => {
    const [command] = parseCommands(renderGitHubAnnotations(plainRun, { casesFile, caseLines: caseLines("{}") }))
    expect(command?.properties.line).toBe("1")
  })
})
