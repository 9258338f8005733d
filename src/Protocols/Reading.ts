/**
 * What the protocols' readers share: a tool's error as a fact shows it, a surface's request template
 * filled with a turn's values, a surface's resume template for a decision, and a read turn or the ask's
 * failure.
 */
import { Effect, Either } from "effect"
import { failure } from "../Runner/Transport.js"
import { isRecord } from "../Schema/Decode.js"
import type { Surface } from "../Schema/Surface.js"
import type { NextStep, Read } from "./Protocol.js"

/** Where a serialised error object keeps its message, in the order they are tried. */
const messagePaths: ReadonlyArray<ReadonlyArray<string>> = [["message"], ["cause", "message"], [
  "details",
  "errorMessage"
]]

/** The message of an error text that is a serialised error object (Mastra's `errorText`), if it holds one. */
const jsonMessage = (text: string): string | undefined => {
  const trimmed = text.trim()
  if (!trimmed.startsWith("{")) return undefined
  let value: unknown
  try {
    value = JSON.parse(trimmed)
  } catch {
    return undefined
  }
  for (const path of messagePaths) {
    const found = path.reduce<unknown>((at, key) => isRecord(at) ? at[key] : undefined, value)
    if (typeof found === "string" && found.trim() !== "") return found
  }
  return undefined
}

/**
 * A tool's error as a fact shows it: the first line of the text a wire carries, without the `Error: `
 * that stringifying a JavaScript error puts before its message (the AI SDK 7's default and LangChain's
 * tool messages write it; the AI SDK 6 and AG-UI adapters send the message alone), so one failure reads
 * alike on every protocol. An error text that is a serialised error object (Mastra sends one) is read
 * for its message: `message`, else `cause.message`, else `details.errorMessage`. An error with no text
 * is still an error.
 */
export const toolErrorText = (text: string): string => {
  const line = (jsonMessage(text) ?? text).split(/\r?\n/).map((l) => l.trim()).find((l) => l !== "") ?? ""
  const message = line.replace(/^Error:\s*/, "")
  return message === "" ? "(no error text)" : message
}

/**
 * A request template with its placeholders filled: a string value that is exactly `{name}` becomes the
 * value; inside a longer string each `{name}` is replaced by the value's text. Only names in `values`
 * are replaced, in one pass, so a value that itself holds `{question}` stays as it is; keys are kept,
 * nothing is evaluated. Every protocol whose surface has a `request` template fills it here.
 */
export const fillTemplate = (template: unknown, values: Readonly<Record<string, string>>, depth = 0): unknown => {
  if (typeof template === "string") {
    return template.replace(
      /\{([A-Za-z][A-Za-z0-9]*)\}/g,
      (whole, name: string) => Object.hasOwn(values, name) ? values[name]! : whole
    )
  }
  // A template is the catalog's own JSON; the bound only keeps a pathological one from overflowing the stack.
  if (depth > 64) return template
  if (Array.isArray(template)) return template.map((item) => fillTemplate(item, values, depth + 1))
  if (typeof template === "object" && template !== null) {
    return Object.fromEntries(
      Object.entries(template).map(([key, item]) => [key, fillTemplate(item, values, depth + 1)])
    )
  }
  return template
}

/** A turn read from a wire, or the ask's failure with the reason it could not be read. */
export const turnOrFail = (read: Read) =>
  Either.match(read, { onLeft: (why) => Effect.fail(failure("ask", why)), onRight: Effect.succeed })

/**
 * What a decision resumes a paused run with by the surface's `resume` templates (`{reason}` and
 * `{proposalId}` filled in), or undefined when the surface gives none.
 */
export const resumeTemplate = (
  surface: Surface,
  decision: Extract<NextStep, { readonly kind: "decide" }>
): unknown => {
  const template = decision.approved ? surface.resume?.approve : surface.resume?.deny
  return template === undefined
    ? undefined
    : fillTemplate(template, { reason: decision.reason ?? "", proposalId: decision.proposal.id })
}
