// Builds the package into dist/.
//
// The `turn-eval` bin (dist/eval.js) is bundled with its dependencies: a few ESM files start several
// times faster than the module graph they come from. Commands load their handlers on demand, so each
// lands in a chunk of its own (dist/chunks) and `--help` or `validate` never parse the HTTP client or
// the stand-in.
//
// The library entries (dist/index.js, the typed API, and dist/vitest.js, the test-runner helper) leave
// every package external, so a program that imports them shares its own copy of effect. Their type
// declarations go to dist/types.
//
//   node scripts/build.mjs              the full build with declarations (`npm run package`, and `prepare`)
//   node scripts/build.mjs --no-types   the bundles alone (the tests)
//   node scripts/build.mjs --if-stale   the bundles alone, and only when an input is newer than the
//                                       last such build: `npm run eval` and `npm start` start at once
//   --if-builder                        do nothing, successfully, when esbuild is not installed: a
//                                       production install (`npm ci --omit=dev`) runs `prepare` too
//
// A build without declarations leaves a stamp, dist/.bundles-built, that --if-stale compares the inputs
// with; the full build leaves none, so the package never ships it.
import { execFileSync } from "node:child_process"
import { existsSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from "node:fs"
import { createRequire } from "node:module"
import { join } from "node:path"
import { binOptions } from "./binOptions.mjs"

const flags = new Set(process.argv.slice(2))
const ifStale = flags.has("--if-stale")
const withTypes = !flags.has("--no-types") && !ifStale
const stamp = "dist/.bundles-built"

/** The newest modification time among the files the bundles are built from. */
const newestInput = () => {
  let newest = 0
  const visit = (path) => {
    const stats = statSync(path)
    if (stats.isDirectory()) { for (const name of readdirSync(path)) visit(join(path, name)) }
    else newest = Math.max(newest, stats.mtimeMs)
  }
  for (const input of ["src", "scripts", "package.json", "package-lock.json"]) if (existsSync(input)) visit(input)
  return newest
}

if (ifStale && existsSync(stamp) && existsSync("dist/eval.js") && statSync(stamp).mtimeMs > newestInput()) {
  process.exit(0)
}

// Imported only now: a fresh dist/ is known without loading the builder.
let build
try {
  ;({ build } = await import("esbuild"))
} catch (error) {
  if (!flags.has("--if-builder") || error?.code !== "ERR_MODULE_NOT_FOUND") throw error
  process.stderr.write(
    "turn-eval: esbuild is not installed (a production install), so dist/ is not built; `npm ci` installs it\n"
  )
  process.exit(0)
}

// The stamp is dated from before the build reads its inputs, so an edit made meanwhile is built next time.
const started = new Date()
rmSync("dist", { recursive: true, force: true })
const bin = build({ ...binOptions, outdir: "dist", minifySyntax: true })
const library = build({
  entryPoints: { index: "src/index.ts", vitest: "src/Vitest.ts" },
  outdir: "dist",
  chunkNames: "lib/[name]-[hash]",
  splitting: true,
  bundle: true,
  packages: "external",
  platform: "node",
  format: "esm",
  target: "node22",
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
} else {
  writeFileSync(stamp, "")
  utimesSync(stamp, started, started)
}
