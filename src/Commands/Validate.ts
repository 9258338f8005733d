/** `eval validate`: the committed inputs, checked without grading anything. */
import type { FileSystem } from "@effect/platform"
import { Console, Effect, Option } from "effect"
import { noFloorYet } from "../ProgramName.js"
import { loadGoldenSet } from "../Runner/GoldenSet.js"
import type { CommandError } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import { catalogSuggestions } from "../Schema/Validate.js"
import { readBaseline } from "../Scorecard/BaselineStore.js"
import { showRate } from "../Scorecard/Scorecard.js"
import { plural } from "../Words.js"
import type { ValidateArgs } from "./Options.js"

/** Checks the catalog, the golden set against it, and the baseline when there is one. */
export const validateHandler = (args: ValidateArgs): Effect.Effect<void, CommandError, FileSystem.FileSystem> =>
  Effect.gen(function*() {
    const set = yield* loadGoldenSet(args.cases, args.surfaces)
    const baseline = yield* readBaseline(args.baseline)
    const surfaces = [...new Set(set.cases.map((c) => c.surface))]
    yield* Console.log(
      `${set.casesFile}: ${plural(set.cases.length, "case")} over ${plural(surfaces.length, "surface")} (${
        surfaces.join(", ")
      }), valid against ${set.surfacesFile}`
    )
    for (const suggestion of catalogSuggestions(set.catalog)) {
      yield* Console.log(`${inert(set.surfacesFile)}: ${suggestion.path}: suggestion: ${suggestion.message}`)
    }
    yield* Console.log(
      Option.match(baseline, {
        onNone: () => `${args.baseline}: ${noFloorYet}`,
        onSome: (b) =>
          `${args.baseline}: floor ${showRate(b.floor)}${
            b.repeat === undefined ? "" : ` for runs with --repeat ${b.repeat}`
          }`
      })
    )
  })
