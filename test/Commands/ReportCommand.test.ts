import { describe, expect, it } from "@effect/vitest"
import { Option } from "effect"
import { noFloorOf } from "../../src/Application/Floor.js"
import { noFloorYet, programName } from "../../src/ProgramName.js"
import type { RunResult } from "../../src/Schema/Result.js"
import { plainRun, repeatedRun } from "../Scorecard/Render/results.js"

const unheld: RunResult = { ...plainRun, floor: null, passed: null }
const baseline = Option.some({ floor: 0.8 })

describe("noFloorOf", () => {
  it("says why a results file was held to no floor, as the run said it, where the file and the baseline tell", () => {
    expect(noFloorOf({ ...unheld, bailed: true }, baseline, "baseline.json"))
      .toBe("the run stopped early (--bail); a partial run is held to no floor")
    expect(noFloorOf(repeatedRun, baseline, "baseline.json"))
      .toBe(`shard 2/4 (4 cases): ${programName} merge applies the floor to the whole`)
    const nothing: RunResult = {
      ...unheld,
      cases: unheld.cases.map((c) => ({ ...c, passed: false, error: "down", expectations: [] }))
    }
    expect(noFloorOf(nothing, baseline, "baseline.json")).toBe("no case obtained its turn: the run measured nothing")
    expect(noFloorOf(unheld, Option.none(), "baseline.json")).toBe(noFloorYet)
    const { shard: _, ...repeated } = repeatedRun
    expect(noFloorOf(repeated, Option.some({ floor: 0.8, repeat: 2 }), "ci/baseline.json"))
      .toBe(
        "the floor in ci/baseline.json was set with --repeat 2; it is not applied to a run with --repeat 3 (compare like with like)"
      )
    expect(noFloorOf(unheld, baseline, "baseline.json"))
      .toBe("held to no floor when it ran: a --filter'ed run, or one from before the floor was committed")
  })
})
