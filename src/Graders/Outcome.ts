import { fail, type Grader, pass, shown } from "./Grader.js"

/** The turn ended in the expected outcome: `outcome: error (expected answered)`. */
export const outcome: Grader<"outcome"> = ({ is }, { trace }) =>
  trace.outcome === is ? pass : fail(`outcome: ${shown(trace.outcome)} (expected ${shown(is)})`)
