/** The problem a case id that is no case id gets quotes at most its first 140 characters. */
import { describe, expect, it } from "@effect/vitest"
import { Either } from "effect"
import { CaseId } from "../../src/Schema/Case.js"
import { decodeValue } from "../../src/Schema/Decode.js"

const message = (id: string) => {
  const decoded = decodeValue(CaseId, "cases.json", id)
  return Either.isLeft(decoded) ? decoded.left.problems[0]?.message : "accepted"
}

describe("CaseId", () => {
  it("quotes a bad id of up to 140 characters whole, and the first 140 of a longer one", () => {
    expect(message("A".repeat(140))).toMatch(new RegExp(`; got "A{140}"$`))
    expect(message("A".repeat(500))).toMatch(new RegExp(`; got "A{140}"$`))
  })
})
