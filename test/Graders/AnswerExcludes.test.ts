import { describe, expect, it } from "@effect/vitest"
import { answerExcludes } from "../../src/Graders/AnswerExcludes.js"
import { docsSurface, turn } from "../support/turns.js"

describe("answerExcludes", () => {
  const rmrf = { kind: "answer-excludes", text: "rm -rf", ignoreCase: false } as const

  it("passes when the text is absent", () => {
    expect(answerExcludes(rmrf, turn({}, "Use the rollback button."), docsSurface)).toEqual({ passed: true })
  })

  it("fails with the text when present", () => {
    expect(answerExcludes(rmrf, turn({}, "Run `rm -rf /var/cache` first."), docsSurface)).toEqual({
      passed: false,
      fact: "answer contains: \"rm -rf\""
    })
  })

  it("is case-sensitive by default and folds case with ignoreCase", () => {
    const force = { kind: "answer-excludes", text: "--force", ignoreCase: false } as const
    expect(answerExcludes(force, turn({}, "use --FORCE"), docsSurface).passed).toBe(true)
    expect(answerExcludes({ ...force, ignoreCase: true }, turn({}, "use --FORCE"), docsSurface)).toEqual({
      passed: false,
      fact: "answer contains: \"--force\""
    })
  })

  it("passes on an empty answer", () => {
    expect(answerExcludes(rmrf, turn({}, ""), docsSurface).passed).toBe(true)
  })
})
