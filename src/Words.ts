/** Words the product's messages share: a count with its noun, and the pronoun for a count of things. */

/** `n` and its noun, plural unless `n` is 1: `1 case`, `2 cases`, `2 replies` (with `many`). */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`

/** The object pronoun for `n` things: `it` for one, else `them`. */
export const them = (n: number): string => n === 1 ? "it" : "them"

/** The subject pronoun for `n` things: `it` for one, else `they`. */
export const they = (n: number): string => n === 1 ? "it" : "they"

/** The number of single-character edits (insertions, deletions, substitutions) that make `a` into `b`. */
export const editDistance = (a: string, b: string): number => {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const next = [i]
    for (let j = 1; j <= b.length; j++) {
      next[j] = Math.min(row[j]! + 1, next[j - 1]! + 1, row[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1))
    }
    row = next
  }
  return row[b.length]!
}

/**
 * The candidate a misspelt word most likely meant: the nearest by edit distance, when it is within a
 * third of the word's length (at least 1, at most 3) and no other candidate is as near.
 */
export const nearest = (word: string, candidates: ReadonlyArray<string>): string | undefined => {
  const limit = Math.min(3, Math.max(1, Math.floor(word.length / 3)))
  const scored = candidates.map((c) => [c, editDistance(word.toLowerCase(), c.toLowerCase())] as const)
    .filter(([, d]) => d <= limit)
    .sort((x, y) => x[1] - y[1])
  const [best, second] = scored
  return best === undefined || (second !== undefined && second[1] === best[1]) ? undefined : best[0]
}

/** ` (did you mean X?)` for the candidate a misspelt word most likely meant (shown by `show`), else nothing. */
export const didYouMean = (
  word: string,
  candidates: ReadonlyArray<string>,
  show: (name: string) => string = (name) => name
): string => {
  const near = nearest(word, candidates)
  return near === undefined ? "" : ` (did you mean ${show(near)}?)`
}
