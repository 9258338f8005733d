/**
 * The package as a user receives it: `npm run package` on a copy of the project (the full build and
 * the published manifest, apart from the dist/ other tests are using), the tarball's file list, and
 * the tarball installed into an empty folder: the bin through npx with no peer installed, a TypeScript
 * program importing the typed API, type-checked with nodenext resolution and run once the README's
 * peers are, the refusal of an Effect 4 project, and `init`, `run` and `demo` in empty folders as npx
 * runs them.
 */
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { spawnAsync, stackFrame } from "../support/cli.js"
import {
  caseCount,
  failingOnFixtures,
  offlineTally,
  passingOnFixtures,
  standInHolds,
  validated
} from "../support/golden.js"

const repo = process.cwd()
const work = mkdtempSync(join(tmpdir(), "eval-pack-"))
const copy = join(work, "project")
const packed = join(work, "packed")
const consumer = join(work, "consumer")

/** The environment without npm's own variables, so a nested npm never takes the repository for its project. */
const cleanEnv = (): NodeJS.ProcessEnv =>
  Object.fromEntries(
    Object.entries(process.env).filter(([key]) => !/^npm_/i.test(key) && key !== "INIT_CWD")
  )

// Asynchronous, so the test worker keeps answering vitest while npm packs and installs.
const run = (command: string, args: ReadonlyArray<string>, cwd: string) =>
  spawnAsync(command, args, { cwd, env: { ...cleanEnv(), NO_COLOR: "1" }, timeoutMs: 240_000 })

/** `npx turn-eval …` in the consumer, never fetching a package of that name from the registry instead. */
const npx = (args: ReadonlyArray<string>) => run("npx", ["--no", "--", "turn-eval", ...args], consumer)

/** The command names a `--help` lists. */
const commandsIn = (help: string): ReadonlyArray<string> =>
  [...(help.split("\nCommands\n")[1] ?? "").matchAll(/^ {2}([a-z]+) {2,}/gm)].map((m) => m[1]!)

/**
 * What a user needs and nothing else: the build, its declarations, the docs (and the screenshot they show), the licence, the manifest,
 * the starter project `init` writes, and the golden set, catalog and floor `demo` falls back on.
 */
const allowed = [
  /^package\.json$/,
  /^README\.md$/,
  /^LICENSE$/,
  /^docs\/[\w-]+\.(md|png)$/,
  /^templates\/starter\/(fixtures\/)?[\w.-]+\.(json|yml)$/,
  /^cases\/(golden-cases|surfaces)\.json$/,
  /^baseline\.json$/,
  /^dist\/(eval|index|vitest)\.js$/,
  /^dist\/chunks\/[\w-]+\.js$/,
  /^dist\/lib\/[\w-]+\.js$/,
  /^dist\/types\/([\w-]+\/)*[\w-]+\.d\.ts$/
]

const consumerProgram = `import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { type CaseResult, caseSetFingerprint, loadGoldenSet, Runner, summarize, SurfaceClient } from "turn-eval"
import type { GoldenSetOptions } from "turn-eval/vitest"

const options: GoldenSetOptions = { fixtures: "cases/fixtures", filter: ["smoke"] }

const program = Effect.gen(function*() {
  const set = yield* loadGoldenSet("cases/golden-cases.json", "cases/surfaces.json")
  // @ts-expect-error a case's surface is a string: the declarations carry real types, not any
  const wrong: number = set.cases[0]!.surface
  const runner = yield* Runner
  const results: ReadonlyArray<CaseResult> = yield* runner.run(set.catalog, set.cases)
  return { run: summarize(results, caseSetFingerprint(set.cases), null), wrong }
}).pipe(
  Effect.provide(Runner.Default.pipe(Layer.provide(SurfaceClient.Fixture(options.fixtures!)))),
  Effect.provide(NodeContext.layer)
)

const { run } = await Effect.runPromise(program)
console.log(JSON.stringify({ total: run.total, passed: run.passedCount, failing: run.cases.filter((c) => !c.passed).map((c) => c.id) }))
`

