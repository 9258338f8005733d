/**
 * Stryker's configuration for one mutation group, named by MUTATE_GROUP (see groups.mjs); run it
 * through `npm run mutate`, which runs every group or those named.
 */
import { groups } from "./groups.mjs"

const name = process.env["MUTATE_GROUP"] ?? ""
const group = groups[name]
if (group === undefined) {
  throw new Error(`MUTATE_GROUP ${JSON.stringify(name)}: expected one of ${Object.keys(groups).join(", ")}`)
}

export default {
  testRunner: "vitest",
  vitest: { configFile: "vitest.mutate.config.ts", related: false },
  mutate: group.mutate,
  testFiles: group.testFiles,
  coverageAnalysis: "perTest",
  // Static mutants (module-level constants, run once as a module loads) each need every test re-run in a
  // fresh process: on two cores they took four fifths of a group's time. They are reported as ignored.
  ignoreStatic: true,
  concurrency: 2,
  incremental: true,
  incrementalFile: `reports/mutation/${name}.incremental.json`,
  thresholds: { high: group.threshold, low: group.threshold, break: group.threshold },
  reporters: ["clear-text", "progress", "html", "json"],
  htmlReporter: { fileName: `reports/mutation/${name}.html` },
  jsonReporter: { fileName: `reports/mutation/${name}.json` },
  ignorePatterns: ["dist", "reports", "coverage", ".scratch", "bench", "*.tgz"],
  tempDirName: ".stryker-tmp",
  cleanTempDir: "always"
}
