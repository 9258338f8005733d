/**
 * `eval import --otel FILE… --out DIR`: read OpenTelemetry traces, link their turns to the golden set's
 * cases and write each linked turn as a recorded turn (`DIR/<case id>.json`; a conversation case's
 * turns in order, one a step), to grade with
 * `eval run --fixtures DIR`. Turns it could not link, and cases whose linked turn cannot be used, are
 * listed with the reason.
 */
import { FileSystem, Path } from "@effect/platform"
import { Console, Effect, Either, Option } from "effect"
import { writeAtomically } from "../Files.js"
import { describeUnlinked, loadOtelLinks } from "../Otel/Source.js"
import { turnIdOf } from "../Otel/Turn.js"
import { programName } from "../ProgramName.js"
import { loadGoldenSet } from "../Runner/GoldenSet.js"
import { encodeRecording, fixturePath } from "../Runner/SurfaceClient.js"
import { isConversation, stepAction } from "../Schema/Case.js"
import { UsageError } from "../Schema/Errors.js"
import { inert } from "../Schema/Inert.js"
import type { RecordedConversation, RecordedTurn } from "../Schema/Trace.js"
import { plural } from "../Words.js"
import type { ImportArgs } from "./Options.js"

/** `eval import`. */
export const importHandler = (args: ImportArgs) =>
  Effect.gen(function*() {
    if (args.otel.length === 0) {
      return yield* new UsageError({
        message:
          `${programName} import needs the traces: --otel FILE (repeatable; a folder reads its .json and .jsonl files)`
      })
    }
    const set = yield* loadGoldenSet(args.cases, args.surfaces)
    const links = yield* loadOtelLinks(args.otel, set)
    const fs = yield* FileSystem.FileSystem
    const path = yield* Path.Path
    yield* fs.makeDirectory(args.out, { recursive: true }).pipe(
      Effect.mapError(() => new UsageError({ message: `--out ${args.out}: cannot create that folder` }))
    )
    const idWidth = Math.max(...set.cases.map((c) => c.id.length))
    const written: Array<string> = []
    const refused: Array<string> = []
    for (const testCase of set.cases) {
      const linked = links.byCase.get(testCase.id)
      if (linked === undefined) continue
      if (Either.isLeft(linked.turn)) {
        refused.push(`  ${turnIdOf(linked.read)}  case ${testCase.id}: ${inert(linked.turn.left)}`)
        continue
      }
      let recorded: RecordedTurn | RecordedConversation
      if (isConversation(testCase)) {
        // A conversation is recorded whole or not at all: a recording missing a step would grade as a failure.
        const steps = linked.steps ?? []
        const missing = steps.findIndex((step) => Either.isLeft(step.turn))
        if (missing >= 0 || steps.length !== testCase.turns.length) {
          const why = missing >= 0 ? Either.getLeft(steps[missing]!.turn).pipe(Option.getOrElse(() => "")) : ""
          refused.push(`  ${turnIdOf(linked.read)}  case ${testCase.id}: ${inert(why)}`)
          continue
        }
        recorded = {
          caseId: testCase.id,
          turns: testCase.turns.map((step, i) => ({
            ...stepAction(step),
            ...Either.getOrThrow(steps[i]!.turn)
          }))
        }
      } else recorded = { caseId: testCase.id, question: testCase.question, ...linked.turn.right }
      const file = fixturePath(path, args.out, testCase.id)
      // A recording is replaced, as a re-import should, but never without saying so.
      const replaced = yield* fs.exists(file).pipe(Effect.orElseSucceed(() => false))
      const text = encodeRecording(recorded)
      if (Either.isLeft(text)) {
        refused.push(`  ${turnIdOf(linked.read)}  case ${testCase.id}: ${inert(text.left)}`)
        continue
      }
      yield* writeAtomically(file, text.right)
      written.push(
        `  ${testCase.id.padEnd(idWidth)}  ${turnIdOf(linked.read)}${
          replaced ? "  (replaced the recording there)" : ""
        }`
      )
    }
    const lines = [`wrote ${plural(written.length, "recorded turn")} to ${args.out}:`, ...written]
    const without = set.cases.length - written.length - refused.length
    if (refused.length > 0) {
      lines.push("", `${plural(refused.length, "turn")} linked to a case but not usable:`, ...refused)
    }
    if (links.unlinked.length > 0) {
      lines.push("", `${plural(links.unlinked.length, "turn")} linked to no case:`, ...describeUnlinked(links.unlinked))
    }
    lines.push("", `${plural(without, "case")} of ${set.cases.length} got no turn from the traces`)
    yield* Console.log(lines.join("\n"))
  })
