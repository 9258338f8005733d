/** Colour in the scorecard through the built CLI: NO_COLOR, FORCE_COLOR, a pipe. */
import { describe, expect, it } from "vitest"
import { evalCli } from "../support/cli.js"

describe("colour", () => {
  const scorecard = (env: NodeJS.ProcessEnv) =>
    evalCli(["run", "--fixtures", "cases/fixtures"], { env: { FORCE_COLOR: "", ...env } })
  const ansi = /\u001b\[[0-9;]*m/

  it("is forced on a pipe by FORCE_COLOR=1 (or true, 2, 3), stays off under FORCE_COLOR=0 or false, and NO_COLOR wins", () => {
    for (const force of ["1", "true", "2", "3"]) {
      const run = scorecard({ NO_COLOR: "", FORCE_COLOR: force })
      expect(run.code).toBe(0)
      expect(run.stdout).toMatch(ansi)
    }
    for (const force of ["0", "false"]) expect(scorecard({ NO_COLOR: "", FORCE_COLOR: force }).stdout).not.toMatch(ansi)
    const plain = scorecard({ NO_COLOR: "1", FORCE_COLOR: "1" })
    expect(plain.code).toBe(0)
    expect(plain.stdout).toContain("passed · pass rate")
    expect(plain.stdout).not.toMatch(ansi)
  })
})
