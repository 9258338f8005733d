/** Words the product's messages share: a count with its noun, and the pronoun for a count of things. */

/** `n` and its noun, plural unless `n` is 1: `1 case`, `2 cases`, `2 replies` (with `many`). */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`

/** The object pronoun for `n` things: `it` for one, else `them`. */
export const them = (n: number): string => n === 1 ? "it" : "them"

/** The subject pronoun for `n` things: `it` for one, else `they`. */
export const they = (n: number): string => n === 1 ? "it" : "they"
