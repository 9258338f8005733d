/**
 * A merge: the results of the shards of one golden set (`run --shard i/n` on n machines) made into the
 * results of the whole, which the floor, `--check` and `--ratchet` then apply to as to any full run,
 * ending as a run does. Overlapping, missing or mismatched shards are refused.
 */
import type { FileSystem } from "@effect/platform"
import { Effect } from "effect"
import { programName } from "../ProgramName.js"
import { refuseOverwritingInputs, type ReporterSpec } from "../Reporters/Reports.js"
import { loadGoldenSet } from "../Runner/GoldenSet.js"
import { BadInput, type CommandError, UsageError } from "../Schema/Errors.js"
import type { CaseResult, RunResult, ShardInfo } from "../Schema/Result.js"
import { quoted } from "../Schema/Shown.js"
import { caseSetFingerprint, shortFingerprint } from "../Scorecard/CaseSet.js"
import { readResults } from "../Scorecard/ResultsStore.js"
import { repeatOf, summarize } from "../Scorecard/Scorecard.js"
import { flagWords } from "./Flags.js"
import { floorToHold, noFloorText } from "./Floor.js"
import { concludeRun, sayFor } from "./Run.js"

/**
 * Checks that `shards` (file and results) are the n parts of one run over `whole`, each once, and
 * returns the cases of all of them in golden-set order.
 */
export const mergeShards = (
  shards: ReadonlyArray<{ readonly file: string; readonly result: RunResult }>,
  whole: { readonly ids: ReadonlyArray<string>; readonly fingerprint: string }
): Effect.Effect<{ readonly cases: ReadonlyArray<CaseResult>; readonly repeat: number }, BadInput | UsageError> =>
  Effect.gen(function*() {
    const parts: Array<{ file: string; result: RunResult; shard: ShardInfo }> = []
    for (const { file, result } of shards) {
      if (result.shard === undefined) {
        return yield* new BadInput({
          file,
          problems: [{
            path: "$.shard",
            message: `expected the results of a sharded run (${programName} run --shard i/n --json FILE)`
          }]
        })
      }
      if (result.bailed === true) {
        return yield* new BadInput({
          file,
          problems: [{ path: "$.bailed", message: `the shard ${flagWords.stoppedEarly}: run it in full to merge it` }]
        })
      }
      parts.push({ file, result, shard: result.shard })
    }
    const [first, ...rest] = parts
    if (first === undefined) return yield* new UsageError({ message: "name the shard results to merge" })
    for (const part of rest) {
      if (part.shard.count !== first.shard.count) {
        return yield* new UsageError({
          message: `${part.file} is shard ${part.shard.index}/${part.shard.count}, but ${first.file} is one of ` +
            `${first.shard.count}: merge the shards of one run`
        })
      }
      if (part.shard.of !== first.shard.of) {
        return yield* new UsageError({
          message: `${part.file} and ${first.file} are shards of different golden sets (${
            shortFingerprint(part.shard.of)
          } and ${shortFingerprint(first.shard.of)}): merge the shards of one run`
        })
      }
      if (repeatOf(part.result) !== repeatOf(first.result)) {
        return yield* new UsageError({
          message: `${part.file} repeated each case ${repeatOf(part.result)} times and ${first.file} ${
            repeatOf(first.result)
          }: merge the shards of one run`
        })
      }
    }
    if (first.shard.of !== whole.fingerprint) {
      return yield* new UsageError({
        message: `the shards ran over another golden set (${shortFingerprint(first.shard.of)}) than the one here (${
          shortFingerprint(whole.fingerprint)
        }): merge them with the cases file they ran with (--cases)`
      })
    }
    const byIndex = new Map<number, string>()
    for (const part of parts) {
      const seen = byIndex.get(part.shard.index)
      if (seen !== undefined) {
        return yield* new UsageError({
          message:
            `shard ${part.shard.index}/${part.shard.count} appears twice (${seen} and ${part.file}): overlapping shards`
        })
      }
      byIndex.set(part.shard.index, part.file)
    }
    const missing = Array.from({ length: first.shard.count }, (_, i) => i + 1).filter((i) => !byIndex.has(i))
    if (missing.length > 0) {
      return yield* new UsageError({
        message: `missing shard${missing.length === 1 ? "" : "s"} ${
          missing.map((i) => `${i}/${first.shard.count}`).join(", ")
        }: merge every shard of the run`
      })
    }
    const byId = new Map<string, { file: string; result: CaseResult }>()
    for (const part of parts) {
      for (const c of part.result.cases) {
        const seen = byId.get(c.id)
        if (seen !== undefined) {
          return yield* new UsageError({
            message: `case ${quoted(c.id)} is in ${seen.file} and ${part.file}: overlapping shards`
          })
        }
        byId.set(c.id, { file: part.file, result: c })
      }
    }
    const absent = whole.ids.filter((id) => !byId.has(id))
    if (absent.length > 0) {
      return yield* new UsageError({
        message: `no shard holds case${absent.length === 1 ? "" : "s"} ${absent.slice(0, 5).map(quoted).join(", ")}${
          absent.length > 5 ? ` and ${absent.length - 5} more` : ""
        }: the shards do not cover the golden set`
      })
    }
    const inWhole = new Set(whole.ids)
    const extra = [...byId.keys()].filter((id) => !inWhole.has(id))
    if (extra.length > 0) {
      return yield* new UsageError({
        message: `case ${quoted(extra[0]!)} (${byId.get(extra[0]!)!.file}) is not in the golden set`
      })
    }
    return { cases: whole.ids.map((id) => byId.get(id)!.result), repeat: repeatOf(first.result) }
  })

/** What a merge does: `eval merge`'s arguments, its reporters read. */
export interface MergePlan {
  /** The shards' results files. */
  readonly files: ReadonlyArray<string>
  readonly cases: string
  readonly surfaces: string
  readonly baseline: string
  readonly check: boolean
  readonly ratchet: boolean
  readonly reporters: ReadonlyArray<ReporterSpec>
}

/** Merges the shards' results files a plan names, then holds the floor. */
export const mergeRuns = (args: MergePlan): Effect.Effect<void, CommandError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const { reporters } = args
    const set = yield* loadGoldenSet(args.cases, args.surfaces)
    yield* refuseOverwritingInputs(reporters, [
      [set.casesFile, "the golden set"],
      [set.surfacesFile, "the catalog"],
      [args.baseline, "the baseline"],
      ...args.files.map((file) => [file, "a shard's results"] as const)
    ])
    const shards = yield* Effect.forEach(
      args.files,
      (file) => Effect.map(readResults(file), (result) => ({ file, result }))
    )
    const fingerprint = caseSetFingerprint(set.cases)
    const whole = yield* mergeShards(shards, { ids: set.cases.map((c) => c.id), fingerprint })
    const held = yield* floorToHold(args, whole.repeat, undefined)
    if (held.floor === null && held.noFloor._tag === "OtherSet") yield* sayFor(reporters)(noFloorText(held.noFloor))
    const result = summarize(whole.cases, fingerprint, held.floor, { repeat: whole.repeat })
    yield* concludeRun({
      set,
      plan: { baseline: args.baseline, reporters, check: args.check, ratchet: args.ratchet },
      result,
      context: {
        casesFile: set.casesFile,
        ...(held.floor === null ? { noFloor: noFloorText(held.noFloor) } : {}),
        ...(held.history.length === 0 ? {} : { history: held.history })
      }
    })
  })
