/**
 * JSON for tests: values for how inputs are compared and shown (reordered copies, deep nesting), and
 * results files read back.
 */
import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { RunResult } from "../../src/Schema/Result.js"

/** The same value with every object's keys in reverse order, at every level. */
export const reordered = (value: unknown): unknown => {
  if (Array.isArray(value)) return value.map(reordered)
  if (typeof value === "object" && value !== null) {
    const copy: Record<string, unknown> = {}
    for (const key of Object.keys(value).reverse()) {
      // defineProperty, so that a key named __proto__ stays an own key as JSON.parse makes it.
      Object.defineProperty(copy, key, {
        value: reordered((value as Record<string, unknown>)[key]),
        enumerable: true,
        writable: true,
        configurable: true
      })
    }
    return copy
  }
  return value
}

/** A value nested `depth` levels deep, built in a loop: `{"a":{"a":…"leaf"}}`, or `[[…"leaf"]]`; `leaf` innermost. */
export const nested = (depth: number, array = false, leaf: unknown = "leaf"): unknown => {
  let value: unknown = leaf
  for (let i = 0; i < depth; i++) value = array ? [value] : { a: value }
  return value
}

/** A path into a JSON value: its keys and indexes. */
export type Path = ReadonlyArray<string | number>

/** Every path into a value's parts, each part before its own. */
export const paths = (value: unknown, at: Path = []): Array<Path> =>
  value === null || typeof value !== "object"
    ? []
    : Object.entries(value).flatMap(([key, child]) => {
      const here = [...at, Array.isArray(value) ? Number(key) : key]
      return [here, ...paths(child, here)]
    })

/** What `replaced` is given to remove a part rather than replace it. */
export const removed: unique symbol = Symbol("removed")

/** A copy of `value` with the part at `path` replaced (the whole, for no path), or removed for `removed`. */
export const replaced = (value: unknown, path: Path, replacement: unknown): unknown => {
  if (path.length === 0) return replacement
  const [key, ...rest] = path
  const copy = (Array.isArray(value) ? [...value] : { ...(value as object) }) as Record<string | number, unknown>
  if (rest.length > 0) copy[key!] = replaced(copy[key!], rest, replacement)
  else if (replacement !== removed) copy[key!] = replacement
  else if (Array.isArray(copy)) (copy as Array<unknown>).splice(key as number, 1)
  else delete copy[key!]
  return copy
}

/** A results file as the contract decodes it. */
export const readRunResult = (file: string): RunResult =>
  Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(file, "utf8")))
