/** The `html` reporter: one self-contained page to read the run in a browser. */
import { renderHtml } from "../Scorecard/Render/Html.js"
import { renderedReport } from "./Reporter.js"

export const writer = renderedReport(({ context, result }) =>
  renderHtml(result, {
    ...(context.noFloor === undefined ? {} : { noFloor: context.noFloor }),
    ...(context.diff === undefined ? {} : { diff: context.diff }),
    ...(context.history === undefined ? {} : { history: context.history }),
    ...(context.durationMs === undefined ? {} : { durationMs: context.durationMs })
  })
)
