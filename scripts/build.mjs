// Builds the package into dist/.
//
// The `eval` bin (dist/eval.js) is bundled with its dependencies: a few ESM files start several times
// faster than the module graph they come from. Commands load their handlers on demand, so each lands
// in a chunk of its own (dist/chunks) and `--help` or `validate` never parse the HTTP client or the
// stand-in.
//
// The library entries (dist/index.js, the typed API, and dist/vitest.js, the test-runner helper) leave
// every package external, so a program that imports them shares its own copy of effect. Their type
// declarations go to dist/types. `--no-types` skips the declarations (tests build without them; the
// package test packs a full build of its own).
import { build } from "esbuild"
import { execFileSync } from "node:child_process"
import { rmSync } from "node:fs"
import { createRequire } from "node:module"

const withTypes = !process.argv.includes("--no-types")

rmSync("dist", { recursive: true, force: true })
const bin = build({
  entryPoints: ["src/Main.ts"],
  outdir: "dist",
  entryNames: "eval",
  chunkNames: "chunks/[name]-[hash]",
  splitting: true,
  bundle: true,
  platform: "node",
  format: "esm",
  target: "node20",
  minifySyntax: true,
  legalComments: "none",
  logLevel: "warning",
  alias: {
    yaml: "./scripts/stubs/config-parsers.mjs",
    toml: "./scripts/stubs/config-parsers.mjs",
    ini: "./scripts/stubs/config-parsers.mjs"
  },
  banner: {
    js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);"
  }
})
const library = build({
  entryPoints: { index: "src/index.ts", vitest: "src/Vitest.ts" },
  outdir: "dist",
  chunkNames: "lib/[name]-[hash]",
  splitting: true,
  bundle: true,
  packages: "external",
  platform: "node",
  format: "esm",
  target: "node20",
  legalComments: "none",
  logLevel: "warning"
})
await Promise.all([bin, library])

if (withTypes) {
  const tsc = createRequire(import.meta.url).resolve("typescript/bin/tsc")
  try {
    execFileSync(process.execPath, [tsc, "-p", "tsconfig.build.json"], { stdio: "inherit" })
  } catch {
    // tsc has printed the errors.
    process.exit(1)
  }
}
