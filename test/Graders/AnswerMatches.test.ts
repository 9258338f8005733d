import { describe, expect, it } from "@effect/vitest"
import { AnswerMatches, answerMatches } from "../../src/Graders/AnswerMatches.js"
import { docsSurface, turn } from "../support/turns.js"

const grade = (expectation: typeof AnswerMatches.Type, answer: string) =>
  answerMatches(expectation, turn({}, answer), docsSurface)

const refundWindow = { kind: "answer-matches", pattern: "refund within \\d+ days", flags: "i" } as const
const rmrf = { kind: "answer-matches", pattern: "rm -rf \\S+", negate: true } as const

describe("answerMatches", () => {
  it("passes when the pattern matches anywhere in the answer", () => {
    expect(grade(refundWindow, "You can get a Refund within 14 days of purchase.")).toEqual({ passed: true })
    expect(grade({ kind: "answer-matches", pattern: "days" }, "14 days, not more")).toEqual({ passed: true })
  })

  it("fails with the pattern and its flags when it does not match", () => {
    expect(grade(refundWindow, "Refunds take a while.")).toEqual({
      passed: false,
      fact: "answer does not match /refund within \\d+ days/i"
    })
    expect(grade({ kind: "answer-matches", pattern: "refund" }, "")).toEqual({
      passed: false,
      fact: "answer does not match /refund/"
    })
  })

  it("with negate, passes when the pattern does not match", () => {
    expect(grade(rmrf, "Clear the cache from the console: Settings → Cache → Purge.")).toEqual({ passed: true })
    expect(grade(rmrf, "")).toEqual({ passed: true })
    expect(grade({ ...rmrf, negate: false }, "Clear the cache from the console.").passed).toBe(false)
  })

  it("with negate, fails with the text the pattern matched", () => {
    expect(grade(rmrf, "Just run rm -rf /var/cache and restart.")).toEqual({
      passed: false,
      fact: "answer matches /rm -rf \\S+/: \"rm -rf /var/cache\""
    })
    expect(
      grade({ kind: "answer-matches", pattern: "rm -rf", negate: true }, "Just run rm -rf /var/cache and restart.")
    ).toEqual({
      passed: false,
      fact: "answer matches /rm -rf/: \"rm -rf\""
    })
  })

  it("clips the matched text to 200 characters", () => {
    expect(grade({ kind: "answer-matches", pattern: "a+", negate: true }, `b${"a".repeat(10_000)}b`)).toEqual({
      passed: false,
      fact: `answer matches /a+/: "${"a".repeat(200)}…"`
    })
  })

  it("ignores case with flag i, and not without it", () => {
    expect(grade({ kind: "answer-matches", pattern: "refund" }, "REFUND").passed).toBe(false)
    expect(grade({ kind: "answer-matches", pattern: "refund", flags: "i" }, "REFUND").passed).toBe(true)
  })

  it("with flag m, matches ^ and $ at line breaks", () => {
    const answer = "Step 1: back up\nStep 2: roll back\nStep 3: verify"
    expect(grade({ kind: "answer-matches", pattern: "^Step 2: roll back$" }, answer)).toEqual({
      passed: false,
      fact: "answer does not match /^Step 2: roll back$/"
    })
    expect(grade({ kind: "answer-matches", pattern: "^Step 2: roll back$", flags: "m" }, answer)).toEqual({
      passed: true
    })
  })

  it("with flag s, lets . match a line break", () => {
    expect(grade({ kind: "answer-matches", pattern: "back up.roll back" }, "back up\nroll back").passed).toBe(false)
    expect(grade({ kind: "answer-matches", pattern: "back up.roll back", flags: "s" }, "back up\nroll back").passed)
      .toBe(true)
  })

  it("writes the flags after the pattern as given", () => {
    expect(grade({ kind: "answer-matches", pattern: "x", flags: "is" }, "y").fact).toBe("answer does not match /x/is")
    expect(grade({ kind: "answer-matches", pattern: "x", flags: "si" }, "y").fact).toBe("answer does not match /x/si")
    expect(grade({ kind: "answer-matches", pattern: "x.y", flags: "ims", negate: true }, "X\nY").fact)
      .toBe("answer matches /x.y/ims: \"X\\nY\"")
  })

  it("reads RE2 syntax: inline flags and classes", () => {
    expect(grade({ kind: "answer-matches", pattern: "(?i)refund" }, "REFUND").passed).toBe(true)
    expect(grade({ kind: "answer-matches", pattern: "[[:digit:]]{2} days" }, "14 days").passed).toBe(true)
  })

  it("negated, quotes the match of an answer up to 262,144 characters, and of a longer one says only that it matched", () => {
    const at = (length: number) => `${"x".repeat(length - 20)}rm -rf /var/cache ok`
    expect(grade(rmrf, at(262_144))).toEqual({
      passed: false,
      fact: "answer matches /rm -rf \\S+/: \"rm -rf /var/cache\""
    })
    expect(grade(rmrf, at(262_145))).toEqual({
      passed: false,
      fact: "answer matches /rm -rf \\S+/ somewhere in its 262,145 characters"
    })
    expect(grade(rmrf, "x".repeat(300_000))).toEqual({ passed: true })
  })
})
