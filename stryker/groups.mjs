/**
 * The mutation groups of the pure core: each module group is mutated against its own unit tests only,
 * with the score below which `npm run mutate` fails.
 */

/** Each group: the sources Stryker mutates, the test files that must kill the mutants, the break threshold. */
export const groups = {
  graders: {
    mutate: ["src/Graders/**/*.ts"],
    // Each kind's grader, fast reading, names and `--expect` argument, by their own unit tests; the
    // registry-wide property tests (Properties.test.ts), the slowest to run for every mutant, are left out.
    testFiles: [
      "test/Graders/!(Properties).test.ts",
      "test/Schema/FastPaths.test.ts",
      "test/Schema/Kinds.test.ts",
      "test/Schema/Validate.test.ts",
      "test/Commands/AuditParse.test.ts"
    ],
    threshold: 90
  },
  schema: {
    mutate: [
      "src/Schema/Validate.ts",
      "src/Schema/Case.ts",
      "src/Schema/Decode.ts",
      "src/Schema/Inert.ts",
      "src/Schema/Fields.ts",
      "src/Schema/Trace.ts"
    ],
    // The fast decoders' property tests (FastDecode.test.ts) are left out: FastPaths.test.ts and
    // TracePaths.test.ts try the inputs that matter (an unknown key, an empty list, a blank string, a
    // field removed) on every field, one by one.
    testFiles: ["test/Schema/!(FastDecode).test.ts"],
    threshold: 90
  },
  scorecard: {
    mutate: ["src/Scorecard/*.ts", "src/Propose/*.ts"],
    testFiles: ["test/Scorecard/**/*.test.ts", "test/Propose/**/*.test.ts"],
    threshold: 90
  },
  runner: {
    mutate: ["src/Runner/Runner.ts", "src/Runner/Shard.ts"],
    testFiles: [
      "test/Runner/Runner.test.ts",
      "test/Runner/RunCases.test.ts",
      "test/Runner/CombineAttempts.test.ts",
      "test/Runner/Shard.test.ts"
    ],
    threshold: 85
  }
}
