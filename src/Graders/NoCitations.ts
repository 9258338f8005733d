import { listed } from "../Schema/Shown.js"
import { distinct, fail, type Grader, pass, shown } from "./Grader.js"

/** The turn cites nothing; otherwise every cited path is named: `cited: /docs/a, /docs/b`. */
export const noCitations: Grader<"no-citations"> = (_, { trace }) =>
  trace.citations.length === 0
    ? pass
    : fail(`cited: ${listed(distinct(trace.citations.map((c) => shown(c.path))), ", ")}`)
