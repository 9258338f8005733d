/**
 * `eval report RESULTS.json`: the reporters over a results file written earlier (`run --json`,
 * `merge --json`), so that CI runs the golden set once and renders any report from its results
 * afterwards — in a later step, another job, or on a laptop. Nothing is run or graded again: the
 * verdict is the one the file records, and the floor it was held to is the one it names.
 */
import { FileSystem } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { withAllowDifferentSets } from "../Application/Flags.js"
import { noFloorOf } from "../Application/Floor.js"
import { parseReporters, refuseOverwritingInputs, writeReports } from "../Reporters/Reports.js"
import type { CommandError } from "../Schema/Errors.js"
import { readBaseline } from "../Scorecard/BaselineStore.js"
import { diffRuns } from "../Scorecard/Diff.js"
import { floorHistory } from "../Scorecard/Ratchet.js"
import { readResults } from "../Scorecard/ResultsStore.js"
import type { ReportArgs } from "./Options.js"

/** When a file was last written, if that can be told: for a results file, when its run ended. */
const writtenAt = (file: string): Effect.Effect<Option.Option<Date>, never, FileSystem.FileSystem> =>
  Effect.flatMap(FileSystem.FileSystem, (fs) => fs.stat(file)).pipe(
    Effect.map((info) => info.mtime),
    Effect.orElseSucceed(() => Option.none<Date>())
  )

/** `eval report RESULTS.json`. */
export const reportHandler = (args: ReportArgs): Effect.Effect<void, CommandError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const reporters = yield* parseReporters(args.reporter, Option.none())
    const compareFile = Option.getOrUndefined(args.compare)
    yield* refuseOverwritingInputs(reporters, [
      [args.results, "the results it reports"],
      ...(compareFile === undefined ? [] : [[compareFile, "the results compared with"] as const]),
      [args.baseline, "the baseline"],
      [args.cases, "the golden set"]
    ])
    const result = yield* readResults(args.results)
    const diff = compareFile === undefined ? undefined : {
      diff: yield* diffRuns(yield* readResults(compareFile), result, {
        allowDifferentSets: args.allowDifferentSets,
        names: [compareFile, args.results]
      }).pipe(Either.mapLeft(withAllowDifferentSets)),
      against: compareFile
    }
    const baseline = yield* readBaseline(args.baseline)
    const history = Option.match(baseline, { onNone: () => [], onSome: floorHistory })
    const endedAt = yield* writtenAt(args.results)
    yield* writeReports(result, reporters, {
      casesFile: args.cases,
      noFloor: noFloorOf(result, baseline, args.baseline),
      durationMs: result.durationMs,
      ...(Option.isNone(endedAt) ? {} : { endedAt: endedAt.value }),
      diff,
      ...(history.length === 0 ? {} : { history })
    })
  })
