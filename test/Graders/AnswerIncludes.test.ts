import { describe, expect, it } from "@effect/vitest"
import { answerIncludes } from "../../src/Graders/AnswerIncludes.js"
import { docsSurface, turn } from "../support/turns.js"

describe("answerIncludes", () => {
  const refund = { kind: "answer-includes", text: "Refund", ignoreCase: false } as const

  it("passes on a plain substring", () => {
    expect(answerIncludes(refund, turn({}, "Refund requests take 14 days."), docsSurface)).toEqual({ passed: true })
  })

  it("is case-sensitive by default", () => {
    expect(answerIncludes(refund, turn({}, "refunds take 14 days"), docsSurface)).toEqual({
      passed: false,
      fact: "answer lacks: \"Refund\""
    })
  })

  it("folds case with ignoreCase", () => {
    expect(answerIncludes({ ...refund, ignoreCase: true }, turn({}, "REFUNDS take 14 days"), docsSurface).passed).toBe(
      true
    )
  })

  it("treats the text literally, not as a pattern", () => {
    const dotStar = { kind: "answer-includes", text: "a.*b", ignoreCase: false } as const
    expect(answerIncludes(dotStar, turn({}, "axxb"), docsSurface).passed).toBe(false)
    expect(answerIncludes(dotStar, turn({}, "see a.*b"), docsSurface).passed).toBe(true)
  })

  it("fails on an empty answer and quotes the text in the fact", () => {
    const quoted = { kind: "answer-includes", text: "say \"hi\"", ignoreCase: false } as const
    expect(answerIncludes(quoted, turn({}, ""), docsSurface)).toEqual({
      passed: false,
      fact: "answer lacks: \"say \\\"hi\\\"\""
    })
  })
})
