/**
 * The files the suite reads and writes, through the real CLI: only regular files are read, within a
 * size cap per file and a length cap per JSON line, and fast; strict files refuse duplicate keys; a
 * symlinked baseline stays a link; a write that cannot finish says why.
 */
import { describe, expect, it } from "@effect/vitest"
import { spawn, spawnSync } from "node:child_process"
import {
  chmodSync,
  closeSync,
  copyFileSync,
  cpSync,
  ftruncateSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync
} from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { bin, type CliRun, evalCli, notesOf, scratchProject, spawnAsync, stackFrame } from "../support/cli.js"
import { floorOf, offlineScore, passingOnFixtures, rateOf } from "../support/golden.js"

const scratch = () => mkdtempSync(join(tmpdir(), "eval-files-"))

/**
 * Runs the CLI with at most about 2 GiB of address space and for at most 30 s: a reader that follows
 * /dev/zero or waits on a FIFO is killed, not left to fill the machine, and its exit code (none) fails
 * the test. The refusals are not timed: a clock would go red on a loaded machine, not on a hang.
 */
const bounded = (args: ReadonlyArray<string>, cwd = process.cwd()): Promise<CliRun> =>
  spawnAsync("sh", ["-c", "ulimit -v 2000000; exec \"$0\" \"$@\"", process.execPath, bin, ...args], {
    cwd,
    env: { ...process.env, NO_COLOR: "1", GITHUB_ACTIONS: "", GITHUB_STEP_SUMMARY: "" },
    timeoutMs: 30_000
  })

/** Past the kill of a reader that hangs, so that the failure names the run; the 17-run loop has more. */
const oneRun = 60_000

const fifo = (file: string) => {
  const made = spawnSync("mkfifo", [file])
  expect(made.status, made.stderr?.toString()).toBe(0)
  return file
}

/** A sparse file of `bytes` bytes: it costs no disk, and a reader sees its full size. */
const sparse = (file: string, bytes: number) => {
  const fd = openSync(file, "w")
  ftruncateSync(fd, bytes)
  closeSync(fd)
  return file
}

const MiB = 1024 * 1024

