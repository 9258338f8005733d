/**
 * The fingerprint of a case set: a sha256 over each case's id, surface, question and expectations, in
 * id order. Two runs compare like with like only when their fingerprints agree.
 */
import { createHash } from "node:crypto"
import type { Case } from "../Schema/Case.js"

const canonical = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(canonical)
  if (value !== null && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])])
    )
  }
  return value
}

/** `sha256:<hex>` over the cases that ran; order in the file, tags and `guards` do not change it. */
export const caseSetFingerprint = (cases: ReadonlyArray<Case>): string => {
  const parts = [...cases]
    .sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .map((c) => canonical({ id: c.id, surface: c.surface, question: c.question, expect: c.expect }))
  return `sha256:${createHash("sha256").update(JSON.stringify(parts)).digest("hex")}`
}
