/**
 * Which golden set a baseline belongs to: the cases file it names, relative to its own folder, or for
 * one that names none the default cases file; one file however it is named, links followed; and the
 * `cases` a ratchet writes, read back as the same file.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, relative } from "node:path"
import { defaultCasesFile } from "../../src/ProjectFiles.js"
import { belongsTo, casesEntry } from "../../src/Scorecard/BaselineCases.js"
import { encodeBaseline } from "../../src/Scorecard/BaselineStore.js"

/** A project folder with the default cases file, `other.json`, and a `ci/` folder for baselines. */
const project = () => {
  const dir = mkdtempSync(join(tmpdir(), "eval-belongs-"))
  mkdirSync(join(dir, "cases"))
  mkdirSync(join(dir, "ci"))
  writeFileSync(join(dir, defaultCasesFile), "{}")
  writeFileSync(join(dir, "other.json"), "{}")
  return (file: string) => join(dir, file)
}

const run = <A>(effect: Effect.Effect<A, never, NodeContext.NodeContext>) =>
  effect.pipe(Effect.provide(NodeContext.layer))

describe("the golden set a baseline belongs to", () => {
  it.effect("is the file its cases names, from the baseline's folder, however the run names it", () =>
    run(Effect.gen(function*() {
      const at = project()
      const named = { cases: "../other.json" }
      const baseline = at("ci/baseline.json")
      expect(yield* belongsTo(baseline, named, at("other.json"))).toBe(true)
      expect(yield* belongsTo(baseline, named, `${at("ci")}/../other.json`)).toBe(true)
      expect(yield* belongsTo(baseline, named, relative(process.cwd(), at("other.json")))).toBe(true)
      expect(yield* belongsTo(baseline, named, at(defaultCasesFile))).toBe(false)
      // Not the file of that name beside the run: the one beside the baseline.
      expect(yield* belongsTo(at("baseline.json"), { cases: "other.json" }, at("ci/other.json"))).toBe(false)
    })))

  it.effect("is the same file through a link, either way", () =>
    run(Effect.gen(function*() {
      const at = project()
      symlinkSync(at("other.json"), at("linked.json"))
      expect(yield* belongsTo(at("baseline.json"), { cases: "other.json" }, at("linked.json"))).toBe(true)
      expect(yield* belongsTo(at("baseline.json"), { cases: "linked.json" }, at("other.json"))).toBe(true)
      expect(yield* belongsTo(at("baseline.json"), { cases: "linked.json" }, at(defaultCasesFile))).toBe(false)
    })))

  it.effect("is the default cases file beside a baseline that names none, and no other set", () =>
    run(Effect.gen(function*() {
      const at = project()
      expect(yield* belongsTo(at("baseline.json"), {}, at(defaultCasesFile))).toBe(true)
      expect(yield* belongsTo(at("baseline.json"), {}, `${at("cases")}/./golden-cases.json`)).toBe(true)
      expect(yield* belongsTo(at("baseline.json"), {}, at("other.json"))).toBe(false)
      expect(yield* belongsTo(at("ci/baseline.json"), {}, at("other.json"))).toBe(false)
    })))

  it.effect("is the default cases file of the working folder for a baseline elsewhere that names none", () =>
    run(Effect.gen(function*() {
      const at = project()
      // The run found the default cases file in its working folder when such a baseline was written.
      expect(yield* belongsTo(at("ci/baseline.json"), {}, defaultCasesFile)).toBe(true)
      expect(yield* belongsTo(at("ci/baseline.json"), { cases: "cases/golden-cases.json" }, defaultCasesFile))
        .toBe(false)
    })))

  it.effect("is the file the ratchet's cases entry names, read back", () =>
    run(Effect.gen(function*() {
      const at = project()
      expect(casesEntry(at("baseline.json"), at(defaultCasesFile))).toBe("cases/golden-cases.json")
      expect(casesEntry(at("ci/baseline.json"), at("other.json"))).toBe("../other.json")
      expect(casesEntry(at("ci/baseline.json"), at("ci/x/y.json"))).toBe("x/y.json")
      for (const [baseline, cases] of [["baseline.json", "other.json"], ["ci/baseline.json", defaultCasesFile]]) {
        const cases_ = casesEntry(at(baseline!), at(cases!))
        expect(yield* belongsTo(at(baseline!), { cases: cases_ }, at(cases!))).toBe(true)
      }
    })))
})

describe("the baseline's cases entry", () => {
  it("is written after the _comment lines and before the floor", () => {
    expect(encodeBaseline({ _comment: ["header"], cases: "cases/golden-cases.json", floor: 0.5, repeat: 2 }))
      .toBe(
        "{\n  \"_comment\": [\n    \"header\"\n  ],\n  \"cases\": \"cases/golden-cases.json\",\n  \"floor\": 0.5,\n" +
          "  \"repeat\": 2\n}\n"
      )
  })
})
