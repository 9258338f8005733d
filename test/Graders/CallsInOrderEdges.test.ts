/** calls-in-order with `exact` at its edges: nothing ran, and a run as long as `tools` that differs after the first. */
import { describe, expect, it } from "@effect/vitest"
import { callsInOrder } from "../../src/Graders/CallsInOrder.js"
import { call, docsSurface, turn } from "../support/turns.js"

const exact = { kind: "calls-in-order", tools: ["catalog", "search_docs"], exact: true } as const

describe("callsInOrder with exact", () => {
  it("says none ran when no execution succeeded", () => {
    expect(callsInOrder(exact, turn(), docsSurface)).toEqual({
      passed: false,
      fact: "order: none (expected exactly catalog → search_docs)"
    })
    expect(callsInOrder(exact, turn({ toolExecutions: [call("catalog", "timeout")] }), docsSurface).fact)
      .toBe("order: none (expected exactly catalog → search_docs)")
  })

  it("fails a run of the same length whose first tool is right and whose second is not", () => {
    expect(callsInOrder(exact, turn({ toolExecutions: [call("catalog"), call("deploy")] }), docsSurface)).toEqual({
      passed: false,
      fact: "order: catalog → deploy (expected exactly catalog → search_docs)"
    })
  })
})
