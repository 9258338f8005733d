/** Words the product's messages share: a count with its noun. */

/** `n` and its noun, plural unless `n` is 1: `1 case`, `2 cases`, `2 replies` (with `many`). */
export const plural = (n: number, one: string, many = `${one}s`): string => `${n} ${n === 1 ? one : many}`
