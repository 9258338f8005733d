/** The `json` reporter: the results file. */
import { inertLines } from "../Schema/Inert.js"
import { renderedReport } from "./Reporter.js"

// The same JSON value, with the bidi, separator and format characters JSON leaves raw escaped too.
export const writer = renderedReport(({ result }) => inertLines(JSON.stringify(result, null, 2)))
