import { errored } from "../Schema/Trace.js"
import { distinct, fail, type Grader, joinFacts, pass, shown } from "./Grader.js"

/** At least one tool ran without error; when every call errored, the errors are named. */
export const callsAnyTool: Grader<"calls-any-tool"> = (_, { trace }) => {
  const calls = trace.toolExecutions
  if (calls.some((e) => !errored(e))) return pass
  if (calls.length === 0) return fail("no tool ran")
  return fail(joinFacts(distinct(calls.map((e) => `${shown(e.tool)} errored: ${shown(e.error ?? "")}`))))
}
