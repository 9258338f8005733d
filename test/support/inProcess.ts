/** Runs the CLI in this process, capturing what it prints: the real command path, fast enough for properties. */
import { NodeContext } from "@effect/platform-node"
import { Cause, Effect, Exit } from "effect"
import { main } from "../../src/Cli.js"
import { withCapturedConsole } from "./console.js"

/** The exit code and what the command printed to standard output and to standard error. */
export const cliInProcess = async (args: ReadonlyArray<string>) => {
  const { exit, stderr, stdout } = await Effect.runPromise(
    withCapturedConsole(main(["node", "eval", ...args])).pipe(Effect.provide(NodeContext.layer))
  )
  if (Exit.isFailure(exit)) throw Cause.squash(exit.cause)
  return { code: exit.value, stdout, stderr }
}

/**
 * Runs `body` with these environment variables set (an `undefined` one unset), as a subprocess given
 * them would see its environment, and restores the process's own afterwards.
 */
export const withEnv = async <A>(vars: NodeJS.ProcessEnv, body: () => Promise<A>): Promise<A> => {
  const before = Object.fromEntries(Object.keys(vars).map((name) => [name, process.env[name]]))
  const set = (values: NodeJS.ProcessEnv) => {
    for (const [name, value] of Object.entries(values)) {
      if (value === undefined) delete process.env[name]
      else process.env[name] = value
    }
  }
  set(vars)
  try {
    return await body()
  } finally {
    set(before)
  }
}
