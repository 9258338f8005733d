/** JSON values for tests of how inputs are compared and shown: reordered copies and deep nesting. */

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
