/**
 * JSON text to typed values, with every problem located by file and JSON path. Pure: reading the
 * file is the caller's business. What a problem quotes from the file is made inert (`Inert.ts`).
 */
import { Either, ParseResult, Schema } from "effect"
import { didYouMean } from "../Words.js"
import { BadInput, type Problem } from "./Errors.js"
import { inert } from "./Inert.js"
import { describeJsonError } from "./JsonSyntax.js"

/** Whether a decoded JSON value is an object (not null, not an array). */
export const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === "object" && value !== null && !Array.isArray(value)

/**
 * A schema of several shapes that picks the shape by looking at the object (`pick`), so that a problem
 * names that shape's own fields, not every shape the value could have had (as a union's would). A value
 * that is no object, or that `pick` finds no shape for, fails with `expected`.
 */
export const routedBy = <A, I>(
  pick: (value: Record<string, unknown>) => Schema.Schema<A, I> | undefined,
  to: Schema.Schema<A, I>,
  expected: string
): Schema.Schema<A, unknown> =>
  Schema.transformOrFail(Schema.Unknown, Schema.typeSchema(to), {
    strict: true,
    decode: (value, options, ast) => {
      const schema = isRecord(value) ? pick(value) : undefined
      return schema === undefined
        ? ParseResult.fail(new ParseResult.Type(ast, value, expected))
        : ParseResult.decodeUnknown(schema)(value, options)
    },
    encode: (value) => ParseResult.succeed(value)
  })

const maxMessage = 300

/** `$`, `$.cases[3].expect[0]`, `$.surfaces["my surface"]`. */
export const jsonPath = (segments: ReadonlyArray<PropertyKey>): string =>
  segments.reduce<string>((acc, segment) => {
    if (typeof segment === "number") return `${acc}[${segment}]`
    const key = String(segment)
    return /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(key) ? `${acc}.${key}` : `${acc}[${inert(JSON.stringify(clip(key)))}]`
  }, "$")

const clip = (text: string, limit = maxMessage): string => text.length > limit ? `${text.slice(0, limit)}…` : text

/** For a string where one of several names was expected (`"a" | "b"`), the nearest of them, suggested. */
const nearestLiteral = (expected: string, actual: string): string => {
  const names = /^"[^"]*"(?: \| "[^"]*")+$/.test(expected) ? [...expected.matchAll(/"([^"]*)"/g)].map((m) => m[1]!) : []
  const given = /^"(.*)"$/s.exec(actual)?.[1]
  return names.length === 0 || given === undefined ? "" : didYouMean(given, names, (name) => JSON.stringify(name))
}

const reword = (issue: ParseResult.ArrayFormatterIssue): string => {
  switch (issue._tag) {
    case "Missing":
      return "missing"
    case "Unexpected":
      return clip(issue.message.replace(/^is unexpected, expected: /, "unknown key; expected one of "), 4 * maxMessage)
    default: {
      // What was expected comes from the schema and is shown whole (every kind's name, say); what
      // the file held is clipped, so a huge value cannot hide it.
      const found = /^Expected (.*), actual (.*)$/s.exec(issue.message)
      return found === null
        ? clip(issue.message)
        : `expected ${clip(found[1]!, 4 * maxMessage)}, got ${clip(found[2]!)}${nearestLiteral(found[1]!, found[2]!)}`
    }
  }
}

/** The problems a parse error holds, each at its JSON path. */
export const problemsOf = (error: ParseResult.ParseError): ReadonlyArray<Problem> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    path: jsonPath(issue.path),
    message: inert(reword(issue))
  }))

/** Parses JSON text, naming the line and column of a syntax error. */
export const parseJson = (file: string, text: string): Either.Either<unknown, BadInput> => {
  const source = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text
  try {
    return Either.right(JSON.parse(source))
  } catch (error) {
    const message = describeJsonError(source, error instanceof Error ? error.message : String(error))
    return Either.left(
      new BadInput({ file, problems: [{ path: "", message: `not valid JSON: ${inert(clip(message))}` }] })
    )
  }
}

/** How strictly to treat keys the schema does not name: input we own rejects them, recorded turns ignore them. */
export type Strictness = "strict" | "lenient"

/** Nesting no file of the contract needs, and that checking would have to recurse through. */
export const maxDepth = 256

/** The JSON path of the first value nested deeper than `limit`, found without recursion. */
export const tooDeep = (value: unknown, limit = maxDepth): string | undefined => {
  // A cheap pass first: most values are shallow, and only a deep one needs its path.
  const depths: Array<[unknown, number]> = [[value, 0]]
  let deepest = 0
  while (depths.length > 0 && deepest < limit) {
    const [current, depth] = depths.pop()!
    if (current === null || typeof current !== "object") continue
    deepest = Math.max(deepest, depth)
    for (const child of Object.values(current)) {
      if (child !== null && typeof child === "object") depths.push([child, depth + 1])
    }
  }
  if (deepest < limit) return undefined
  const stack: Array<[unknown, ReadonlyArray<PropertyKey>]> = [[value, []]]
  while (stack.length > 0) {
    const [current, path] = stack.pop()!
    if (current === null || typeof current !== "object") continue
    if (path.length >= limit) return jsonPath(path)
    for (const [key, child] of Object.entries(current)) {
      stack.push([child, [...path, Array.isArray(current) ? Number(key) : key]])
    }
  }
  return undefined
}

