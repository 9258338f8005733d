import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Option } from "effect"
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { encodeBaseline, readBaseline, writeBaseline } from "../../src/Scorecard/BaselineStore.js"

const dir = () => mkdtempSync(join(tmpdir(), "eval-baseline-"))

describe("the baseline store", () => {
  it.effect("reads an absent baseline as none, never as a floor of 0", () =>
    Effect.gen(function*() {
      expect(yield* readBaseline(join(dir(), "baseline.json"))).toEqual(Option.none())
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("writes and reads back, with _comment first and a trailing newline", () =>
    Effect.gen(function*() {
      const file = join(dir(), "baseline.json")
      const baseline = { floor: 0.8181, _comment: ["header", "2026-11-30: floor set to 0.8181 (18/22 passed)"] }
      yield* writeBaseline(file, baseline)
      expect(readFileSync(file, "utf8")).toBe(encodeBaseline(baseline))
      expect(readFileSync(file, "utf8")).toMatch(/^\{\n {2}"_comment": \[[\s\S]*\],\n {2}"floor": 0\.8181\n\}\n$/)
      expect(yield* readBaseline(file)).toEqual(Option.some(baseline))
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("writes the history after the floor, one move a line in its order, and reads it back", () =>
    Effect.gen(function*() {
      const file = join(dir(), "baseline.json")
      const baseline = {
        _comment: [
          "header",
          "2026-11-30: floor set to 0.5 (1/2 passed all 3 attempts, --repeat 3)",
          "2026-12-01: floor 0.5 → 1 (2/2 passed all 3 attempts)"
        ],
        floor: 1,
        repeat: 3,
        history: [
          { date: "2026-11-30", from: null, to: 0.5, passed: 1, total: 2 },
          { date: "2026-12-01", from: 0.5, to: 1, passed: 2, total: 2 }
        ]
      }
      yield* writeBaseline(file, baseline)
      const text = readFileSync(file, "utf8")
      expect(text).toBe(encodeBaseline(baseline))
      expect(text.split("\n").slice(-7)).toEqual([
        "  \"repeat\": 3,",
        "  \"history\": [",
        "    {\"date\": \"2026-11-30\", \"from\": null, \"to\": 0.5, \"passed\": 1, \"total\": 2},",
        "    {\"date\": \"2026-12-01\", \"from\": 0.5, \"to\": 1, \"passed\": 2, \"total\": 2}",
        "  ]",
        "}",
        ""
      ])
      expect(JSON.parse(text)).toEqual(baseline)
      expect(yield* readBaseline(file)).toEqual(Option.some(baseline))
      // An empty history stays one, and a baseline without one gets none.
      expect(JSON.parse(encodeBaseline({ floor: 0.5, history: [] }))).toEqual({ floor: 0.5, history: [] })
      expect(encodeBaseline({ floor: 0.5 })).toBe("{\n  \"floor\": 0.5\n}\n")
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("replaces the file atomically, leaving no temporary file behind", () =>
    Effect.gen(function*() {
      const folder = dir()
      const file = join(folder, "baseline.json")
      writeFileSync(file, "{\"floor\": 0.5}\n")
      yield* writeBaseline(file, { floor: 0.6 })
      expect(readdirSync(folder)).toEqual(["baseline.json"])
      expect(JSON.parse(readFileSync(file, "utf8"))).toEqual({ floor: 0.6 })
    }).pipe(Effect.provide(NodeContext.layer)))

  it.effect("leaves the old file whole when the write cannot finish", () =>
    Effect.gen(function*() {
      const folder = dir()
      const file = join(folder, "baseline.json")
      writeFileSync(file, "{\"floor\": 0.5}\n")
      // A folder where the new file would be renamed to makes the last step fail after the temporary file is written.
      const blocked = join(folder, "blocked")
      mkdirSync(join(blocked, "baseline.json"), { recursive: true })
      writeFileSync(join(blocked, "baseline.json", "keep"), "")
      const failed = yield* Effect.either(writeBaseline(join(blocked, "baseline.json"), { floor: 0.9 }))
      expect(Either.isLeft(failed) && failed.left.message).toMatch(/^.*blocked\/baseline\.json: cannot write: /)
      expect(readdirSync(blocked)).toEqual(["baseline.json"])
      expect(readFileSync(file, "utf8")).toBe("{\"floor\": 0.5}\n")
      // A read-only folder fails at the first step; nothing is created and the old file stays.
      const readOnly = join(folder, "ro")
      mkdirSync(readOnly)
      writeFileSync(join(readOnly, "baseline.json"), "{\"floor\": 0.5}\n")
      chmodSync(readOnly, 0o500)
      if (process.getuid?.() !== 0) {
        const denied = yield* Effect.either(writeBaseline(join(readOnly, "baseline.json"), { floor: 0.9 }))
        expect(Either.isLeft(denied)).toBe(true)
        expect(readdirSync(readOnly)).toEqual(["baseline.json"])
      }
      chmodSync(readOnly, 0o700)
    }).pipe(Effect.provide(NodeContext.layer)))

  const corrupt: ReadonlyArray<readonly [string, string, string]> = [
    ["not JSON", "{floor: 0.5}", "baseline.json: not valid JSON: unexpected \"f\" at line 1, column 2"],
    ["an empty file", "", "baseline.json: not valid JSON: unexpected end of input at line 1, column 1"],
    ["a floor above 1", "{\"floor\": 1.5}", "baseline.json: $.floor: expected a floor between 0 and 1, got 1.5"],
    ["a negative floor", "{\"floor\": -0.1}", "baseline.json: $.floor: expected a floor between 0 and 1, got -0.1"],
    ["a floor as text", "{\"floor\": \"0.8\"}", "baseline.json: $.floor: expected number, got \"0.8\""],
    ["no floor", "{\"_comment\": []}", "baseline.json: $.floor: missing"],
    [
      "a misspelt key",
      "{\"floor\": 0.5, \"flor\": 0.9}",
      "baseline.json: $.flor: unknown key; expected one of \"cases\" | \"floor\" | \"repeat\" | \"_comment\" | \"history\""
    ],
    [
      "a comment that is not a list",
      "{\"floor\": 0.5, \"_comment\": \"x\"}",
      "baseline.json: $._comment: expected ReadonlyArray<string>, got \"x\""
    ],
    [
      "a history entry without its date",
      "{\"floor\": 0.5, \"history\": [{\"from\": null, \"to\": 0.5, \"passed\": 1, \"total\": 2}]}",
      "baseline.json: $.history[0].date: missing"
    ],
    [
      "a history date that is not one",
      "{\"floor\": 0.5, \"history\": [{\"date\": \"yesterday\", \"from\": null, \"to\": 0.5, \"passed\": 1, \"total\": 2}]}",
      "baseline.json: $.history[0].date: expected a date as YYYY-MM-DD, got \"yesterday\""
    ],
    [
      "a history floor above 1",
      "{\"floor\": 0.5, \"history\": [{\"date\": \"2026-01-01\", \"from\": 0.2, \"to\": 5, \"passed\": 1, \"total\": 2}]}",
      "baseline.json: $.history[0].to: expected a floor between 0 and 1, got 5"
    ],
    [
      "more passed than ran",
      "{\"floor\": 0.5, \"history\": [{\"date\": \"2026-01-01\", \"from\": null, \"to\": 0.5, \"passed\": 3, \"total\": 2}]}",
      "baseline.json: $.history[0].passed: expected at most the run's total of 2 cases, got 3"
    ],
    [
      "an unknown key in a history entry",
      "{\"floor\": 0.5, \"history\": [{\"date\": \"2026-01-01\", \"from\": null, \"to\": 0.5, \"passed\": 1, " +
      "\"total\": 2, \"by\": \"ci\"}]}",
      "baseline.json: $.history[0].by: unknown key; expected one of \"date\" | \"from\" | \"to\" | \"passed\" | \"total\""
    ]
  ]
  it.effect.each(corrupt)(
    "reports a corrupt baseline (%s) with the file and JSON path",
    ([, content, message]) =>
      Effect.gen(function*() {
        const folder = dir()
        writeFileSync(join(folder, "baseline.json"), content)
        const result = yield* Effect.either(readBaseline(join(folder, "baseline.json")))
        expect(Either.isLeft(result) && result.left.message).toBe(join(folder, message))
      }).pipe(Effect.provide(NodeContext.layer))
  )
})
