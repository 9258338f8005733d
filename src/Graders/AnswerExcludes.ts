import { contains } from "./AnswerIncludes.js"
import { fail, type Grader, pass } from "./Grader.js"

/** The answer does not contain the text: `answer contains: "rm -rf"`. */
export const answerExcludes: Grader<"answer-excludes"> = ({ ignoreCase, text }, { answer }) =>
  contains(answer, text, ignoreCase) ? fail(`answer contains: ${JSON.stringify(text)}`) : pass
