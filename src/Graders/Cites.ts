import { surfaced } from "../Schema/Trace.js"
import { fail, type Grader, pass, shown } from "./Grader.js"

/** A surfaced citation with exactly this path exists; a recalled (unsurfaced) one does not count. */
export const cites: Grader<"cites"> = ({ path }, { trace }) => {
  const matching = trace.citations.filter((c) => c.path === path)
  if (matching.some(surfaced)) return pass
  return fail(matching.length > 0 ? `not cited: ${shown(path)} (cited unsurfaced)` : `not cited: ${shown(path)}`)
}
