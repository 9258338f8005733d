/**
 * `eval report RESULTS.json`: the reporters over a results file written earlier (`run --json`,
 * `merge --json`), so that CI runs the golden set once and renders any report from its results
 * afterwards — in a later step, another job, or on a laptop. Nothing is run or graded again: the
 * verdict is the one the file records, and the floor it was held to is the one it names.
 */
import { FileSystem } from "@effect/platform"
import { Effect, Either, Option } from "effect"
import { noFloorYet, programName } from "../ProgramName.js"
import type { Baseline } from "../Schema/Baseline.js"
import type { CommandError } from "../Schema/Errors.js"
import type { RunResult } from "../Schema/Result.js"
import { obtainedNoTurn } from "../Scorecard/Attempts.js"
import { readBaseline } from "../Scorecard/BaselineStore.js"
import { diffRuns } from "../Scorecard/Diff.js"
import { floorHistory } from "../Scorecard/Ratchet.js"
import { readResults } from "../Scorecard/ResultsStore.js"
import { repeatOf } from "../Scorecard/Scorecard.js"
import { withAllowDifferentSets } from "./Hints.js"
import { parseReporters, refuseOverwritingInputs, writeReports } from "./Report.js"

/** The arguments of `eval report`. */
export interface ReportArgs {
  /** The results file to render. */
  readonly results: string
  readonly reporter: ReadonlyArray<string>
  /** An earlier results file to show the changes since. */
  readonly compare: Option.Option<string>
  readonly allowDifferentSets: boolean
  /** The baseline whose history the reports show; it may be absent. */
  readonly baseline: string
  /** The golden-set file the annotations and JUnit file attributes name; it may be absent. */
  readonly cases: string
}

/**
 * What the scorecard says of a results file held to no floor, in the words the run would have used
 * where the file and the baseline tell why: a run stopped early or a shard (the file records it), one
 * that measured nothing (no case has a turn), no floor committed, or a floor set at another K; else a
 * `--filter`ed run or one from before the floor was committed, which the file cannot tell apart.
 */
export const noFloorOf = (result: RunResult, baseline: Option.Option<Baseline>, baselineFile: string): string => {
  if (result.bailed === true) return "the run stopped early (--bail); a partial run is held to no floor"
  if (result.shard !== undefined) {
    return `shard ${result.shard.index}/${result.shard.count} (${result.total} cases): ${programName} merge applies the floor to the whole`
  }
  if (obtainedNoTurn(result.cases)) {
    return "no case obtained its turn: the run measured nothing"
  }
  if (Option.isNone(baseline)) return noFloorYet
  const [set, ran] = [repeatOf(baseline.value), repeatOf(result)]
  if (set !== ran) {
    return `the floor in ${baselineFile} was set with --repeat ${set}; it is not applied to a run with --repeat ${ran} (compare like with like)`
  }
  return "held to no floor when it ran: a --filter'ed run, or one from before the floor was committed"
}

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
      ...(result.durationMs === undefined ? {} : { durationMs: result.durationMs }),
      ...(Option.isNone(endedAt) ? {} : { endedAt: endedAt.value }),
      ...(diff === undefined ? {} : { diff }),
      ...(history.length === 0 ? {} : { history })
    })
  })
