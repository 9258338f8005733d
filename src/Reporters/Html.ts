/** The `html` reporter: one self-contained page to read the run in a browser. */
import { namedInProject } from "../Files.js"
import { renderHtml } from "../Scorecard/Render/Html.js"
import { renderedReport } from "./Reporter.js"

// The report context carries the page's options (noFloor, diff, history, durationMs) under their names.
// The earlier run's file is named as the project names it: the page is shared, the machine's paths are not.
export const writer = renderedReport(({ context, result }) =>
  renderHtml(result, {
    ...context,
    diff: context.diff === undefined ? undefined : { ...context.diff, against: namedInProject(context.diff.against) }
  })
)
