import { describe, expect, it } from "@effect/vitest"
import { outcome } from "../../src/Graders/Outcome.js"
import { docsSurface, turn } from "../support/turns.js"

describe("outcome", () => {
  it("passes on the expected outcome", () => {
    expect(outcome({ kind: "outcome", is: "refused" }, turn({ outcome: "refused" }), docsSurface)).toEqual({
      passed: true
    })
  })

  it("fails with the actual and the expected outcome", () => {
    expect(outcome({ kind: "outcome", is: "answered" }, turn({ outcome: "error" }), docsSurface)).toEqual({
      passed: false,
      fact: "outcome: error (expected answered)"
    })
  })
})
