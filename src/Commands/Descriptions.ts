/**
 * What each command does, in a line, and how it is run: the words `--help` shows (`Help.ts`) and the
 * command tree's own descriptions (`Cli.ts`) are made from these, so the two never disagree.
 */
import { programName } from "../ProgramName.js"

/** A command's one-line summary and its examples, each a command line runnable as printed. */
export interface CommandWords {
  /** What it does in a few words, for the list of commands. */
  readonly brief: string
  readonly summary: string
  readonly examples: ReadonlyArray<string>
}

const live = "EVAL_COOKIE='session=…'"

/** Every command's words, by name. */
export const commandWords: Readonly<Record<string, CommandWords>> = {
  init: {
    brief: "Write a starter golden set, catalog, baseline and CI workflow here",
    summary: "Write a starter golden set, catalog, baseline, two recorded turns (one failing) and a GitHub Actions " +
      "workflow into this folder, never overwriting a file, and print the next commands.",
    examples: [`${programName} init`]
  },
  run: {
    brief: "Grade every case's turn and print the scorecard",
    summary: "Grade every case's turn and print the scorecard.",
    examples: [
      `${programName} run --fixtures cases/fixtures --check`,
      `${live} ${programName} run --base-url http://127.0.0.1:5173 --check`
    ]
  },
  validate: {
    brief: "Check the catalog, the golden set and the baseline",
    summary: "Check the catalog, the golden set against it, and the baseline.",
    examples: [`${programName} validate`]
  },
  ratchet: {
    brief: "Raise the floor to the pass rate a full run achieved",
    summary: "Raise the floor to the pass rate a full run achieved; never lower it.",
    examples: [`${programName} ratchet --from results.json`]
  },
  merge: {
    brief: "Join a sharded run's results and hold the floor",
    summary: "Join the results of a sharded run into the results of the whole golden set, then hold the floor; " +
      "refuses overlapping or missing shards.",
    examples: [`${programName} merge shard-*.json --check --reporter junit=report.xml`]
  },
  report: {
    brief: "Write any report of an earlier results file",
    summary: "Write any report of a results file written earlier, running nothing: the reporters of run, the " +
      "changes since an earlier run (--compare) and the floor's history.",
    examples: [
      `${programName} report results.json --reporter junit=reports/eval.xml --reporter markdown=reports/summary.md`
    ]
  },
  diff: {
    brief: "Show what changed between two runs",
    summary: "Show what changed between two runs: regressions with their facts, fixes, new and removed cases, the " +
      "pass-rate change.",
    examples: [`${programName} diff main.json branch.json --check`]
  },
  audit: {
    brief: "Grade exported turns against invariants, streaming",
    summary: "Grade every turn of JSON-lines exports against invariants, streaming; exit 1 on a violation.",
    examples: [
      `${programName} audit --surface docs --expect cites-only-surfaced --expect never-calls=deploy --traces turns.jsonl`
    ]
  },
  import: {
    brief: "Write the turns in OpenTelemetry traces as recorded turns",
    summary: "Read OpenTelemetry traces (GenAI conventions, the AI SDK, OpenInference), link their turns to cases " +
      "and write them as recorded turns; list the turns it could not link.",
    examples: [`${programName} import --otel traces.json --out cases/imported`]
  },
  candidates: {
    brief: "List the turns users rated thumbs-down",
    summary: "List the turns users rated thumbs-down in the app (turn, conversation, comment), to draft cases from.",
    examples: [`${live} ${programName} candidates --base-url http://127.0.0.1:5173`]
  },
  propose: {
    brief: "Draft a case from a thumbs-down turn",
    summary: "Draft a case from a thumbs-down turn: the facts it broke and held, marked as drafted; --append adds " +
      "it to the golden set with the turn recorded.",
    examples: [`${programName} propose --turn turn_8f2 --base-url http://127.0.0.1:5173 --append`]
  },
  cleanup: {
    brief: "Delete the conversations earlier live runs left in the app",
    summary: "Delete the conversations earlier live runs left in the app, as the journal of this base URL and " +
      "session recorded them, and list each id; exit 1 if any could not be deleted.",
    examples: [`${live} ${programName} cleanup --base-url http://127.0.0.1:5173`]
  },
  standin: {
    brief: "Serve the stand-in assistant on loopback",
    summary: "Serve the stand-in assistant (the catalog's surfaces, over their protocols) on loopback until stopped.",
    examples: [`${programName} standin --port 8787 --fault trace:503@0.2`]
  },
  demo: {
    brief: "Run the golden set live against the stand-in",
    summary: "Start the stand-in on an ephemeral port and run the golden set live against it with --check; a folder " +
      "with no golden set gets the package's own.",
    examples: [`${programName} demo`]
  }
}

/** A command's description for the command tree: its summary, then its examples. */
export const describedAs = (name: string): string => {
  const words = commandWords[name]!
  return `${words.summary} Example: ${words.examples.join(", or: ")}`
}
