/** Running an effect with its console captured: what it printed to standard output and error, and its exit. */
import { Console, Effect } from "effect"

/** Runs `effect` with `Console.log` and `Console.error` (and their unsafe forms) captured, one line a call. */
export const withCapturedConsole = <A, E, R>(effect: Effect.Effect<A, E, R>) =>
  Effect.gen(function*() {
    const stdout: Array<string> = []
    const stderr: Array<string> = []
    const exit = yield* Console.consoleWith((base) =>
      Console.withConsole(effect, {
        ...base,
        log: (...parts: ReadonlyArray<unknown>) => Effect.sync(() => void stdout.push(parts.join(" "))),
        error: (...parts: ReadonlyArray<unknown>) => Effect.sync(() => void stderr.push(parts.join(" "))),
        unsafe: {
          ...base.unsafe,
          log: (...parts: ReadonlyArray<unknown>) => void stdout.push(parts.join(" ")),
          error: (...parts: ReadonlyArray<unknown>) => void stderr.push(parts.join(" "))
        }
      })
    ).pipe(Effect.exit)
    return { exit, stdout: stdout.join("\n"), stderr: stderr.join("\n") }
  })
