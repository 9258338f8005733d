/** What the AI SDK 6 mock model (`MockLanguageModelV3`) streams in the tests that script it by hand. */

/** A model call's tokens in the v3 provider's shape: one in, one out. */
export const oneTokenUsage = {
  inputTokens: { total: 1, noCache: 1, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: 1, text: 1, reasoning: 0 }
}

/** The parts of the v3 provider stream those tests play. */
export type V3StreamPart =
  | { readonly type: "stream-start"; readonly warnings: Array<never> }
  | { readonly type: "tool-call"; readonly toolCallId: string; readonly toolName: string; readonly input: string }
  | { readonly type: "text-start" | "text-end"; readonly id: string }
  | { readonly type: "text-delta"; readonly id: string; readonly delta: string }
  | { readonly type: "error"; readonly error: Error }
  | {
    readonly type: "finish"
    readonly finishReason: { readonly unified: "stop" | "tool-calls"; readonly raw: string }
    readonly usage: typeof oneTokenUsage
  }
