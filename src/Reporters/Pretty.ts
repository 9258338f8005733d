/** The `pretty` reporter: the terminal scorecard, and with `--compare` what changed since the older run. */
import { renderDiffPretty } from "../Scorecard/Render/DiffText.js"
import { renderPretty } from "../Scorecard/Render/Pretty.js"
import { renderedReport } from "./Reporter.js"

export const writer = renderedReport(({ color, context, result }) => {
  const card = renderPretty(result, { ...context, color })
  return context.diff === undefined
    ? card
    : `${card}\n\n${renderDiffPretty(context.diff.diff, { color, against: context.diff.against })}`
})
