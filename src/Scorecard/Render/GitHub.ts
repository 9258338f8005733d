/**
 * GitHub Actions annotations: a workflow command per failing case, on the line of the golden-set file
 * where the case is defined, so the failure shows next to the case in the pull request. A case that
 * failed every attempt is an `::error`; a flaky case under `--repeat` is a `::warning` titled flaky,
 * so a reviewer tells an assistant that is unreliable on a case from one that is broken on it.
 */
import { inert } from "../../Schema/Inert.js"
import type { CaseResult, RunResult } from "../../Schema/Result.js"
import { attemptLines, attemptsOf, failingFacts, flakiness, showFact } from "../Attempts.js"

/** Where the annotations point: the cases file, and the line of each case in it. */
export interface GitHubOptions {
  /** The golden-set file, as a path from the repository root. */
  readonly casesFile: string
  /** The 1-based line of each case's `"id"` (from `caseLines`); a case not in it points at line 1. */
  readonly caseLines: ReadonlyMap<string, number>
}

// A workflow command's message: `%`, CR and LF escaped, so a message cannot end its command or start another.
const escapeData = (value: string): string => value.replace(/%/g, "%25").replace(/\r/g, "%0D").replace(/\n/g, "%0A")

// A workflow command's property value: as a message, and `:` and `,` escaped too.
const escapeProperty = (value: string): string => escapeData(value).replace(/:/g, "%3A").replace(/,/g, "%2C")

const command = (
  level: "error" | "warning",
  properties: ReadonlyArray<readonly [string, string]>,
  message: string
): string =>
  `::${level} ${properties.map(([key, value]) => `${key}=${escapeProperty(value)}`).join(",")}::${escapeData(message)}`

const annotation = (c: CaseResult, options: GitHubOptions): string | undefined => {
  const { verdict, passedAttempts, attempts } = flakiness(c)
  if (verdict === "passed") return undefined
  const where = [["file", options.casesFile], ["line", String(options.caseLines.get(c.id) ?? 1)]] as const
  const id = inert(c.id)
  if (verdict === "flaky") {
    return command(
      "warning",
      [...where, ["title", `flaky: ${id} (${passedAttempts} of ${attempts} attempts passed)`]],
      attemptLines(c, { turns: false }).map(inert).join("\n")
    )
  }
  const facts = [...new Set(attemptsOf(c).flatMap((a) => failingFacts(a).map((f) => inert(showFact(f)))))]
  const title = attempts > 1 ? `failed: ${id} (all ${attempts} attempts)` : `failed: ${id}`
  return command("error", [...where, ["title", title]], facts.join("\n"))
}

/**
 * Renders the workflow commands that annotate each failing case (`::error`) and each flaky one
 * (`::warning`), one a line; empty when every case passed.
 */
export const renderGitHubAnnotations = (result: RunResult, options: GitHubOptions): string =>
  result.cases.flatMap((c) => {
    const line = annotation(c, options)
    return line === undefined ? [] : [line]
  }).join("\n")

/**
 * The 1-based line of each case's `"id"` key in a cases file's text, read with a small JSON scanner
 * (any formatting, escapes and `"id"` inside other strings are told apart). Never fails: what cannot be
 * read is left out, and the annotation then points at line 1.
 */
export const caseLines = (text: string): ReadonlyMap<string, number> => {
  const lines = new Map<string, number>()
  // Each open container, with the key it was opened under; for an object, the key last read and its line.
  interface Frame {
    readonly kind: "object" | "array"
    readonly under: string | undefined
    key: string | undefined
    keyLine: number
    expectKey: boolean
  }
  const stack: Array<Frame> = []
  let line = 1
  let i = text.charCodeAt(0) === 0xfeff ? 1 : 0
  // Is the frame on top a case: an object inside the root object's `cases` array?
  const inCase = (): boolean =>
    stack.length === 3 && stack[0]!.kind === "object" && stack[1]!.kind === "array" &&
    stack[1]!.under === "cases" && stack[2]!.kind === "object"
  const readString = (): string | undefined => {
    const start = i
    i++
    while (i < text.length) {
      const c = text[i]
      if (c === "\\") i += 2
      else if (c === "\"") break
      else if (c === "\n") return undefined
      else i++
    }
    const raw = text.slice(start, i + 1)
    i++
    try {
      const value: unknown = JSON.parse(raw)
      return typeof value === "string" ? value : undefined
    } catch {
      return undefined
    }
  }
  while (i < text.length) {
    const c = text[i]!
    const top = stack.at(-1)
    if (c === "\n" || (c === "\r" && text[i + 1] !== "\n")) {
      line++
      i++
    } else if (c === "{" || c === "[") {
      stack.push({
        kind: c === "{" ? "object" : "array",
        under: top?.key,
        key: undefined,
        keyLine: line,
        expectKey: c === "{"
      })
      if (top?.kind === "array") top.key = undefined
      i++
    } else if (c === "}" || c === "]") {
      stack.pop()
      const parent = stack.at(-1)
      if (parent?.kind === "object") parent.key = undefined
      i++
    } else if (c === ",") {
      if (top?.kind === "object") {
        top.expectKey = true
        top.key = undefined
      }
      i++
    } else if (c === "\"") {
      const keyLine = line
      const value = readString()
      if (value === undefined) return lines
      if (top?.kind === "object" && top.expectKey) {
        top.key = value
        top.keyLine = keyLine
        top.expectKey = false
      } else if (top?.kind === "object" && top.key === "id" && inCase() && !lines.has(value)) {
        lines.set(value, top.keyLine)
      }
    } else {
      i++
    }
  }
  return lines
}
