/** The fast reading of one expectation leaves anything that is not an object to the schema, without throwing. */
import { describe, expect, it } from "@effect/vitest"
import { fastExpectation } from "../../src/Graders/Kinds.js"

describe("fastExpectation", () => {
  it.each([[null], ["answer-includes"], [7], [["kind", "cites"]]])("leaves %j to the schema", (value) => {
    expect(fastExpectation(value)).toBeUndefined()
  })

  it("reads an object of a known kind, its defaults filled in", () => {
    expect(fastExpectation({ kind: "answer-includes", text: "14 days" }))
      .toEqual({ kind: "answer-includes", text: "14 days", ignoreCase: false })
  })
})
