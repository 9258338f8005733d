/**
 * JSON values as the trajectory graders compare and show them: containment, a canonical form for
 * equality (key order ignored) and a clipped rendering for facts. Each walks the value with a stack of
 * its own instead of recursing, so an input nested a million levels deep is graded like any other,
 * and the clipped rendering stops at its limit, so a 10 MB input costs no more to show than a small one.
 */

type Json = unknown

const isObject = (value: Json): value is Record<string, Json> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * Whether `actual` contains `expected`: an object contains another when it has each of its keys with
 * a value that contains that key's value; an array contains an array of the same length element by
 * element; any other value only itself, by strict equality (`1` is not `"1"`). The work is bounded by
 * the size of `expected`.
 */
export const contains = (actual: Json, expected: Json): boolean => {
  const pairs: Array<readonly [Json, Json]> = [[actual, expected]]
  while (pairs.length > 0) {
    const [a, e] = pairs.pop()!
    if (Array.isArray(e)) {
      if (!Array.isArray(a) || a.length !== e.length) return false
      for (let i = 0; i < e.length; i++) pairs.push([a[i], e[i]])
    } else if (isObject(e)) {
      if (!isObject(a)) return false
      for (const key of Object.keys(e)) {
        if (!Object.hasOwn(a, key)) return false
        pairs.push([a[key], e[key]])
      }
    } else if (a !== e) {
      return false
    }
  }
  return true
}

/** One step of writing a value: a value still to write, or text to emit as it is. */
type Step = { readonly value: Json } | { readonly text: string }

/** A scalar as JSON writes it; what JSON has no form for is written `null`. */
const scalar = (value: Json): string => {
  switch (typeof value) {
    case "string":
    case "boolean":
      return JSON.stringify(value)
    case "number":
      return Number.isFinite(value) ? JSON.stringify(value) : "null"
    case "bigint":
      return String(value)
    default:
      return "null"
  }
}

/**
 * JSON text of a value, as `JSON.stringify` writes it without spaces, up to `limit` characters (then
 * `…`); keys sorted when `sorted`. A string longer than what is left is cut to fit before it is quoted.
 */
const write = (value: Json, sorted: boolean, limit: number): string => {
  const parts: Array<string> = []
  let length = 0
  const steps: Array<Step> = [{ value }]
  while (steps.length > 0) {
    if (length > limit) break
    const step = steps.pop()!
    if ("text" in step) {
      parts.push(step.text)
      length += step.text.length
      continue
    }
    const current = step.value
    if (Array.isArray(current)) {
      steps.push({ text: "]" })
      for (let i = current.length - 1; i >= 0; i--) {
        steps.push({ value: current[i] })
        if (i > 0) steps.push({ text: "," })
      }
      steps.push({ text: "[" })
    } else if (isObject(current)) {
      // As JSON.stringify does, a key whose value is undefined is left out.
      const keys = Object.keys(current).filter((key) => current[key] !== undefined)
      if (sorted) keys.sort()
      steps.push({ text: "}" })
      for (let i = keys.length - 1; i >= 0; i--) {
        const key = keys[i]!
        steps.push({ value: current[key] })
        steps.push({ text: `${i > 0 ? "," : ""}${JSON.stringify(key.length > limit ? key.slice(0, limit) : key)}:` })
      }
      steps.push({ text: "{" })
    } else {
      const text = typeof current === "string" && current.length > limit - length
        ? JSON.stringify(current.slice(0, Math.max(0, limit - length)))
        : scalar(current)
      parts.push(text)
      length += text.length
    }
  }
  const text = parts.join("")
  return length > limit ? `${text.slice(0, limit)}…` : text
}

/** The canonical JSON text of a value: keys sorted at every level, so equal values give equal text. */
export const canonical = (value: Json): string => write(value, true, Infinity)

/** A value as a fact shows it: compact JSON in its own key order, clipped to 200 characters. */
export const shownJson = (value: Json): string => write(value, false, 200)

/** A value as compact JSON in its own key order, clipped to `limit` characters (a `…` then ends it). */
export const clippedJson = (value: Json, limit: number): string => write(value, false, limit)

/** A value as a fact shows it in canonical form: compact JSON with keys sorted, clipped to 200 characters. */
export const shownCanonical = (value: Json): string => write(value, true, 200)
