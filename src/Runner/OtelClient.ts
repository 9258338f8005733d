/**
 * The SurfaceClient of turns read from OpenTelemetry traces (`Otel/Source.ts`): each case is served the
 * turn linked to it, and a case no turn links to fails with the reason.
 */
import type { FileSystem, Path } from "@effect/platform"
import { Console, Effect, Either, Layer } from "effect"
import type { Links } from "../Otel/Link.js"
import { describeUnlinked, loadOtelLinks } from "../Otel/Source.js"
import { type BadInput, TurnError, type UsageError } from "../Schema/Errors.js"
import { plural } from "../Words.js"
import type { GoldenSet } from "./GoldenSet.js"
import { plainClient, SurfaceClient } from "./SurfaceClient.js"

/** Serves each case the turn linked to it; a case without one fails with the reason. */
export const OtelClient = (links: Links): Layer.Layer<SurfaceClient> =>
  Layer.succeed(
    SurfaceClient,
    plainClient((testCase) => {
      const linked = links.byCase.get(testCase.id)
      if (linked === undefined) {
        return Effect.fail(new TurnError({ reason: "no-turn", caseId: testCase.id, surface: testCase.surface }))
      }
      return Either.match(linked.turn, {
        onLeft: (detail) => Effect.fail(new TurnError({ reason: "trace", detail })),
        onRight: Effect.succeed
      })
    })
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
