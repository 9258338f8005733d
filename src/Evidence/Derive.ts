/**
 * Evidence derived by a surface's rules, the same for every source of turns: the identifiers a tool
 * result surfaces, the citations an answer makes, and each citation matched against what was surfaced.
 * Pure.
 */
import { isRecord } from "../Schema/Decode.js"
import type { Citation, Proposal } from "../Schema/Trace.js"
import type { ResolvedEvidence } from "./Rules.js"

/** Values visited in one result at most: a pathological result cannot stall a run. */
const maxVisits = 100_000

/**
 * The identifiers in a value: the text (or number) under any of `fields`, at any depth, looking inside
 * text that is itself JSON (a tool result serialised into a message, as LangChain records it).
 */
export const identifiersIn = (
  value: unknown,
  fields: ReadonlyArray<string>,
  into: Set<string> = new Set()
): Set<string> => {
  const stack: Array<{ value: unknown; depth: number }> = [{ value, depth: 0 }]
  let visits = 0
  while (stack.length > 0 && visits++ < maxVisits) {
    const { depth, value: current } = stack.pop()!
    if (depth > 64) continue
    if (typeof current === "string") {
      const trimmed = current.trim()
      if (/^[[{]/.test(trimmed)) {
        try {
          stack.push({ value: JSON.parse(trimmed), depth: depth + 1 })
        } catch {
          // Text that only looks like JSON names nothing.
        }
      }
    } else if (Array.isArray(current)) {
      for (const item of current) stack.push({ value: item, depth: depth + 1 })
    } else if (isRecord(current)) {
      for (const [key, item] of Object.entries(current)) {
        if (fields.includes(key)) {
          if (typeof item === "string" && item.trim() !== "") into.add(item)
          else if (typeof item === "number" && Number.isFinite(item)) into.add(String(item))
        }
        stack.push({ value: item, depth: depth + 1 })
      }
    }
  }
  return into
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\/-]/g, "\\$&")

/**
 * The citations in an answer, in the order they appear, each once: the matches of the pattern (its
 * first group when it has one that matched), then path-like tokens starting with a prefix — a prefix
 * not preceded by a letter, digit, `_`, `.`, `/` or `-`, followed by path characters, a final `.` dropped.
 */
export const citationsIn = (
  answer: string,
  rules: Pick<ResolvedEvidence, "citationPattern" | "citationPrefixes">
): ReadonlyArray<string> => {
  const found: Array<{ at: number; path: string }> = []
  const flags = rules.citationPattern.flags
  const pattern = new RegExp(rules.citationPattern.source, flags.includes("g") ? flags : `${flags}g`)
  for (const m of answer.matchAll(pattern)) {
    if (m[0] === "") continue
    const path = (m.length > 1 ? m.slice(1).find((g) => g !== undefined) : undefined) ?? m[0]
    if (path.trim() !== "" && !path.startsWith("#")) found.push({ at: m.index, path: path.trim() })
  }
  for (const prefix of rules.citationPrefixes) {
    const token = new RegExp(`(?<![\\w./-])${escapeRegExp(prefix)}[\\w.~%+\\-/#]*`, "g")
    for (const m of answer.matchAll(token)) {
      const path = m[0].replace(/\.+$/, "")
      if (path.length > prefix.length) found.push({ at: m.index, path })
    }
  }
  found.sort((a, b) => a.at - b.at)
  return [...new Set(found.map((f) => f.path))]
}

/** A citation a wire format states itself (the AI SDK's `text-end.citations`), before it is matched. */
export interface StatedCitation {
  readonly path: string
  readonly quote?: string | undefined
}

/**
 * The turn's citations: those the wire states, then those the rules find in the answer, each path once,
 * `path` when it equals a surfaced item and `unsurfaced` otherwise.
 */
export const matchCitations = (
  answer: string,
  surfaced: ReadonlySet<string>,
  rules: ResolvedEvidence,
  stated: ReadonlyArray<StatedCitation> = []
): ReadonlyArray<Citation> => {
  const seen = new Set<string>()
  const citations: Array<Citation> = []
  const add = (path: string, quote: string | undefined) => {
    if (path.trim() === "" || seen.has(path)) return
    seen.add(path)
    citations.push({
      path,
      ...(quote === undefined ? {} : { quote }),
      match: surfaced.has(path) ? "path" : "unsurfaced"
    })
  }
  for (const citation of stated) add(citation.path, citation.quote)
  for (const path of citationsIn(answer, rules)) add(path, undefined)
  return citations
}

/**
 * The proposal a proposal tool's result makes (a surface's `proposalTools`): its `id` or `proposalId`
 * (else the call's id), `summary` or `title`, `status` and `actions`; a text result is the summary.
 */
export const proposalOfResult = (callId: string, output: unknown): Proposal => {
  if (typeof output === "string") return { id: callId, summary: output }
  if (!isRecord(output)) return { id: callId }
  const id = output["id"] ?? output["proposalId"]
  const summary = output["summary"] ?? output["title"]
  return {
    id: typeof id === "string" && id !== "" ? id : typeof id === "number" ? String(id) : callId,
    ...(typeof summary === "string" ? { summary } : {}),
    ...(typeof output["status"] === "string" ? { status: output["status"] } : {}),
    ...(Array.isArray(output["actions"]) ? { actions: output["actions"] } : {})
  }
}
