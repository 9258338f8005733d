/**
 * `npx tsx bench/profile.ts [cases] [concurrency] [latency ms]`: where a live run's CPU goes. Builds the
 * bin as `npm run build` does but keeping esbuild's module comments (so every sample can be traced to
 * the module it ran in), starts the stand-in in this process, runs `turn-eval run --base-url` against
 * it under `node --cpu-prof`, and prints the self time by part — Effect's runtime, @effect/platform,
 * undici, Node's own modules, garbage collection, this package's code — and the costliest functions.
 * Defaults: 200 cases, concurrency 16, a 100 ms ask.
 */
import { Redacted } from "effect"
import { build } from "esbuild"
import { spawn } from "node:child_process"
import { mkdtempSync, readdirSync, readFileSync, rmSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { fileURLToPath } from "node:url"
import { binOptions } from "../scripts/binOptions.mjs"
import { withStandIn } from "../test/support/live.js"
import { goldenSet } from "./generate.js"

const [cases = 200, concurrency = 16, latency = 100] = process.argv.slice(2).map(Number)
const work = mkdtempSync(join(tmpdir(), "eval-profile-"))
// The bin as the build makes it, but with its syntax unminified, so esbuild's module comments stay.
await build({ ...binOptions, outdir: join(work, "dist") })

interface ProfileNode {
  readonly id: number
  readonly callFrame: { readonly functionName: string; readonly url: string; readonly lineNumber: number }
}
interface Profile {
  readonly nodes: ReadonlyArray<ProfileNode>
  readonly samples: ReadonlyArray<number>
  readonly timeDeltas: ReadonlyArray<number>
}

const profiles = join(work, "profiles")
const file = goldenSet(join(work, "cases"), cases)
const wall = await withStandIn({ latency: { ask: latency }, maxConversations: 64 }, async (standIn) => {
  const started = performance.now()
  // Spawned, not run synchronously: the stand-in answers from this process's event loop.
  const run = ["run", "--base-url", standIn.url, "--cases", file, "--concurrency", String(concurrency), "--silent"]
  const child = spawn(process.execPath, [
    "--cpu-prof",
    "--cpu-prof-dir",
    profiles,
    join(work, "dist", "eval.js"),
    ...run
  ], {
    env: { ...process.env, EVAL_COOKIE: Redacted.value(standIn.cookie()), NO_COLOR: "1" },
    stdio: ["ignore", "ignore", "pipe"]
  })
  let stderr = ""
  child.stderr.setEncoding("utf8").on("data", (chunk: string) => (stderr += chunk))
  const code = await new Promise<number | null>((done) => child.on("close", done))
  if (code !== 0) throw new Error(`the run failed: ${stderr}`)
  return performance.now() - started
})
const profile = JSON.parse(readFileSync(join(profiles, readdirSync(profiles)[0]!), "utf8")) as Profile

// The module each line of a bundled file belongs to, from esbuild's `// path` comments.
const modulesOf = new Map<string, Array<readonly [number, string]>>()
const moduleAt = (url: string, line: number): string => {
  if (!url.startsWith("file://")) return url
  let marks = modulesOf.get(url)
  if (marks === undefined) {
    marks = []
    readFileSync(fileURLToPath(url), "utf8").split("\n").forEach((text, index) => {
      if (/^\/\/ \S+\.(m|c)?(j|t)s$/.test(text)) marks!.push([index, text.slice(3)])
    })
    modulesOf.set(url, marks)
  }
  let found = "(bundle glue)"
  for (const [at, name] of marks) {
    if (at > line) break
    found = name
  }
  return found
}
const partOf = (node: ProfileNode): string => {
  const { functionName, lineNumber, url } = node.callFrame
  if (url === "") {
    return functionName === "(garbage collector)"
      ? "garbage collection"
      : functionName.startsWith("(")
      ? functionName
      : "V8 built-ins"
  }
  if (url.startsWith("node:")) return "Node's own modules (net, http, streams, timers)"
  const module = moduleAt(url, lineNumber)
  if (module.includes("node_modules/effect/")) return "Effect's runtime (effect)"
  if (module.includes("node_modules/@effect/")) return "@effect/platform, cli, platform-node"
  if (module.includes("node_modules/undici/")) return "undici"
  if (module.startsWith("src/")) return "this package (src/)"
  return `other (${module.split("/").slice(0, 3).join("/")})`
}

const byNode = new Map(profile.nodes.map((n) => [n.id, n]))
const selfByPart = new Map<string, number>()
const selfByFunction = new Map<string, number>()
profile.samples.forEach((id, i) => {
  const node = byNode.get(id)!
  const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000
  const part = partOf(node)
  selfByPart.set(part, (selfByPart.get(part) ?? 0) + ms)
  if (part === "(idle)") return
  const { functionName, lineNumber, url } = node.callFrame
  const key = `${functionName || "(anonymous)"} — ${
    url.startsWith("file://") ? moduleAt(url, lineNumber) : url || "native"
  }`
  selfByFunction.set(key, (selfByFunction.get(key) ?? 0) + ms)
})
const busy = [...selfByPart].filter(([part]) => part !== "(idle)").reduce((sum, [, ms]) => sum + ms, 0)
const lines = [
  `${cases} cases, concurrency ${concurrency}, ${latency} ms ask: ${(wall / 1000).toFixed(2)} s wall, ` +
  `${busy.toFixed(0)} ms on the main thread (${(busy / cases).toFixed(2)} ms a case)`,
  "",
  ...[...selfByPart].filter(([part]) => part !== "(idle)").sort((a, b) => b[1] - a[1]).map(([part, ms]) =>
    `${(100 * ms / busy).toFixed(1).padStart(5)}%  ${ms.toFixed(0).padStart(6)} ms  ${part}`
  ),
  "",
  "costliest functions (self time):",
  ...[...selfByFunction].sort((a, b) => b[1] - a[1]).slice(0, 30).map(([name, ms]) =>
    `${ms.toFixed(1).padStart(7)} ms  ${name}`
  )
]
process.stdout.write(`${lines.join("\n")}\n`)
rmSync(work, { recursive: true, force: true })
