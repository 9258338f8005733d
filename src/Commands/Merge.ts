/**
 * `eval merge`: the results of the shards of one golden set joined into the results of the whole,
 * then held to the floor as any full run (`Application/Merge.ts`).
 */
import { mergeRuns } from "../Application/Merge.js"
import type { MergeArgs } from "./Options.js"

/** `eval merge`. */
export const mergeHandler = (args: MergeArgs) => mergeRuns(args)
