/** The `html` reporter: one self-contained page to read the run in a browser. */
import { renderHtml } from "../Scorecard/Render/Html.js"
import { renderedReport } from "./Reporter.js"

// The report context carries the page's options (noFloor, diff, history, durationMs) under their names.
export const writer = renderedReport(({ context, result }) => renderHtml(result, context))
