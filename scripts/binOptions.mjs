// The esbuild options of the `turn-eval` bin (dist/eval.js and its chunks), shared by the build and by
// the live profile (bench/profile.ts), which builds the same bin elsewhere without minifying its syntax.

const stubs = "./scripts/stubs/config-parsers.mjs"

/** The bin's options, but for where it is written. */
export const binOptions = {
  entryPoints: ["src/Main.ts"],
  entryNames: "eval",
  chunkNames: "chunks/[name]-[hash]",
  splitting: true,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node22",
  legalComments: "none",
  logLevel: "warning",
  // @effect/cli's configuration-file parsers are never used: stubs keep them out of the bundle.
  alias: { yaml: stubs, toml: stubs, ini: stubs },
  banner: {
    js:
      "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
  }
}
