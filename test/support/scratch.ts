/**
 * A scratch folder for one test, made through the platform's `FileSystem` and removed with everything
 * in it when the test's scope closes: the files a test writes are real, and none outlives it.
 */
import { FileSystem } from "@effect/platform"
import { Effect, type Scope } from "effect"

/** A fresh folder under the system's temporary folder, gone when the scope closes. */
export const scratchFolder = (prefix = "eval-"): Effect.Effect<string, never, FileSystem.FileSystem | Scope.Scope> =>
  Effect.orDie(Effect.flatMap(FileSystem.FileSystem, (fs) => fs.makeTempDirectoryScoped({ prefix })))
