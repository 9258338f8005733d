/** Runs the CLI in this process, capturing what it prints: the real command path, fast enough for properties. */
import { NodeContext } from "@effect/platform-node"
import { Console, Effect } from "effect"
import { main } from "../../src/Cli.js"

/** The exit code and what the command printed to standard output and to standard error. */
export const cliInProcess = async (args: ReadonlyArray<string>) => {
  const stdout: Array<string> = []
  const stderr: Array<string> = []
  const code = await Effect.runPromise(
    Console.consoleWith((base) =>
      Console.withConsole(main(["node", "eval", ...args]), {
        ...base,
        log: (...parts: ReadonlyArray<unknown>) => Effect.sync(() => void stdout.push(parts.join(" "))),
        error: (...parts: ReadonlyArray<unknown>) => Effect.sync(() => void stderr.push(parts.join(" ")))
      })
    ).pipe(Effect.provide(NodeContext.layer))
  )
  return { code, stdout: stdout.join("\n"), stderr: stderr.join("\n") }
}
