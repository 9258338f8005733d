import { errored } from "../Schema/Trace.js"
import { distinct, fail, type Grader, joinFacts, pass, shown } from "./Grader.js"

/** The tool ran at least once without error; calls that errored do not count and are named. */
export const callsTool: Grader<"calls-tool"> = ({ tool }, { trace }) => {
  const calls = trace.toolExecutions.filter((e) => e.tool === tool)
  if (calls.some((e) => !errored(e))) return pass
  if (calls.length === 0) return fail(`not called: ${shown(tool)}`)
  return fail(joinFacts(distinct(calls.map((e) => `${shown(tool)} errored: ${shown(e.error ?? "")}`))))
}
