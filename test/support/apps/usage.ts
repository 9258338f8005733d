/**
 * The tokens the test apps' scripted models report, as a provider counts them: the n-th model call of
 * a turn (1, 2, …) reads the conversation so far, which grows with each call, and writes a little.
 */

/** The tokens one model call used. */
export interface CallUsage {
  readonly inputTokens: number
  readonly outputTokens: number
}

/** The tokens the n-th model call of a turn (1, 2, …) reports. */
export const modelCallUsage = (n: number): CallUsage => ({ inputTokens: 100 * n + 20, outputTokens: 10 * n + 3 })

/** The tokens a turn of `calls` model calls reports in all: its calls' counts summed. */
export const turnUsage = (calls: number): CallUsage => {
  let inputTokens = 0
  let outputTokens = 0
  for (let n = 1; n <= calls; n++) {
    inputTokens += modelCallUsage(n).inputTokens
    outputTokens += modelCallUsage(n).outputTokens
  }
  return { inputTokens, outputTokens }
}
