/**
 * `eval merge`: the results of the shards of one golden set joined into the results of the whole,
 * then held to the floor as any full run (`Application/Merge.ts`). The command reads its reporters.
 */
import { Effect } from "effect"
import { mergeRuns } from "../Application/Merge.js"
import { parseReporters } from "../Reporters/Reports.js"
import type { MergeArgs } from "./Options.js"

/** `eval merge`. */
export const mergeHandler = (args: MergeArgs) =>
  Effect.flatMap(parseReporters(args.reporter, args.json), (reporters) => mergeRuns({ ...args, reporters }))
