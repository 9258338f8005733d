/**
 * The SurfaceClient of turns read from OpenTelemetry traces (`Otel/Source.ts`): each case is served the
 * turn linked to it, and a case no turn links to fails with the reason.
 */
import type { FileSystem, Path } from "@effect/platform"
import { Console, Effect, Either, Layer } from "effect"
import type { Links } from "../Otel/Link.js"
import { describeUnlinked, loadOtelLinks } from "../Otel/Source.js"
import { type BadInput, TurnError, type UsageError } from "../Schema/Errors.js"
import type { Turn } from "../Schema/Trace.js"
import { plural } from "../Words.js"
import type { GoldenSet } from "./GoldenSet.js"
import { plainClient, SurfaceClient } from "./SurfaceClient.js"

/** A linked turn, or the case's failure with why it cannot be used. */
const served = (turn: Either.Either<Turn, string>): Effect.Effect<Turn, TurnError> =>
  Either.match(turn, {
    onLeft: (detail) => Effect.fail(new TurnError({ reason: "trace", detail })),
    onRight: Effect.succeed
  })

/**
 * Serves each case the turn linked to it, and a conversation case each step's turn of its conversation;
 * a case without one fails with the reason.
 */
export const OtelClient = (links: Links): Layer.Layer<SurfaceClient> =>
  Layer.succeed(
    SurfaceClient,
    plainClient(
      (testCase) => {
        const linked = links.byCase.get(testCase.id)
        if (linked === undefined) {
          return Effect.fail(new TurnError({ reason: "no-turn", caseId: testCase.id, surface: testCase.surface }))
        }
        return served(linked.turn)
      },
      (testCase) => {
        const steps = links.byCase.get(testCase.id)?.steps
        if (steps === undefined) {
          return Effect.fail(new TurnError({ reason: "no-turn", caseId: testCase.id, surface: testCase.surface }))
        }
        return Effect.succeed((index: number) =>
          served(steps[index]?.turn ?? Either.left(`no turn for turn ${index + 1} of the conversation`))
        )
      }
    )
  )

/** The SurfaceClient of `eval run --otel`: the linked turns, and a note on stderr of those left over. */
export const otelSource = (
  paths: ReadonlyArray<string>,
  set: GoldenSet
): Effect.Effect<Layer.Layer<SurfaceClient>, BadInput | UsageError, FileSystem.FileSystem | Path.Path> =>
  Effect.gen(function*() {
    const links = yield* loadOtelLinks(paths, set)
    if (links.unlinked.length > 0) {
      const n = links.unlinked.length
      yield* Console.error(
        `${plural(n, "turn")} in the traces linked to no case:\n${describeUnlinked(links.unlinked).join("\n")}\n`
      )
    }
    return OtelClient(links)
  })
