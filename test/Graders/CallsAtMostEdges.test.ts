/** calls-at-most over every tool counts one execution in the singular. */
import { describe, expect, it } from "@effect/vitest"
import { callsAtMost } from "../../src/Graders/CallsAtMost.js"
import { call, docsSurface, turn } from "../support/turns.js"

describe("callsAtMost over every tool", () => {
  it("says 1 tool execution, not executions", () => {
    const once = turn({ toolExecutions: [call("catalog")] })
    expect(callsAtMost({ kind: "calls-at-most", times: 0 }, once, docsSurface)).toEqual({
      passed: false,
      fact: "called: 1 tool execution (at most 0)"
    })
  })
})
