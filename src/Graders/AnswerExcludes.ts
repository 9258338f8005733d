import { contains, fastTextCheck, textCheck } from "./AnswerIncludes.js"
import { fail, pass } from "./Grader.js"
import { defineKind, type Grader, textArgument } from "./Kind.js"

/** The answer does not contain the text. */
export const AnswerExcludes = textCheck("answer-excludes")

/** The answer does not contain the text: `answer contains: "rm -rf"`. */
export const answerExcludes: Grader<typeof AnswerExcludes.Type> = ({ ignoreCase, text }, { answer }) =>
  contains(answer, text, ignoreCase) ? fail(`answer contains: ${JSON.stringify(text)}`) : pass

export const answerExcludesKind = defineKind({
  kind: "answer-excludes",
  schema: AnswerExcludes,
  fields: ["text", "ignoreCase"],
  fast: fastTextCheck,
  grade: answerExcludes,
  names: () => [],
  argument: textArgument("text", "TEXT"),
  doc: {
    fields: "`text`, `ignoreCase`?",
    passes: "the answer does not contain `text`",
    fact: "`answer contains: \"rm -rf\"`",
    brief: "the answer does not contain it"
  },
  example: {
    expect: { kind: "answer-excludes", text: "--force" },
    passes: { answer: "Deploys go through `harbor deploy`; there is no way to skip the checks." },
    fails: { answer: "Run `harbor deploy --force` to skip the checks." },
    fact: "answer contains: \"--force\""
  }
})
