import { Schema } from "effect"
import { RE2JS } from "re2js"
import { drafted } from "../Schema/Fields.js"
import { showCount } from "../Schema/Shown.js"
import { fail, pass, shown } from "./Grader.js"
import { defineKind, type Grader, textArgument } from "./Kind.js"

const flagBits: Readonly<Record<string, number>> = { i: RE2JS.CASE_INSENSITIVE, m: RE2JS.MULTILINE, s: RE2JS.DOTALL }

/** Compiled patterns, by flags and pattern: a golden set compiles each once, however many turns it grades. */
const compiled = new Map<string, RE2JS>()
const maxCompiled = 1000

/**
 * A pattern compiled under RE2's semantics, whose matching takes time linear in the text (no
 * backtracking, so no pattern can hang on a hostile answer), or why it does not compile.
 */
export const compilePattern = (pattern: string, flags = ""): RE2JS | string => {
  const key = `${flags}/${pattern}`
  const known = compiled.get(key)
  if (known !== undefined) return known
  try {
    const bits = [...flags].reduce((all, flag) => all | (flagBits[flag] ?? 0), 0)
    const regex = RE2JS.compile(pattern, bits)
    if (compiled.size >= maxCompiled) compiled.clear()
    compiled.set(key, regex)
    return regex
  } catch (error) {
    return (error instanceof Error ? error.message : String(error)).replace(/^error parsing regexp: /, "")
  }
}

const isFlags = (flags: string): boolean => /^[ims]*$/.test(flags) && new Set(flags).size === flags.length

/** A pattern RE2 compiles. */
const Pattern = Schema.String.pipe(
  Schema.minLength(1, { message: () => "expected a non-empty pattern" }),
  Schema.filter((pattern) => {
    const regex = compilePattern(pattern)
    return typeof regex === "string"
      ? `expected a pattern in RE2 syntax (no lookaround or backreferences): ${regex}`
      : true
  })
)

/** The answer matches the pattern (with `negate`, does not), under RE2's linear-time engine. */
export const AnswerMatches = Schema.Struct({
  kind: Schema.Literal("answer-matches"),
  pattern: Pattern,
  flags: Schema.optionalWith(
    Schema.String.pipe(
      Schema.filter((flags) => isFlags(flags), {
        message: () => "expected flags of i, m and s, each at most once, such as \"is\""
      })
    ),
    { exact: true }
  ),
  negate: Schema.optionalWith(Schema.Boolean, { exact: true }),
  drafted
})

/**
 * The answer matches `pattern` under `flags`, or with `negate` does not: `answer does not match
 * /refund within \d+ days/i`, `answer matches /rm -rf \S+/: "rm -rf /var/cache"` (the text it matched, clipped).
 */
export const answerMatches: Grader<typeof AnswerMatches.Type> = (
  { flags = "", negate = false, pattern },
  { answer }
) => {
  const regex = compilePattern(pattern, flags)
  const shownPattern = `/${shown(pattern)}/${flags}`
  // The schema compiled it; an expectation made in code without the schema fails with the reason.
  if (typeof regex === "string") return fail(`pattern ${shownPattern} does not compile: ${regex}`)
  // Whether it matches is one pass of RE2's automaton, milliseconds even for 10 MB.
  const matches = regex.test(answer)
  if (!negate) return matches ? pass : fail(`answer does not match ${shownPattern}`)
  if (!matches) return pass
  // Where it matches takes the engine that tracks submatches, many times slower: asked only of an
  // answer short enough for it to stay well under a second whatever the pattern.
  if (answer.length > maxLocated) {
    return fail(`answer matches ${shownPattern} somewhere in its ${showCount(answer.length)} characters`)
  }
  const matcher = regex.matcher(answer)
  return fail(`answer matches ${shownPattern}: ${JSON.stringify(shown(matcher.find() ? matcher.group() ?? "" : ""))}`)
}

/** The longest answer whose matched text a negated fact quotes. */
const maxLocated = 262_144

export const answerMatchesKind = defineKind({
  kind: "answer-matches",
  schema: AnswerMatches,
  fields: ["pattern", "flags", "negate"],
  fast: (value) => {
    const { flags, negate, pattern } = value
    if (typeof pattern !== "string" || pattern.length === 0 || typeof compilePattern(pattern) === "string") {
      return undefined
    }
    if ("flags" in value && !(typeof flags === "string" && isFlags(flags))) return undefined
    if ("negate" in value && typeof negate !== "boolean") return undefined
    return {
      pattern,
      ...("flags" in value ? { flags: flags as string } : {}),
      ...("negate" in value ? { negate: negate as boolean } : {})
    }
  },
  grade: answerMatches,
  names: () => [],
  argument: textArgument("pattern", "PATTERN"),
  doc: {
    fields: "`pattern`, `flags`?, `negate`?",
    passes:
      "the answer matches `pattern` (with `negate: true`, does not), under RE2's semantics: matching takes time " +
      "linear in the answer, so no pattern can hang on a hostile one. `flags` is a string of `i` (ignore case), `m` " +
      "(`^` and `$` at line breaks) and `s` (`.` matches a line break). A pattern RE2 does not compile (lookaround, " +
      "backreferences) is refused at its JSON path",
    fact: "`answer does not match /refund within \\d+ days/i`; negated, with the text it matched, clipped: `answer " +
      "matches /rm -rf \\S+/: \"rm -rf /var/cache\"` (for an answer over 262,144 characters, where is not searched: " +
      "`answer matches /rm -rf \\S+/ somewhere in its 10,485,760 characters`)",
    brief: "the answer matches the pattern, or with `negate` does not (RE2 syntax, linear time)"
  },
  example: {
    expect: { kind: "answer-matches", pattern: "rm -rf \\S+", negate: true },
    passes: { answer: "Clear the cache from the Harbor console: Settings → Cache → Purge." },
    fails: { answer: "Just run rm -rf /var/cache and restart." },
    fact: "answer matches /rm -rf \\S+/: \"rm -rf /var/cache\""
  }
})
