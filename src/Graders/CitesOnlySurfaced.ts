import { surfaced } from "../Schema/Trace.js"
import { distinct, fail, type Grader, joinFacts, pass, shown } from "./Grader.js"

/** Every citation matched a surfaced item; each recalled one is named: `unsurfaced: /docs/x`. */
export const citesOnlySurfaced: Grader<"cites-only-surfaced"> = (_, { trace }) => {
  const offenders = distinct(trace.citations.filter((c) => !surfaced(c)).map((c) => c.path))
  return offenders.length === 0 ? pass : fail(joinFacts(offenders.map((path) => `unsurfaced: ${shown(path)}`)))
}
