/**
 * The build in a checkout. `npm run eval` starts at once: it builds the bundles only when an input is
 * newer than its last build, and never the type declarations, which only `npm pack` needs. A
 * production install (`npm ci --omit=dev`, no builder) succeeds. Each runs in a copy of the project,
 * so the dist/ other tests use is never rebuilt under them.
 */
import { cpSync, existsSync, mkdtempSync, rmSync, statSync, symlinkSync, utimesSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { afterAll, describe, expect, it } from "vitest"
import { spawnAsync, userEnv } from "../support/cli.js"
import { caseCount } from "../support/golden.js"

const repo = process.cwd()
const copy = mkdtempSync(join(tmpdir(), "eval-build-"))
for (
  const entry of [
    "src",
    "scripts",
    "cases",
    "package.json",
    "package-lock.json",
    "tsconfig.json",
    "tsconfig.build.json"
  ]
) {
  cpSync(join(repo, entry), join(copy, entry), { recursive: true })
}
symlinkSync(join(repo, "node_modules"), join(copy, "node_modules"), "dir")
afterAll(() => rmSync(copy, { recursive: true, force: true }))

const npmRunEval = (args: ReadonlyArray<string>) =>
  spawnAsync("npm", ["run", "-s", "eval", "--", ...args], { cwd: copy, env: { ...userEnv(), NO_COLOR: "1" } })
const builtAt = () => statSync(join(copy, "dist/eval.js")).mtimeMs

describe("npm run eval in a checkout", () => {
  it("builds the bundles without declarations when dist/ is missing, then runs the command", async () => {
    const run = await npmRunEval(["validate"])
    expect(run.stderr).toBe("")
    expect(run.code).toBe(0)
    expect(run.stdout).toContain(`cases/golden-cases.json: ${caseCount} cases`)
    expect(existsSync(join(copy, "dist/eval.js"))).toBe(true)
    expect(existsSync(join(copy, "dist/types"))).toBe(false)
  })

  it("builds nothing when dist/ is newer than every input", async () => {
    const before = builtAt()
    const run = await npmRunEval(["--help"])
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/^Usage: npm run eval -- <command> \[options\]$/m)
    expect(builtAt()).toBe(before)
  })

  it.each(["src/Cli.ts", "scripts/build.mjs", "package.json", "package-lock.json"])(
    "builds again when %s is newer than dist/",
    async (input) => {
      const before = builtAt()
      const now = new Date()
      utimesSync(join(copy, input), now, now)
      const run = await npmRunEval(["--version"])
      expect(run.code).toBe(0)
      expect(builtAt()).toBeGreaterThan(before)
      expect(existsSync(join(copy, "dist/types"))).toBe(false)
      // And, built, it is fresh again.
      const after = builtAt()
      expect((await npmRunEval(["--version"])).code).toBe(0)
      expect(builtAt()).toBe(after)
    }
  )
})

describe("npm ci --omit=dev in a fresh checkout", () => {
  it("installs without the builder and succeeds, saying why dist/ is not built", async () => {
    const clone = mkdtempSync(join(tmpdir(), "eval-production-"))
    try {
      for (const entry of ["src", "scripts", "package.json", "package-lock.json"]) {
        cpSync(join(repo, entry), join(clone, entry), { recursive: true })
      }
      const install = await spawnAsync("npm", ["ci", "--omit=dev", "--no-audit", "--no-fund", "--prefer-offline"], {
        cwd: clone,
        env: { ...userEnv(), NO_COLOR: "1" },
        timeoutMs: 180_000
      })
      expect(install.code, install.stderr).toBe(0)
      expect(install.stderr).toContain("esbuild is not installed (a production install), so dist/ is not built")
      expect(existsSync(join(clone, "node_modules/esbuild"))).toBe(false)
    } finally {
      rmSync(clone, { recursive: true, force: true })
    }
  }, 200_000)
})
