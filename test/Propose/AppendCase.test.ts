/**
 * Adding a drafted case to the text of a cases file: at the end of the top-level `cases` list only,
 * everything else byte for byte, laid out like the list's first case.
 */
import { describe, expect, it } from "@effect/vitest"
import { appendCaseText } from "../../src/Propose/Draft.js"
import type { Case } from "../../src/Schema/Case.js"

const drafted: Case = { id: "new", surface: "docs", question: "Q?", guards: "g", expect: [{ kind: "no-citations" }] }
const compact = JSON.stringify(drafted)
const laidOut = (indent: string) =>
  [
    `${indent}{`,
    `${indent}  "id": "new",`,
    `${indent}  "surface": "docs",`,
    `${indent}  "question": "Q?",`,
    `${indent}  "guards": "g",`,
    `${indent}  "expect": [`,
    `${indent}    {"kind": "no-citations"}`,
    `${indent}  ]`,
    `${indent}}`
  ].join("\n")

describe("appendCaseText", () => {
  it("adds to a list on one line after a comma and a space, or alone to an empty list", () => {
    expect(appendCaseText("{\"version\":1,\"cases\":[{\"id\":\"x\"}]}", drafted)).toBe(
      `{"version":1,"cases":[{"id":"x"}, ${compact}]}`
    )
    expect(appendCaseText("{\"version\":1,\"cases\":[]}", drafted)).toBe(`{"version":1,"cases":[${compact}]}`)
    expect(appendCaseText("{\"cases\": [ ] }", drafted)).toBe(`{"cases": [${compact} ] }`)
  })

  it("lays the case out like the first one of a list on several lines, after the last one", () => {
    const text = "{\n  \"version\": 1,\n  \"cases\": [\n    {\"id\": \"x\"}\n  ]\n}\n"
    expect(appendCaseText(text, drafted)).toBe(
      `{\n  "version": 1,\n  "cases": [\n    {"id": "x"},\n${laidOut("    ")}\n  ]\n}\n`
    )
    const tabs = "{\"cases\": [\n\t{\"id\": \"x\"}\n]}"
    expect(appendCaseText(tabs, drafted)).toBe(`{"cases": [\n\t{"id": "x"},\n${laidOut("\t")}\n]}`)
  })

  it("skips a byte-order mark, strings holding quotes, brackets or the word cases, and lists deeper down", () => {
    const bom = "\ufeff{\"cases\":[]}"
    expect(appendCaseText(bom, drafted)).toBe(`\ufeff{"cases":[${compact}]}`)
    const tricky = "{\"note\":\"a \\\"]\\\" [ { cases\\\\\",\"meta\":{\"cases\":[1]},\"list\":[[]],\"cases\":[2]}"
    expect(appendCaseText(tricky, drafted)).toBe(
      "{\"note\":\"a \\\"]\\\" [ { cases\\\\\",\"meta\":{\"cases\":[1]},\"list\":[[]],\"cases\":[2, " + compact + "]}"
    )
    expect(JSON.parse(appendCaseText(tricky, drafted)!).cases).toEqual([2, drafted])
  })

  it("gives up on a text with no top-level cases list", () => {
    for (const text of ["{\"version\":1}", "[]", "{\"cases\":{}}", "{\"meta\":{\"cases\":[]}}", "{\"cases\":[", ""]) {
      expect(appendCaseText(text, drafted)).toBeUndefined()
    }
  })
})