describe("special files and oversized files", () => {
  it("validate --cases /dev/zero ends at once in exit 2, naming the file", async () => {
    const run = await bounded(["validate", "--cases", "/dev/zero"])
    expect(run.stderr).toBe("/dev/zero: cannot read: not a regular file (a character device)\n")
    expect(run.code).toBe(2)
  }, oneRun)

  it("every whole-file input refuses a link to /dev/zero, a FIFO and a folder, naming what it is", async () => {
    const dir = scratch()
    const zero = join(dir, "zero.json")
    symlinkSync("/dev/zero", zero)
    const pipe = fifo(join(dir, "pipe.json"))
    const folder = join(dir, "folder.json")
    mkdirSync(folder)
    const what = new Map([[zero, "a character device"], [pipe, "a FIFO"], [folder, "a folder"]])
    for (const [file, kind] of what) {
      for (
        const args of [
          ["validate", "--cases", file],
          ["validate", "--surfaces", file],
          ["validate", "--baseline", file],
          ["run", "--fixtures", "cases/fixtures", "--baseline", file, "--check"],
          ["ratchet", "--from", file, "--baseline", join(dir, "baseline.json")],
          // A folder is a folder of traces to --otel.
          ...(kind === "a folder" ? [] : [["run", "--otel", file]])
        ]
      ) {
        const run = await bounded(args)
        expect(run.stderr, args.join(" ")).toBe(`${file}: cannot read: not a regular file (${kind})\n`)
        expect(run.code, args.join(" ")).toBe(2)
        expect(run.stdout, args.join(" ")).toBe("")
      }
    }
  }, 180_000)

  it("a golden set over 64 MiB is refused by its size, without being read", async () => {
    const dir = scratch()
    const file = sparse(join(dir, "cases.json"), 65 * MiB)
    const run = await bounded(["validate", "--cases", file])
    expect(run.stderr).toBe(`${file}: cannot read: 65.0 MiB, over the 64 MiB limit for one file\n`)
    expect(run.code).toBe(2)
  }, oneRun)

  it(
    "a recording that links to /dev/zero, is a FIFO or is over 64 MiB fails its own case; the others grade",
    async () => {
      const dir = scratch()
      const fixtures = join(dir, "fixtures")
      cpSync("cases/fixtures", fixtures, { recursive: true })
      const passing = [
        "docs.refund-window-cites-source",
        "docs.rollback-cites-rollbacks-page",
        "docs.thanks-no-tools-no-citations"
      ]
      const [zero, pipe, big] = passing.map((id) => join(fixtures, `${id}.json`)) as [string, string, string]
      for (const file of [zero, pipe, big]) rmSync(file)
      symlinkSync("/dev/zero", zero)
      fifo(pipe)
      sparse(big, 65 * MiB)
      const run = await bounded(["run", "--fixtures", fixtures, "--json", join(dir, "r.json")])
      expect(run.notes).toBe("")
      expect(run.code).toBe(0)
      const results = JSON.parse(readFileSync(join(dir, "r.json"), "utf8")) as {
        passedCount: number
        cases: Array<{ id: string; passed: boolean; error?: string }>
      }
      const errorOf = (id: string) => results.cases.find((c) => c.id === id)?.error
      expect(errorOf(passing[0]!)).toBe(`recorded turn ${zero}: cannot read: not a regular file (a character device)`)
      expect(errorOf(passing[1]!)).toBe(`recorded turn ${pipe}: cannot read: not a regular file (a FIFO)`)
      expect(errorOf(passing[2]!)).toBe(
        `recorded turn ${big}: cannot read: 65.0 MiB, over the 64 MiB limit for one file`
      )
      expect(results.passedCount).toBe(passingOnFixtures - 3)
    },
    oneRun
  )

  it("audit --traces /dev/zero and a FIFO end in exit 2 naming the file", async () => {
    const dir = scratch()
    const pipe = fifo(join(dir, "turns.jsonl"))
    for (const [file, kind] of [["/dev/zero", "a character device"], [pipe, "a FIFO"]] as const) {
      const run = await bounded(["audit", "--surface", "docs", "--expect", "cites-only-surfaced", "--traces", file])
      expect(run.stderr).toBe(`${file}: cannot read: not a regular file (${kind})\n`)
      expect(run.code).toBe(2)
    }
  }, oneRun)

  it("audit --traces - keeps a cap of 32 MiB on one line of standard input", async () => {
    const child = spawn(process.execPath, [
      bin,
      "audit",
      "--surface",
      "docs",
      "--expect",
      "cites-only-surfaced",
      "--traces",
      "-"
    ], {
      env: { ...process.env, NO_COLOR: "1" }
    })
    let stdout = ""
    let stderr = ""
    child.stdout.setEncoding("utf8").on("data", (c: string) => (stdout += c))
    child.stderr.setEncoding("utf8").on("data", (c: string) => (stderr += c))
    child.stdin.on("error", () => {}) // the CLI may stop reading before the whole line is sent
    const turn = readFileSync("cases/fixtures/docs.refund-window-cites-source.json", "utf8").replace(/\s*\n\s*/g, " ")
    child.stdin.write(`${turn}\n`)
    child.stdin.end(Buffer.alloc(33 * MiB, "x"))
    const code = await new Promise<number | null>((resolve) => child.on("close", resolve))
    expect(stderr).toBe("stdin:2: cannot read: longer than the 32 MiB limit for one JSON line\n")
    expect(code).toBe(2)
    expect(stdout).toBe("")
  })
})

