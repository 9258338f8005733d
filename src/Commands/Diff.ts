/** `eval diff`: what changed between two runs' results files; `--check` fails on any regression. */
import type { FileSystem } from "@effect/platform"
import { Console, Effect, Either } from "effect"
import { withAllowDifferentSets } from "../Application/Flags.js"
import { type CommandError, GateFailed } from "../Schema/Errors.js"
import { inertLines } from "../Schema/Inert.js"
import { diffRuns } from "../Scorecard/Diff.js"
import { renderDiffMarkdown } from "../Scorecard/Render/DiffMarkdown.js"
import { renderDiffPretty } from "../Scorecard/Render/DiffText.js"
import { readResults } from "../Scorecard/ResultsStore.js"
import { useColor } from "../Terminal.js"
import type { DiffArgs } from "./Options.js"

/** `eval diff OLD.json NEW.json`. */
export const diffHandler = (args: DiffArgs): Effect.Effect<void, CommandError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const older = yield* readResults(args.older)
    const newer = yield* readResults(args.newer)
    const diff = yield* diffRuns(older, newer, {
      allowDifferentSets: args.allowDifferentSets,
      names: [args.older, args.newer]
    })
      .pipe(Either.mapLeft(withAllowDifferentSets))
    yield* Console.log(
      args.format === "json"
        ? inertLines(JSON.stringify(diff, null, 2))
        : args.format === "markdown"
        ? renderDiffMarkdown(diff, args.older)
        : renderDiffPretty(diff, { color: useColor(), against: args.older })
    )
    if (args.check && diff.regressions.length > 0) return yield* new GateFailed({ reason: "regressions" })
  })
