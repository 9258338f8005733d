import { fail, type Grader, pass } from "./Grader.js"

/** Plain substring search, case-folded on request. */
export const contains = (answer: string, text: string, ignoreCase: boolean): boolean =>
  ignoreCase ? answer.toLowerCase().includes(text.toLowerCase()) : answer.includes(text)

/** The answer contains the text: `answer lacks: "Refund"`. */
export const answerIncludes: Grader<"answer-includes"> = ({ ignoreCase, text }, { answer }) =>
  contains(answer, text, ignoreCase) ? pass : fail(`answer lacks: ${JSON.stringify(text)}`)
