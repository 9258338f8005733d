/**
 * Every pattern a catalog or a golden set holds is compiled by the engine that applies it, with its
 * flags, before anything runs, through the real CLI: one that engine refuses — even one it refuses
 * only when first used, as V8 does a pattern too large — ends `validate` and `run` alike in exit 2 with
 * the file, the JSON path and the engine's reason, the pattern not echoed.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync, writeFileSync } from "node:fs"
import { join } from "node:path"
import { evalCliAsync, scratchProject, stackFrame } from "../support/cli.js"

/** A pattern of 1 MiB of one letter: valid syntax, which V8 refuses as too large when it first applies it. */
const huge = "x".repeat(1_048_576)

const commands = [["validate"], ["run", "--fixtures", "cases/fixtures"]] as const

/** A scratch project whose catalog's surface `docs` has `block` (`evidence` or `otel`) set to `rules`. */
const withRules = (block: "evidence" | "otel", rules: Record<string, unknown>): string => {
  const dir = scratchProject()
  const file = join(dir, "cases", "surfaces.json")
  const catalog = JSON.parse(readFileSync(file, "utf8")) as { surfaces: Record<string, Record<string, unknown>> }
  catalog.surfaces["docs"]![block] = rules
  writeFileSync(file, JSON.stringify(catalog))
  return dir
}

describe("a catalog's citation pattern", () => {
  for (const block of ["evidence", "otel"] as const) {
    for (const command of commands) {
      it(`that V8 refuses only when it applies it (1 MiB): ${command[0]} exits 2 at ${block}.citationPattern`, async () => {
        const run = await evalCliAsync(command, { cwd: withRules(block, { citationPattern: huge }) })
        expect(run.stderr).not.toMatch(stackFrame)
        expect(run.stderr).toBe(
          `cases/surfaces.json: $.surfaces.docs.${block}.citationPattern: not a valid regular expression: ` +
            "Regular expression too large\n"
        )
        expect(run.code).toBe(2)
        expect(run.stdout).toBe("")
      })
    }
  }

  it("that V8 refuses at once is named with V8's reason, the pattern not quoted", async () => {
    const run = await evalCliAsync(["validate"], { cwd: withRules("evidence", { citationPattern: `(${huge}` }) })
    expect(run.code).toBe(2)
    expect(run.stderr).toBe(
      "cases/surfaces.json: $.surfaces.docs.evidence.citationPattern: not a valid regular expression: " +
        "Unterminated group\n"
    )
  })
})

describe("a case's answer-matches pattern", () => {
  for (const command of commands) {
    it(`that RE2 refuses (1 MiB): ${command[0]} exits 2 at its path, the pattern clipped`, async () => {
      const dir = scratchProject()
      const file = join(dir, "cases", "golden-cases.json")
      const golden = JSON.parse(readFileSync(file, "utf8")) as { cases: Array<{ expect: Array<unknown> }> }
      golden.cases[0]!.expect.push({ kind: "answer-matches", pattern: `(${huge}`, flags: "i" })
      writeFileSync(file, JSON.stringify(golden))
      const run = await evalCliAsync(command, { cwd: dir })
      expect(run.code).toBe(2)
      expect(run.stdout).toBe("")
      const at = golden.cases[0]!.expect.length - 1
      expect(run.stderr).toMatch(
        new RegExp(
          String.raw`^cases/golden-cases\.json: \$\.cases\[0\]\.expect\[${at}\]\.pattern: expected a pattern in RE2 ` +
            String.raw`syntax \(no lookaround or backreferences\): missing closing \): ` + "`\\(x+…\n$"
        )
      )
      expect(run.stderr.length).toBeLessThan(1_000)
    })
  }
})
