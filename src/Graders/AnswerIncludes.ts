import { Schema } from "effect"
import { drafted } from "../Schema/Fields.js"
import { fail, pass } from "./Grader.js"
import { defineKind, type Grader, textArgument } from "./Kind.js"

/** The fields of a plain-text check of the answer: the text, and whether case is ignored. */
export const textCheck = <K extends string>(kind: K) =>
  Schema.Struct({
    kind: Schema.Literal(kind),
    text: Schema.String.pipe(Schema.minLength(1, { message: () => "expected a non-empty text to look for" })),
    ignoreCase: Schema.optionalWith(Schema.Boolean, { default: () => false }),
    drafted
  })

/** How the fast decoder reads a plain-text check. */
export const fastTextCheck = (value: Record<string, unknown>) => {
  const { ignoreCase = false, text } = value
  return typeof text === "string" && text.length > 0 && typeof ignoreCase === "boolean"
    ? { text, ignoreCase }
    : undefined
}

/** The answer contains the text. */
export const AnswerIncludes = textCheck("answer-includes")

/** Plain substring search, case-folded on request. */
export const contains = (answer: string, text: string, ignoreCase: boolean): boolean =>
  ignoreCase ? answer.toLowerCase().includes(text.toLowerCase()) : answer.includes(text)

/** The answer contains the text: `answer lacks: "Refund"`. */
export const answerIncludes: Grader<typeof AnswerIncludes.Type> = ({ ignoreCase, text }, { answer }) =>
  contains(answer, text, ignoreCase) ? pass : fail(`answer lacks: ${JSON.stringify(text)}`)

export const answerIncludesKind = defineKind({
  kind: "answer-includes",
  schema: AnswerIncludes,
  fields: ["text", "ignoreCase"],
  fast: fastTextCheck,
  grade: answerIncludes,
  names: () => [],
  argument: textArgument("text", "TEXT"),
  doc: {
    fields: "`text`, `ignoreCase`?",
    passes: "the answer contains `text` (plain substring; `ignoreCase` defaults to false)",
    fact: "`answer lacks: \"Refund\"`",
    brief: "the answer contains the text"
  },
  example: {
    expect: { kind: "answer-includes", text: "team-billing", ignoreCase: true },
    passes: { answer: "payments-api is owned by Team-Billing." },
    fails: { answer: "payments-api is owned by the payments team." },
    fact: "answer lacks: \"team-billing\""
  }
})