/** The most duplicate keys reported for one file: a file with more has one mistake, repeated. */
const maxDuplicates = 100

/**
 * Every key given twice in one object of valid JSON text, at its JSON path (`$.cases[0].expect[0].kind`):
 * `JSON.parse` keeps the last, so `{"floor": 0.95, "floor": 0.9}` would silently mean 0.9. One pass
 * over the text without recursion, however deep it nests; strings are skipped whole.
 */
export const duplicateKeys = (text: string): ReadonlyArray<Problem> => {
  // One frame per open object or array: an object's keys so far, or `undefined` for an array; and
  // where the frame is, its current key or index.
  const keys: Array<Set<string> | undefined> = []
  const at: Array<string | number> = []
  const problems: Array<Problem> = []
  let expectKey = false
  for (let i = 0; i < text.length && problems.length < maxDuplicates; i++) {
    switch (text.charCodeAt(i)) {
      case 0x7b: // {
        keys.push(new Set())
        at.push("")
        expectKey = true
        break
      case 0x5b: // [
        keys.push(undefined)
        at.push(0)
        expectKey = false
        break
      case 0x7d: // }
      case 0x5d: // ]
        keys.pop()
        at.pop()
        expectKey = false
        break
      case 0x2c: { // ,
        const top = keys.length - 1
        if (keys[top] === undefined) at[top] = (at[top] as number) + 1
        else expectKey = true
        break
      }
      case 0x22: { // "
        // The closing quote is the first one after an even number of backslashes.
        let end = text.indexOf("\"", i + 1)
        for (;;) {
          let backslashes = 0
          while (text.charCodeAt(end - 1 - backslashes) === 0x5c) backslashes++
          if (backslashes % 2 === 0) break
          end = text.indexOf("\"", end + 1)
        }
        if (expectKey) {
          const raw = text.slice(i + 1, end)
          const key = raw.includes("\\") ? (JSON.parse(text.slice(i, end + 1)) as string) : raw
          const top = keys.length - 1
          const seen = keys[top]!
          if (seen.has(key)) {
            const path = jsonPath([...at.slice(0, top), key])
            problems.push({
              path: inert(path.length > 200 ? `${path.slice(0, 200)}…` : path),
              message: `duplicate key ${inert(clip(JSON.stringify(key)))}`
            })
          } else seen.add(key)
          at[top] = key
          expectKey = false
        }
        i = end
        break
      }
    }
  }
  return problems
}

/** Decodes a parsed value, reporting every problem with its JSON path. */
export const decodeValue = <A, I>(
  schema: Schema.Schema<A, I>,
  file: string,
  value: unknown,
  strictness: Strictness = "strict"
): Either.Either<A, BadInput> => {
  // The schema recurses into what it checks and into what it reports (a union even turns the
  // offending value into a string), so a value nested too deep is refused before it is checked.
  // Hot paths with a fast decoder never come here for valid input.
  const deep = tooDeep(value)
  if (deep !== undefined) {
    const at = deep.length > 80 ? `${deep.slice(0, 80)}…` : deep
    return Either.left(
      new BadInput({ file, problems: [{ path: at, message: `nested more than ${maxDepth} levels deep` }] })
    )
  }
  return Schema.decodeUnknownEither(schema, {
    errors: "all",
    onExcessProperty: strictness === "strict" ? "error" : "ignore"
  })(value).pipe(Either.mapLeft((error) => new BadInput({ file, problems: problemsOf(error) })))
}

/**
 * A decoder that skips the schema for valid input, on hot paths: it returns what the schema would
 * decode the value to, or `undefined` to leave the value to the schema (for its precise problems). It
 * may never accept what the schema rejects.
 */
export type FastDecoder<A> = (value: unknown) => A | undefined

/**
 * Parses and decodes JSON text in one step, trying `fast` first when given; strict text with a key
 * given twice in one object is refused, naming each at its JSON path.
 */
export const decodeJson = <A, I>(
  schema: Schema.Schema<A, I>,
  file: string,
  text: string,
  strictness: Strictness = "strict",
  fast?: FastDecoder<A>
): Either.Either<A, BadInput> =>
  Either.flatMap(parseJson(file, text), (value) => {
    // Only input the suite owns: recordings and traces are read leniently, and on the hot path.
    if (strictness === "strict") {
      const duplicates = duplicateKeys(text)
      if (duplicates.length > 0) return Either.left(new BadInput({ file, problems: duplicates }))
    }
    const decoded = fast?.(value)
    return decoded !== undefined ? Either.right(decoded) : decodeValue(schema, file, value, strictness)
  })
