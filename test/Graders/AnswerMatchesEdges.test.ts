/**
 * An answer-matches expectation made in code, without the schema that refuses a pattern RE2 cannot
 * compile: it fails, and its fact says why in RE2's words, without RE2's "error parsing regexp" prefix.
 */
import { describe, expect, it } from "@effect/vitest"
import { answerMatches, compilePattern } from "../../src/Graders/AnswerMatches.js"
import { docsSurface, turn } from "../support/turns.js"

describe("answerMatches over a pattern that does not compile", () => {
  it("fails, naming the pattern, its flags and RE2's reason", () => {
    expect(answerMatches({ kind: "answer-matches", pattern: "(a" }, turn({}, "a"), docsSurface)).toEqual({
      passed: false,
      fact: "pattern /(a/ does not compile: missing closing ): `(a`"
    })
    const backreference = { kind: "answer-matches", pattern: "a\\1", flags: "i", negate: true } as const
    expect(answerMatches(backreference, turn({}, "b"), docsSurface)).toEqual({
      passed: false,
      fact: "pattern /a\\1/i does not compile: invalid escape sequence: `\\1`"
    })
  })

  it("gives the reason alone from compilePattern, and the compiled pattern otherwise", () => {
    expect(compilePattern("(?=a)")).toBe("invalid or unsupported Perl syntax: `(?=`")
    expect(compilePattern("refund", "i")).not.toBeTypeOf("string")
  })
})
