/**
 * The program's name as the user invoked it, computed once, for help, usage lines and every hint the
 * CLI prints, so a command it suggests can be copied and run as it stands:
 *
 * - `npm run eval --` under the `eval` npm script, and under a checkout's own `npm start`;
 * - `npx turn-eval` through npx or another npm script (the bin is not on the shell's PATH there);
 * - `turn-eval` otherwise: an installed bin on the PATH, or `node dist/eval.js` run directly.
 *
 * Never `eval`: that is a shell builtin.
 */

/** The package's bin: the command word shell completions register. */
export const executableName = "turn-eval"

/** How a user in this environment invokes the program (see the module header). */
export const invokedAs = (env: NodeJS.ProcessEnv): string => {
  const script = env["npm_lifecycle_event"]
  if (script === "eval" || (script === "start" && env["npm_package_name"] === executableName)) return "npm run eval --"
  if (env["npm_command"] !== undefined) return `npx ${executableName}`
  return executableName
}

/** The program's name as this process was invoked. */
export const programName: string = invokedAs(process.env)

/** The scorecard's note for a run with no floor, naming the command that sets one. */
export const noFloorYet = `no floor committed yet: run \`${programName} ratchet\` to set one`