describe("duplicate keys", () => {
  /** `document` as JSON text with `key` given a second time in the object at `at`. */
  const duplicated = (document: unknown, at: ReadonlyArray<string | number>, key: string, value: unknown): string => {
    const marker = "\u0000duplicate"
    const target = at.reduce<Record<string | number, unknown>>(
      (v, k) => v[k] as Record<string | number, unknown>,
      document as never
    )
    target[marker] = null
    return JSON.stringify(document, null, 2).replace(
      `${JSON.stringify(marker)}: null`,
      `${JSON.stringify(key)}: ${JSON.stringify(value)}`
    )
  }

  it("the baseline, the golden set, the catalog and a results file refuse one with its JSON path (exit 2)", () => {
    const dir = scratchProject()
    writeFileSync(join(dir, "baseline.json"), "{\"floor\": 0.95, \"floor\": 0.9}\n")
    const baseline = evalCli(["validate"], { cwd: dir })
    expect(baseline.stderr).toBe("baseline.json: $.floor: duplicate key \"floor\"\n")
    expect(baseline.code).toBe(2)
    const check = evalCli(["run", "--fixtures", "cases/fixtures", "--check"], { cwd: dir })
    expect(check.stderr).toBe("baseline.json: $.floor: duplicate key \"floor\"\n")
    expect(check.code).toBe(2)
    // Escapes name the same key.
    writeFileSync(join(dir, "baseline.json"), "{\"floor\": 0.9, \"fl\\u006fo\\u0072\": 0.8}")
    expect(evalCli(["validate"], { cwd: dir }).stderr).toBe("baseline.json: $.floor: duplicate key \"floor\"\n")
    writeFileSync(join(dir, "baseline.json"), "{\"floor\": 0.8181}\n")

    const cases = JSON.parse(readFileSync("cases/golden-cases.json", "utf8"))
    writeFileSync(
      join(dir, "cases/golden-cases.json"),
      duplicated(cases, ["cases", 0, "expect", 0], "kind", "cites-only-surfaced")
    )
    const nested = evalCli(["validate"], { cwd: dir })
    expect(nested.stderr).toBe("cases/golden-cases.json: $.cases[0].expect[0].kind: duplicate key \"kind\"\n")
    expect(nested.code).toBe(2)
    cpSync("cases/golden-cases.json", join(dir, "cases/golden-cases.json"))

    const catalog = JSON.parse(readFileSync("cases/surfaces.json", "utf8"))
    writeFileSync(join(dir, "cases/surfaces.json"), duplicated(catalog, ["surfaces", "docs"], "tools", ["search_docs"]))
    const surfaces = evalCli(["validate"], { cwd: dir })
    expect(surfaces.stderr).toBe("cases/surfaces.json: $.surfaces.docs.tools: duplicate key \"tools\"\n")
    expect(surfaces.code).toBe(2)
    cpSync("cases/surfaces.json", join(dir, "cases/surfaces.json"))

    expect(evalCli(["run", "--fixtures", "cases/fixtures", "--json", "r.json"], { cwd: dir }).code).toBe(0)
    const results = JSON.parse(readFileSync(join(dir, "r.json"), "utf8"))
    writeFileSync(join(dir, "r.json"), duplicated(results, [], "passRate", 1))
    const ratchet = evalCli(["ratchet", "--from", "r.json"], { cwd: dir })
    expect(ratchet.stderr).toBe("r.json: $.passRate: duplicate key \"passRate\"\n")
    expect(ratchet.code).toBe(2)
    expect(JSON.parse(readFileSync(join(dir, "baseline.json"), "utf8"))).toEqual({ floor: 0.8181 })
  })

  it("a recording, read leniently, may still repeat a key", () => {
    const dir = scratch()
    const fixtures = join(dir, "fixtures")
    cpSync("cases/fixtures", fixtures, { recursive: true })
    const file = join(fixtures, "docs.refund-window-cites-source.json")
    const turn = JSON.parse(readFileSync(file, "utf8"))
    writeFileSync(file, duplicated(turn, [], "answer", turn.answer))
    const run = evalCli(["run", "--fixtures", fixtures, "--json", join(dir, "r.json")])
    expect(run.code).toBe(0)
    expect(JSON.parse(readFileSync(join(dir, "r.json"), "utf8")).passedCount).toBe(passingOnFixtures)
  })
})

