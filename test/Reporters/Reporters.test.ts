/**
 * The registry of reporters: each one parses by its name, loads its module and writes its report; what
 * each writes to standard output decides which may share it; `--help` names every reporter and option.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Option } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Reporter } from "../../src/Reporters/Reporter.js"
import { reporterNames, reporters, reportersHelp } from "../../src/Reporters/Reporters.js"
import { parseReporters, stdoutIsDocument, writeReports } from "../../src/Reporters/Reports.js"
import { plainRun } from "../Scorecard/Render/results.js"

const entries = reporterNames.map((name) => [name, reporters[name] as Reporter] as const)

/** Outside GitHub Actions: the github reporter then writes nothing. */
const noActions = Effect.withConfigProvider(ConfigProvider.fromMap(new Map()))

layer(NodeContext.layer)("the reporters", (it) => {
  it.effect("each writes its report to a file, but the one that annotates, which takes none", () =>
    Effect.gen(function*() {
      const dir = mkdtempSync(join(tmpdir(), "eval-reporters-"))
      for (const [name, reporter] of entries) {
        const file = join(dir, `${name}.out`)
        const parsed = yield* Effect.either(parseReporters([`${name}=${file}`], Option.none()))
        if (reporter.stdout === "annotations") {
          expect(parsed).toMatchObject({
            _tag: "Left",
            left: { message: `--reporter ${name} takes no file: ${reporter.noFile}` }
          })
          continue
        }
        expect(parsed).toMatchObject({ _tag: "Right" })
        if (parsed._tag === "Left") continue
        // The scorecard joins a list of files only: every report here goes to a file.
        expect(parsed.right).toEqual([{ name: "pretty" }, { name, file }])
        yield* writeReports(plainRun, parsed.right.slice(1), { casesFile: "cases/golden-cases.json" }).pipe(noActions)
        expect(readFileSync(file, "utf8").length).toBeGreaterThan(1)
      }
    }))
})

describe("what a reporter writes to standard output", () => {
  it.effect("is one report at most, the scorecard unless another takes it, and annotations only beside the scorecard", () =>
    Effect.gen(function*() {
      const documents = entries.filter(([, r]) => r.stdout === "document").map(([name]) => name)
      const annotators = entries.filter(([, r]) => r.stdout === "annotations").map(([name]) => name)
      expect(documents.length).toBeGreaterThan(1)
      for (const name of documents) {
        const alone = yield* parseReporters([name], Option.none())
        expect(alone).toEqual([{ name }])
        expect(stdoutIsDocument(alone)).toBe(true)
        for (const annotator of annotators) {
          expect(yield* Effect.flip(parseReporters([annotator, name], Option.none()))).toMatchObject({
            message:
              `--reporter ${annotator} annotates through standard output, which would break the ${name} report there: ` +
              `send that one to a file`
          })
        }
      }
      const [first, second] = documents
      expect(yield* Effect.flip(parseReporters([first!, second!], Option.none()))).toMatchObject({
        message:
          `${first} and ${second} would both write to standard output: send all but one to a file, e.g. --reporter junit=report.xml`
      })
      for (const annotator of annotators) {
        const beside = yield* parseReporters([annotator], Option.none())
        expect(beside).toEqual([{ name: "pretty" }, { name: annotator }])
        expect(stdoutIsDocument(beside)).toBe(false)
      }
    }))

  it.effect("takes each reporter's own options only", () =>
    Effect.gen(function*() {
      for (const [name, reporter] of entries) {
        for (const option of Object.keys(reporter.options)) {
          expect(yield* parseReporters([`${name}:${option}=r.out`], Option.none())).toContainEqual({
            name,
            file: "r.out",
            options: [option]
          })
        }
        const refused = yield* Effect.flip(parseReporters([`${name}:no-such-option`], Option.none()))
        expect(refused.message).toContain(`${name} has no option "no-such-option"`)
      }
    }))
})

describe("what --help says of the reporters", () => {
  it("names every reporter, the default first, and what each option does", () => {
    const { names, notes } = reportersHelp()
    expect(names).toBe("pretty (the default), json, junit, github, markdown or html")
    for (const [name, reporter] of entries) {
      expect(names).toContain(name)
      for (const [option, what] of Object.entries(reporter.options)) {
        expect(notes).toContain(`${name}:${option} ${what}`)
      }
      if (reporter.about !== undefined) expect(notes).toContain(`${name} is ${reporter.about}`)
    }
  })
})
