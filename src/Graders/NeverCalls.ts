import { fail, type Grader, pass, shown } from "./Grader.js"

/** The tool was never executed; an attempt that errored is still a call: `called: deploy (2×)`. */
export const neverCalls: Grader<"never-calls"> = ({ tool }, { trace }) => {
  const count = trace.toolExecutions.filter((e) => e.tool === tool).length
  if (count === 0) return pass
  return fail(count === 1 ? `called: ${shown(tool)}` : `called: ${shown(tool)} (${count}×)`)
}