describe("writing files", () => {
  it("a ratchet writes through a symlinked baseline to its target; the link stays a link", () => {
    const dir = scratchProject()
    mkdirSync(join(dir, "shared"))
    writeFileSync(join(dir, "shared", "baseline.json"), "{\"floor\": 0.5}\n")
    symlinkSync(join("shared", "baseline.json"), join(dir, "baseline.json"))
    expect(evalCli(["run", "--fixtures", "cases/fixtures", "--json", "r.json"], { cwd: dir }).code).toBe(0)
    const run = evalCli(["ratchet", "--from", "r.json"], { cwd: dir })
    expect(run.stderr).toBe("")
    const raised = `floor raised 0.5000 → ${rateOf(passingOnFixtures)} (${offlineScore} passed); wrote baseline.json`
    expect(run.stdout.trim()).toBe(raised)
    expect(lstatSync(join(dir, "baseline.json")).isSymbolicLink()).toBe(true)
    expect(readlinkSync(join(dir, "baseline.json"))).toBe(join("shared", "baseline.json"))
    const written = JSON.parse(readFileSync(join(dir, "shared", "baseline.json"), "utf8"))
    expect(written.floor).toBe(floorOf(passingOnFixtures))
    // The golden set is named from the link's folder, where the baseline is named: each project linking a
    // shared baseline finds its own cases beside the link.
    expect(written.cases).toBe("cases/golden-cases.json")
    expect(readdirSync(join(dir, "shared"))).toEqual(["baseline.json"])
    expect(readdirSync(dir).filter((f) => f.includes("baseline"))).toEqual(["baseline.json"])
  })

  it("a step summary that cannot be appended says why: a full disk", () => {
    const run = evalCli(["run", "--fixtures", "cases/fixtures", "--reporter", "github"], {
      env: { GITHUB_ACTIONS: "", GITHUB_STEP_SUMMARY: "/dev/full", CI: "" }
    })
    expect(run.notes).toBe("/dev/full: cannot append the summary to $GITHUB_STEP_SUMMARY: no space left on device\n")
    expect(run.code).toBe(2)
  })

  it("a step summary cut short is reported, and what was cut is taken back", () => {
    const dir = scratch()
    const summary = join(dir, "summary.md")
    const earlier = `${"an earlier step's summary\n".repeat(30)}`
    writeFileSync(summary, earlier)
    // A file size limit of 1 KiB: the summary (a few KiB) fits only in part.
    const run = spawnSync("sh", [
      "-c",
      "ulimit -f 2; exec \"$0\" \"$@\"",
      process.execPath,
      bin,
      "run",
      "--fixtures",
      "cases/fixtures",
      "--reporter",
      "github"
    ], {
      env: { ...process.env, NO_COLOR: "1", GITHUB_ACTIONS: "", GITHUB_STEP_SUMMARY: summary, CI: "" },
      encoding: "utf8"
    })
    expect(notesOf(run.stderr)).toMatch(
      new RegExp(
        `^${
          summary.replace(/[.]/g, "\\.")
        }: cannot append the summary to \\$GITHUB_STEP_SUMMARY: wrote only \\d+ of \\d+ bytes\\n$`
      )
    )
    expect(run.status).toBe(2)
    expect(readFileSync(summary, "utf8")).toBe(earlier)
  })

  it("a report under a file says it is not a folder, with no temporary file named", () => {
    const dir = scratch()
    writeFileSync(join(dir, "reports"), "a file where the folder should be\n")
    for (const report of [join(dir, "reports", "eval.xml"), join(dir, "reports", "ci", "eval.xml")]) {
      const run = evalCli(["run", "--fixtures", "cases/fixtures", "--reporter", `junit=${report}`])
      expect(run.notes).toBe(`${report}: cannot write: ${join(dir, "reports")} is not a folder\n`)
      expect(run.code).toBe(2)
      expect(run.stderr).not.toMatch(stackFrame)
    }
  })

  it("a report under a read-only folder says permission denied, not no such file", () => {
    const dir = scratch()
    const readOnly = join(dir, "read-only")
    mkdirSync(readOnly)
    // A copy of the bin and the golden set that any user can read, wherever the checkout is.
    cpSync("dist", join(dir, "dist"), { recursive: true })
    cpSync("cases", join(dir, "cases"), { recursive: true })
    chmodSync(dir, 0o755)
    chmodSync(readOnly, 0o555)
    // Root ignores permission bits, so as root the CLI runs as nobody, as CI's root cannot otherwise see this.
    const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {}
    // And with a Node it may run: this one may sit where nobody cannot reach (a version manager's, under /root).
    const node = spawnSync(process.execPath, ["-e", "0"], asUser).status === 0 ? process.execPath : join(dir, "node")
    if (node !== process.execPath) copyFileSync(process.execPath, node)
    const expected = [
      [join(readOnly, "eval.xml"), "permission denied"],
      [join(readOnly, "reports", "eval.xml"), `cannot make the folder ${join(readOnly, "reports")}: permission denied`]
    ] as const
    for (const [report, why] of expected) {
      const run = spawnSync(node, [
        "dist/eval.js",
        "run",
        "--fixtures",
        "cases/fixtures",
        "--reporter",
        `junit=${report}`
      ], {
        cwd: dir,
        env: { ...process.env, NO_COLOR: "1" },
        encoding: "utf8",
        ...asUser
      })
      expect(notesOf(run.stderr)).toBe(`${report}: cannot write: ${why}\n`)
      expect(run.status).toBe(2)
    }
  })
})