// Each test installs, type-checks or runs the package in subprocesses, each bounded against a hang
// (240 s): a test's own bound only guards against a hang too, never against a busy machine's pace.
describe("the packed tarball", { timeout: 300_000 }, () => {
  let tarball = ""
  let files: ReadonlyArray<string> = []

  beforeAll(async () => {
    // The working tree as a fresh clone has it, with the installed dependencies linked in.
    cpSync(repo, copy, {
      recursive: true,
      filter: (source) =>
        !/^(node_modules|dist|\.git|reports|coverage|\.scratch|\.stryker-tmp)$/.test(
          source.slice(repo.length + 1).split("/")[0] ?? ""
        )
    })
    symlinkSync(join(repo, "node_modules"), join(copy, "node_modules"), "dir")
    mkdirSync(packed)
    const pack = await run("npm", ["run", "package", "--", "--pack-destination", packed], copy)
    if (pack.code !== 0) throw new Error(`npm run package failed (${pack.code}):\n${pack.stdout}\n${pack.stderr}`)
    const [name] = readdirSync(packed).filter((f) => f.endsWith(".tgz"))
    tarball = join(packed, name!)
    files = (await run("tar", ["-tzf", tarball], work)).stdout.trim().split("\n").map((f) =>
      f.replace(/^package\//, "")
    )

    mkdirSync(consumer)
    writeFileSync(
      join(consumer, "package.json"),
      `${JSON.stringify({ name: "consumer", private: true, type: "module" })}\n`
    )
    cpSync(join(repo, "cases"), join(consumer, "cases"), { recursive: true })
    const install = await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], consumer)
    if (install.code !== 0) {
      throw new Error(`npm install failed (${install.code}):\n${install.stdout}\n${install.stderr}`)
    }
  }, 300_000)

  // The install alone is about 90 MB: deleting it can outlast the default 10 s hook timeout on a busy machine.
  afterAll(() => rmSync(work, { recursive: true, force: true }), 120_000)

  it("holds what a user needs", () => {
    for (
      const needed of [
        "package.json",
        "README.md",
        "LICENSE",
        "dist/eval.js",
        "dist/index.js",
        "dist/vitest.js",
        "dist/types/index.d.ts",
        "dist/types/Vitest.d.ts",
        "dist/types/Runner/SurfaceClient.d.ts"
      ]
    ) expect(files).toContain(needed)
    expect(files.filter((f) => f.startsWith("dist/chunks/")).length).toBeGreaterThan(0)
    // Every relative import of the bundles, static or on demand, is in the tarball.
    for (const bundle of files.filter((f) => f.endsWith(".js"))) {
      const text = readFileSync(join(copy, bundle), "utf8")
      for (const [, target] of text.matchAll(/(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g)) {
        expect(files).toContain(join(bundle, "..", target!))
      }
    }
  })

  it("holds nothing else: no sources, tests, benchmarks, recorded turns, scripts or CI files", () => {
    expect(files.filter((f) => !allowed.some((pattern) => pattern.test(f)))).toEqual([])
    expect(files.filter((f) => /^(src|test|bench|cases\/fixtures|scripts|examples|\.ci)\//.test(f))).toEqual([])
  })

  it("declares its entries, its bin and an optional vitest, with no private flag", async () => {
    const manifest = JSON.parse((await run("tar", ["-xzOf", tarball, "package/package.json"], work)).stdout)
    expect(manifest.private).toBeUndefined()
    // What only a checkout runs or installs stays there: no install script for npm to flag, and the
    // manifest packed is the working one without those two fields, which the pack leaves unchanged.
    const working = JSON.parse(readFileSync(join(copy, "package.json"), "utf8"))
    expect(working).toEqual(JSON.parse(readFileSync(join(repo, "package.json"), "utf8")))
    expect(working.scripts.prepare).toBeDefined()
    const { scripts: _scripts, devDependencies: _devDependencies, ...rest } = working
    expect(manifest).toEqual(rest)
    expect(manifest.bin).toEqual({ "turn-eval": "dist/eval.js" })
    expect(manifest.exports["."]).toEqual({ types: "./dist/types/index.d.ts", import: "./dist/index.js" })
    expect(manifest.exports["./vitest"]).toEqual({ types: "./dist/types/Vitest.d.ts", import: "./dist/vitest.js" })
    // Effect is the program's own: a peer of the library entries, never a dependency of the bin (bundled).
    // The one dependency is the linear-time pattern engine that \`answer-matches\` grades with.
    expect(manifest.dependencies).toEqual({ re2js: "^2.10.0" })
    expect(manifest.peerDependencies).toEqual({
      "@effect/platform": "^0.97.2",
      "@effect/platform-node": "^0.108.2",
      effect: "^3.22.4",
      vitest: ">=3.0.0"
    })
    expect(manifest.peerDependenciesMeta).toEqual({
      "@effect/platform": { optional: true },
      "@effect/platform-node": { optional: true },
      effect: { optional: true },
      vitest: { optional: true }
    })
    const installed = readdirSync(join(consumer, "node_modules"))
    expect(installed).not.toContain("vitest")
    expect(installed).not.toContain("effect")
    expect(installed).not.toContain("@effect")
  })

  it("runs `npx turn-eval --help` from an empty folder's install, listing every command", async () => {
    const help = await npx(["--help"])
    expect(help.stderr).toBe("")
    expect(help.code).toBe(0)
    const commands = commandsIn(help.stdout)
    expect(commands).toEqual(expect.arrayContaining(["run", "validate", "ratchet", "audit"]))
    expect(commands).toEqual(
      commandsIn((await run(process.execPath, [join(copy, "dist/eval.js"), "--help"], copy)).stdout)
    )
  })

  it("validates and grades a golden set with the installed bin, and refuses a bad file with its JSON path (exit 2)", async () => {
    const validate = await npx(["validate", "--cases", "cases/golden-cases.json", "--surfaces", "cases/surfaces.json"])
    expect(validate.code).toBe(0)
    expect(validate.stdout).toContain(validated.split("\n")[0])

    const graded = await npx(["run", "--fixtures", "cases/fixtures"])
    expect(graded.code).toBe(0)
    expect(graded.stdout).toContain(offlineTally)

    const broken = JSON.parse(readFileSync(join(consumer, "cases/golden-cases.json"), "utf8"))
    broken.cases[2].surface = "billing"
    writeFileSync(join(consumer, "broken.json"), JSON.stringify(broken))
    const refused = await npx(["validate", "--cases", "broken.json", "--surfaces", "cases/surfaces.json"])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain("broken.json: $.cases[2].surface")
    expect(refused.stderr).not.toMatch(stackFrame)
  })

  it("type-checks a TypeScript program importing the typed API (nodenext) once the README's peers are installed, and runs it", async () => {
    const command = /^npm install -D turn-eval (.*)$/m.exec(readFileSync(join(repo, "README.md"), "utf8"))![1]!.split(
      " "
    )
    const peers = await run("npm", [
      "install",
      "--no-audit",
      "--no-fund",
      "--prefer-offline",
      "-D",
      tarball,
      ...command
    ], consumer)
    expect(peers.code, peers.stderr).toBe(0)
    writeFileSync(join(consumer, "consumer.ts"), consumerProgram)
    writeFileSync(
      join(consumer, "tsconfig.json"),
      JSON.stringify({
        compilerOptions: {
          target: "ES2022",
          lib: ["ES2022"],
          module: "NodeNext",
          moduleResolution: "NodeNext",
          strict: true,
          verbatimModuleSyntax: true,
          skipLibCheck: true,
          typeRoots: [resolve(repo, "node_modules/@types")],
          types: ["node"],
          outDir: "out"
        },
        files: ["consumer.ts"]
      })
    )
    const tsc = await run(
      process.execPath,
      [resolve(repo, "node_modules/typescript/bin/tsc"), "-p", "tsconfig.json"],
      consumer
    )
    expect(tsc.stdout + tsc.stderr).toBe("")
    expect(tsc.code).toBe(0)
    const ran = await run(process.execPath, ["out/consumer.js"], consumer)
    expect(ran.stderr).toBe("")
    expect(JSON.parse(ran.stdout)).toEqual({ total: caseCount, passed: passingOnFixtures, failing: failingOnFixtures })
  })

  it("is refused by npm in an Effect 4 project, naming the peer, instead of adding a second Effect", async () => {
    const effect4 = mkdtempSync(join(work, "effect4-"))
    writeFileSync(
      join(effect4, "package.json"),
      `${JSON.stringify({ name: "effect4", private: true, dependencies: { effect: "^4.0.0" } })}\n`
    )
    const install = await run("npm", ["install", "--no-audit", "--no-fund", "--prefer-offline", tarball], effect4)
    expect(install.code).not.toBe(0)
    expect(install.stderr).toContain("ERESOLVE")
    expect(install.stderr).toContain(`peerOptional effect@"^3.22.4" from turn-eval@`)
  })

  describe("in an empty folder, as npx runs it", () => {
    /** `npx turn-eval …` where nothing is installed: npx fetches the package, here the tarball. */
    const npxAnywhere = (args: ReadonlyArray<string>, cwd: string) =>
      run("npx", ["--yes", `--package=${tarball}`, "--", "turn-eval", ...args], cwd)
    const emptyFolder = () => mkdtempSync(join(work, "empty-"))
    const readme = readFileSync(join(repo, "README.md"), "utf8")
    const section = /### In a project of your own\n[\s\S]*?```sh\n([\s\S]*?)```\n\n```\n([\s\S]*?)```/.exec(readme)!

    it("runs the README's init and run: the starter written as shown, one recorded turn failing, the floor held", async () => {
      const [init, grade] = section[1]!.trim().split("\n").map((line) => line.replace(/^npx turn-eval /, "").split(" "))
      const dir = emptyFolder()
      const written = await npxAnywhere(init!, dir)
      expect(written.stderr).toBe("")
      expect(written.code).toBe(0)
      expect(written.stdout).toBe(section[2]!)
      const graded = await npxAnywhere(grade!, dir)
      expect(graded.code).toBe(0)
      expect(graded.stdout).toContain("1/2 passed · pass rate 0.5000 · floor 0.5000 · holds the floor")
      // The first of the next commands init printed, as printed.
      const next = /^ {2}(npx turn-eval run .*)$/m.exec(written.stdout)![1]!.replace(/^npx turn-eval /, "").split(" ")
      expect((await npxAnywhere(next, dir)).code).toBe(0)
    })

    it("runs demo from the package's own golden set", async () => {
      const demo = await npxAnywhere(["demo"], emptyFolder())
      expect(demo.stderr).toBe("")
      expect(demo.code).toBe(0)
      expect(demo.stdout).toContain("asking the package's own golden set (npx turn-eval init writes a starter)")
      expect(demo.stdout).toContain(standInHolds)
    })

    it("names itself npx turn-eval in its help", async () => {
      const help = await npxAnywhere(["--help"], emptyFolder())
      expect(help.stdout).toMatch(/^Usage: npx turn-eval <command> \[options\]$/m)
      const run = await npxAnywhere(["run", "--help"], emptyFolder())
      expect(run.stdout).toContain("  npx turn-eval run --fixtures cases/fixtures --check")
    })
  })
})
