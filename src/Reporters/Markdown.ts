/** The `markdown` reporter: the summary for a pull-request comment, which the `github` step summary is too. */
import { renderDiffMarkdown } from "../Scorecard/Render/DiffMarkdown.js"
import { renderMarkdown } from "../Scorecard/Render/Markdown.js"
import { renderedReport, type ReportInput } from "./Reporter.js"

/** The summary, with what changed since the older run and a pointer to the HTML report when there are. */
export const renderSummary = ({ context, result }: Pick<ReportInput, "context" | "result">): string =>
  renderMarkdown(result, {
    ...context,
    extraSections: context.diff === undefined ? [] : [renderDiffMarkdown(context.diff.diff, context.diff.against)]
  })

export const writer = renderedReport(renderSummary)
