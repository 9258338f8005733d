import { availableParallelism } from "node:os"
import { fileURLToPath } from "node:url"
import { configDefaults, defineConfig } from "vitest/config"

// The package's own name resolves to its sources, as tsconfig.json's `paths` does for the type-checker,
// so examples import "turn-eval" as a user would without a build first.
const source = (file: string) => fileURLToPath(new URL(file, import.meta.url))
const alias = [
  { find: /^turn-eval$/, replacement: source("./src/index.ts") },
  { find: /^turn-eval\/vitest$/, replacement: source("./src/Vitest.ts") }
]

// Two tiers, by what a file does rather than what it tests. `e2e` is every file that runs the bin as a
// subprocess (test/support/cli.ts's runners), sends it signals, packs the package, boots a real
// framework's server (the LangGraph server of test/support/apps/langGraphApp.ts) or opens the HTML
// report in Chromium (test/support/browser.ts): whole folders where every file does, named files
// elsewhere. `unit` is the rest, run in this process: its commands through test/support/inProcess.ts.
const e2e = [
  "test/Cli/!(InProcess).test.ts",
  "test/Package/**/*.test.ts",
  "test/Protocols/!(Registry|Reading).test.ts",
  "test/Reliability/**/*.test.ts",
  "test/Report/**/*.test.ts",
  "test/Protocols/LangGraph/Client.test.ts",
  "test/Protocols/LangGraph/Interrupts.test.ts",
  "test/StandIn/Command.test.ts"
]

// The in-process files that run apart (`unit-isolated`), each with a module graph of its own: those on
// the test clock, which were seen to wait on one another's sleeps when they shared a worker's modules,
// and those that register the OpenTelemetry API's global providers. Every other in-process file shares
// its worker's modules (`unit`), which saves evaluating the product's module graph once per file: that
// was most of the tier's time.
const own = [
  "test/Otel/**/*.test.ts",
  "test/Runner/HttpPolicy.test.ts",
  "test/Runner/Live.test.ts",
  "test/Runner/LiveClientClock.test.ts",
  "test/Runner/RunCases.test.ts",
  "test/Runner/Transport.test.ts",
  "test/Scorecard/BaselineLock.test.ts"
]

/** A tier: its files, with the aliases and the timeout every test file shares. */
const tier = (
  name: string,
  include: Array<string>,
  exclude: Array<string> = [],
  shared = false
) => ({
  resolve: { alias },
  test: {
    name,
    include,
    exclude: [...configDefaults.exclude, ...exclude],
    testTimeout: 30_000,
    // Pool options are the whole run's, not a project's: a project picks the pool that isolates or not.
    pool: shared ? "threads" as const : "forks" as const
  }
})

export default defineConfig({
  resolve: { alias },
  test: {
    // Runs once for the whole run, whichever tiers it selects.
    globalSetup: ["test/globalSetup.ts"],
    // Vitest's default is one worker fewer than the cores, which on two cores is one; an e2e file spends
    // most of its time waiting on the bin it spawned, so two overlap that waiting on any machine.
    maxWorkers: Math.max(2, availableParallelism() - 1),
    poolOptions: { threads: { isolate: false }, forks: { isolate: true } },
    projects: [
      tier("unit", ["test/**/*.test.ts"], [...e2e, ...own], true),
      tier("unit-isolated", own),
      tier("e2e", e2e)
    ]
  }
})
