/** The parts of a kept turn that are there only when the turn had them, and the count of what was left out. */
import { describe, expect, it } from "@effect/vitest"
import { maxListed } from "../../src/Schema/Shown.js"
import { keptTurn } from "../../src/Scorecard/Kept.js"
import { cite, turn } from "../support/turns.js"

const long = "y".repeat(500)
const clippedLong = `${"y".repeat(200)}…`

describe("keptTurn", () => {
  it("clips an execution's error, keeps a null one, and leaves out one it did not have", () => {
    const t = turn({ toolExecutions: [{ tool: "a", error: long }, { tool: "b", error: null }, { tool: "c" }] })
    expect(keptTurn(t).trace.toolExecutions).toEqual([
      { tool: "a", error: clippedLong },
      { tool: "b", error: null },
      { tool: "c" }
    ])
  })

  it("clips a proposal's fields and keeps only those it had", () => {
    const full = turn({ proposal: { id: "p", summary: long, status: long, actions: [long] } })
    expect(keptTurn(full).trace.proposal).toEqual({
      id: "p",
      summary: clippedLong,
      status: clippedLong,
      actions: [clippedLong]
    })
    const bare = keptTurn(turn({ proposal: { id: "p" } })).trace.proposal
    expect(bare).toEqual({ id: "p" })
    expect(Object.keys(bare!)).toEqual(["id"])
    expect(keptTurn(turn({ proposal: null })).trace.proposal).toBeNull()
  })

  it("counts what it leaves out only past the first ones, each list on its own", () => {
    const executions = (n: number) => Array.from({ length: n }, () => ({ tool: "search_docs" }))
    const citations = (n: number) => Array.from({ length: n }, () => cite("/docs/a"))
    const full = turn({ toolExecutions: executions(maxListed), citations: citations(maxListed) })
    expect("omitted" in keptTurn(full)).toBe(false)
    expect(keptTurn(turn({ toolExecutions: executions(maxListed + 1) })).omitted).toEqual({ toolExecutions: 1 })
    expect(keptTurn(turn({ citations: citations(maxListed + 2) })).omitted).toEqual({ citations: 2 })
    const allListed = turn({ toolExecutions: executions(maxListed), citations: citations(maxListed + 1) })
    expect(keptTurn(allListed).omitted).toEqual({ citations: 1 })
    const citationsListed = turn({ toolExecutions: executions(maxListed + 3), citations: citations(maxListed) })
    expect(keptTurn(citationsListed).omitted).toEqual({ toolExecutions: 3 })
  })
})
