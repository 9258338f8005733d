// Bundles the `eval` bin (dist/eval.js): a few ESM files start several times faster than the module
// graph they come from. Commands load their handlers on demand, so each lands in a chunk of its own
// (dist/chunks) and `--help` or `validate` never parse the HTTP client or the stand-in.
import { build } from "esbuild"
import { rmSync } from "node:fs"

rmSync("dist", { recursive: true, force: true })
await build({
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
