/** GitHub annotations through the built CLI: on the cases file's path from the repository root, whatever folder the command ran from. */
import { spawnSync } from "node:child_process"
import { cpSync, mkdirSync, mkdtempSync } from "node:fs"
import { tmpdir } from "node:os"
import { join, resolve } from "node:path"
import { describe, expect, it } from "vitest"
import { evalCli, scratchProject } from "../support/cli.js"
import { failingOnFixtures } from "../support/golden.js"

describe("GitHub annotations", () => {
  /** A git repository holding the project in app/, run from app/sub/ with the paths typed from there. */
  const nested = (git: boolean) => {
    const top = mkdtempSync(join(tmpdir(), "eval-repo-"))
    const app = join(top, "app")
    mkdirSync(join(app, "sub"), { recursive: true })
    cpSync(scratchProject(), app, { recursive: true })
    if (git) expect(spawnSync("git", ["init", "-q", top]).status).toBe(0)
    return { top, app, sub: join(app, "sub") }
  }
  const annotate = (cwd: string, env: NodeJS.ProcessEnv) => {
    const run = evalCli(
      [
        "run",
        "--cases",
        "../cases/golden-cases.json",
        "--surfaces",
        "../cases/surfaces.json",
        "--fixtures",
        "../cases/fixtures",
        "--reporter",
        "github"
      ],
      {
        cwd,
        env: {
          GITHUB_ACTIONS: "true",
          GITHUB_STEP_SUMMARY: "",
          GITHUB_WORKSPACE: "",
          GIT_CEILING_DIRECTORIES: tmpdir(),
          ...env
        }
      }
    )
    expect(run.code, run.stderr).toBe(0)
    const files = run.stdout.split("\n").filter((l) => l.startsWith("::error ")).map((l) => /file=([^,]*),/.exec(l)![1])
    expect(files).toHaveLength(failingOnFixtures.length)
    return [...new Set(files)]
  }

  it(
    "point at the cases file from the git top level when run from a subfolder; outside one, or without git, from the " +
      "current folder",
    () => {
      const repo = nested(true)
      expect(annotate(repo.sub, {})).toEqual(["app/cases/golden-cases.json"])
      expect(annotate(nested(false).sub, {})).toEqual(["../cases/golden-cases.json"])
      expect(annotate(repo.sub, { PATH: resolve(repo.top, "no-bin") })).toEqual(["../cases/golden-cases.json"])
    }
  )

  it("point at the cases file from $GITHUB_WORKSPACE when it is set", () => {
    const { app, sub } = nested(true)
    expect(annotate(sub, { GITHUB_WORKSPACE: app })).toEqual(["cases/golden-cases.json"])
  })
})
