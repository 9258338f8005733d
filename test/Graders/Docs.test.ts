/**
 * The documentation of the expectation kinds is the registry's: docs/contract.md and README.md hold
 * exactly the tables `npm run docs` renders from it, and every example the contract shows grades as
 * it says.
 */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { readFileSync } from "node:fs"
import { examplesTable, exampleSurface, generated, markers, sketchedTurn } from "../../src/Graders/Docs.js"
import { gradeExpectation } from "../../src/Graders/index.js"
import { kinds } from "../../src/Graders/Kinds.js"
import { Expectation } from "../../src/Schema/Case.js"
import { decodeValue } from "../../src/Schema/Decode.js"

/** The section of a file between a pair of markers. */
const section = (file: string, name: string): string => {
  const text = readFileSync(file, "utf8")
  const { begin, end } = markers(name)
  const start = text.indexOf(begin)
  const stop = text.indexOf(end, start)
  expect(start, `${file} has the marker ${begin}`).toBeGreaterThanOrEqual(0)
  expect(stop, `${file} has the marker ${end}`).toBeGreaterThan(start)
  return text.slice(start + begin.length, stop).trim()
}

/** The kind names in the first column of a Markdown table, in order. */
const kindsIn = (table: string): ReadonlyArray<string> =>
  table.split("\n").slice(2).map((row) => /^\| `([a-z-]+)`/.exec(row)?.[1] ?? row)

describe("the documentation of the expectation kinds", () => {
  it.each(generated.map((g) => [g.file, g.name, g.render] as const))(
    "%s (%s) is what npm run docs writes",
    (file, name, render) => {
      expect(section(file, name), `run npm run docs to rewrite ${file}`).toBe(render())
    }
  )

  it("lists every registered kind once, in the registry's order, in the contract and the README", () => {
    const names = kinds.map((k) => k.kind)
    expect(kindsIn(section("docs/contract.md", "kinds"))).toEqual(names)
    expect(kindsIn(section("README.md", "kinds"))).toEqual(names)
    expect(examplesTable().split("\n").slice(2).map((row) => /"kind":"([a-z-]+)"/.exec(row)?.[1])).toEqual(names)
  })

  it.each(kinds.map((k) => [k.kind, k] as const))(
    "%s: its example is a valid expectation that passes and fails as the contract says",
    (_, kind) => {
      const decoded = decodeValue(Expectation, "example", kind.example.expect)
      expect(Either.isRight(decoded), JSON.stringify(decoded)).toBe(true)
      const expectation = Either.getOrThrow(decoded)
      expect(expectation.kind).toBe(kind.kind)
      const context = kind.example.approved === undefined ? undefined : { approved: kind.example.approved }
      expect(gradeExpectation(expectation, sketchedTurn(kind.example.passes), exampleSurface, context)).toEqual({
        passed: true
      })
      expect(gradeExpectation(expectation, sketchedTurn(kind.example.fails), exampleSurface, context)).toEqual({
        passed: false,
        fact: kind.example.fact
      })
    }
  )
})
