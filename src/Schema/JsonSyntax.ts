/**
 * Where JSON text first goes wrong. `JSON.parse` messages differ between Node versions and often give
 * no position; this scanner finds the offending character itself, without recursion, so any nesting
 * depth is safe.
 */

type Mode = "value" | "valueOrEnd" | "key" | "keyOrEnd" | "after"

const literal = /true|false|null|-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const escape = /\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4})/y

/** The index of the end of the string starting at `start` (a `"`), or `-1 - position` of its fault. */
const scanString = (text: string, start: number): number => {
  let i = start + 1
  while (i < text.length) {
    const c = text.charCodeAt(i)
    if (c === 0x22) return i + 1
    if (c < 0x20) return -1 - i
    if (c === 0x5c) {
      escape.lastIndex = i
      if (!escape.test(text)) return -1 - i
      i = escape.lastIndex
    } else {
      i++
    }
  }
  return -1 - i
}

/** The index of the first character that makes `text` invalid JSON (its length for a premature end), or -1. */
export const jsonErrorPosition = (text: string): number => {
  const stack: Array<"{" | "["> = []
  let mode: Mode = "value"
  let i = 0
  const n = text.length
  for (;;) {
    while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++
    const c = text[i]
    if (mode === "after") {
      const top = stack[stack.length - 1]
      if (top === undefined) return i < n ? i : -1
      if (c === ",") {
        mode = top === "{" ? "key" : "value"
        i++
      } else if ((top === "{" && c === "}") || (top === "[" && c === "]")) {
        stack.pop()
        i++
      } else {
        return i
      }
      continue
    }
    if (c === undefined) return i
    if (mode === "key" || mode === "keyOrEnd") {
      if (mode === "keyOrEnd" && c === "}") {
        stack.pop()
        i++
        mode = "after"
        continue
      }
      if (c !== "\"") return i
      const end = scanString(text, i)
      if (end < 0) return -1 - end
      i = end
      while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++
      if (text[i] !== ":") return i
      i++
      mode = "value"
      continue
    }
    // mode is "value" or "valueOrEnd"
    if (mode === "valueOrEnd" && c === "]") {
      stack.pop()
      i++
      mode = "after"
    } else if (c === "{") {
      stack.push("{")
      i++
      mode = "keyOrEnd"
    } else if (c === "[") {
      stack.push("[")
      i++
      mode = "valueOrEnd"
    } else if (c === "\"") {
      const end = scanString(text, i)
      if (end < 0) return -1 - end
      i = end
      mode = "after"
    } else {
      literal.lastIndex = i
      if (!literal.test(text)) return i
      i = literal.lastIndex
      mode = "after"
    }
  }
}

/** `line L, column C` of an index, both counted from 1. */
export const lineAndColumn = (text: string, position: number): string => {
  const before = text.slice(0, position)
  const line = before.split("\n").length
  const column = position - before.lastIndexOf("\n")
  return `line ${line}, column ${column}`
}

/** What is wrong with invalid JSON text, in a few words with its line and column. */
export const describeJsonError = (text: string, fallback: string): string => {
  const position = jsonErrorPosition(text)
  if (position < 0) return fallback
  const found = position >= text.length ? "unexpected end of input" : `unexpected ${JSON.stringify(text[position])}`
  return `${found} at ${lineAndColumn(text, position)}`
}
