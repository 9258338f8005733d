/**
 * The `junit` reporter: JUnit XML for CI test reports. `junit:file-attribute` also writes each
 * testcase's `file` (which GitLab shows), off by default because the Ant and Jenkins schemas reject it.
 */
import { renderJUnit } from "../Scorecard/Render/JUnit.js"
import { renderedReport } from "./Reporter.js"

export const writer = renderedReport(({ context, options, result, site }) =>
  renderJUnit(result, {
    ...site,
    ...(options.includes("file-attribute") ? { casesFile: context.casesFile } : {})
  })
)
