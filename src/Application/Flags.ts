/**
 * How the application's messages name the flags a run was made with. The pure core words its refusals
 * without flags, since a program calling the typed API has none; `run`, `merge` and the commands that
 * compare runs add the flag that applies, in these words.
 */
import { UsageError } from "../Schema/Errors.js"
import type { RunWords } from "../Scorecard/Ratchet.js"

/** A problem with the value of a flag, the flag named first: `--filter "x" matches no case…`. */
export const flagUsage = (flag: string, problem: string): UsageError =>
  new UsageError({ message: `${flag} ${problem}` })

/** A refusal to compare runs over different case sets, with the flag that compares them anyway. */
export const withAllowDifferentSets = (error: UsageError): UsageError =>
  new UsageError({ message: `${error.message}; pass --allow-different-sets to compare them case by case` })

/** How the CLI's refusals of a ratchet name the ways a run was made: by the flags that made it. */
export const flagWords: RunWords = {
  stoppedEarly: "stopped early (--bail)",
  filteredRun: "a --filter'ed run",
  repeated: (k) => `--repeat ${k}`
}
