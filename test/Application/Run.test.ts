/**
 * The application's run, in this process: which source the flags choose and which combinations they
 * refuse, which cases a filter or a shard selects, and the floor a run is held to — on the committed
 * golden set and its recorded turns (the fixture SurfaceClient), or a table of turns.
 */
import { NodeContext } from "@effect/platform-node"
import { describe, expect, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Exit, Option, Redacted } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { gradeRun, selectRun, type Source } from "../../src/Application/Run.js"
import { checkRun, runHandler, type RunRequest } from "../../src/Commands/Run.js"
import { noFloorYet, programName } from "../../src/ProgramName.js"
import { defaultCasesFile, defaultSurfacesFile } from "../../src/ProjectFiles.js"
import { loadGoldenSet } from "../../src/Runner/GoldenSet.js"
import { SurfaceClient } from "../../src/Runner/SurfaceClient.js"
import { caseSetFingerprint } from "../../src/Scorecard/CaseSet.js"
import { floorFor } from "../../src/Scorecard/Scorecard.js"
import { withCapturedConsole } from "../support/console.js"
import { failingOnFixtures } from "../support/golden.js"

const fixtures = "cases/fixtures"
const committed = loadGoldenSet(defaultCasesFile, defaultSurfacesFile)

/** An environment holding only these variables: the session a live source signs in with is never the tester's. */
const withEnv = (vars: Record<string, string> = {}) =>
  Effect.withConfigProvider(ConfigProvider.fromMap(new Map(Object.entries(vars))))

/** A run's request, over the golden set read from its files. */
type FromFiles = RunRequest & { readonly cases: string; readonly surfaces: string }

/** The message a run fails with. */
const message = (request: FromFiles) => runHandler(request).pipe(Effect.flip, Effect.map((e) => e.message))

/** The message a refused request fails with. */
const refusal = (request: RunRequest, env: Record<string, string> = {}) =>
  checkRun(request).pipe(withEnv(env), Effect.flip, Effect.map((error) => error.message))

/** A run of the committed golden set on its recorded turns, quiet while it goes. */
const offline = (extra: Partial<RunRequest> = {}): FromFiles => ({
  cases: defaultCasesFile,
  surfaces: defaultSurfacesFile,
  baseline: "baseline.json",
  fixtures: Option.some(fixtures),
  timeout: 120,
  silent: true,
  ...extra
})

/** A baseline file holding `floor` (set by runs of `repeat` attempts when given). */
const baselineAt = (floor: number, repeat?: number): string => {
  const file = join(mkdtempSync(join(tmpdir(), "eval-app-")), "baseline.json")
  writeFileSync(file, JSON.stringify({ floor, ...(repeat === undefined ? {} : { repeat }) }))
  return file
}

/** The scorecard's last line: the tally and the floor's verdict. */
const verdictLine = (stdout: string): string => stdout.trimEnd().split("\n").at(-1) ?? ""

layer(NodeContext.layer)("the application's run", (it) => {
  describe("where turns come from", () => {
    it.effect("is the one source the flags name, with run's concurrency for it", () =>
      Effect.gen(function*() {
        const recorded = yield* checkRun(offline())
        expect(recorded.source).toEqual({ _tag: "Fixtures", dir: fixtures })
        expect(recorded.concurrency).toBe(1)

        const live = yield* checkRun({
          ...offline({ fixtures: Option.none() }),
          baseUrl: Option.some("http://127.0.0.1:5173/app")
        })
          .pipe(withEnv({ EVAL_COOKIE: "session=abc" }))
        expect(live.source).toMatchObject({ _tag: "Live", journal: true })
        expect(live.source._tag === "Live" && live.source.baseUrl.href).toBe("http://127.0.0.1:5173/app")
        expect(live.source._tag === "Live" && Redacted.value(live.source.auth.value)).toBe("session=abc")
        expect(live.concurrency).toBe(4)

        const header = yield* checkRun({
          ...offline({ fixtures: Option.none() }),
          baseUrl: Option.some("https://app.example")
        })
          .pipe(withEnv({ EVAL_AUTH_HEADER: "Authorization: Bearer t0ken" }))
        expect(header.source._tag === "Live" && header.source.auth.header).toBe("authorization")
        expect(header.source._tag === "Live" && Redacted.value(header.source.auth.value)).toBe("Bearer t0ken")

        const otel = yield* checkRun(offline({ fixtures: Option.none(), otel: ["traces/a.json", "traces/b.jsonl"] }))
        expect(otel.source).toEqual({ _tag: "Otel", files: ["traces/a.json", "traces/b.jsonl"] })

        const paced = yield* checkRun(offline({ concurrency: Option.some(3) }))
        expect(paced.concurrency).toBe(3)
      }))

    it.effect("is a source given already, without reading the source flags or the session", () =>
      Effect.gen(function*() {
        const source: Source = {
          _tag: "Live",
          baseUrl: new URL("http://127.0.0.1:8787"),
          auth: { header: "cookie", value: Redacted.make("session=standin") },
          journal: false
        }
        // Both sessions set would be refused for --base-url: a source chosen already reads neither.
        const plan = yield* checkRun({
          baseline: "baseline.json",
          timeout: 30,
          source
        })
          .pipe(withEnv({ EVAL_COOKIE: "session=a", EVAL_AUTH_HEADER: "x-api-key: b" }))
        expect(plan.source).toBe(source)
        expect(plan.concurrency).toBe(4)
        expect(plan.reporters).toEqual([{ name: "pretty" }])
      }))

    it.effect("refuses flags that name no source, two sources, or a source that cannot be used, saying which", () =>
      Effect.gen(function*() {
        const none = offline({ fixtures: Option.none() })
        expect(yield* refusal(none)).toBe(
          "say where turns come from: --fixtures DIR (recorded turns), --base-url URL (a live app) or --otel FILE (OpenTelemetry traces)"
        )
        expect(yield* refusal(offline({ otel: ["a.json"] })))
          .toBe("--otel cannot be used with --fixtures or --base-url: pick one source of turns")
        expect(yield* refusal(offline({ baseUrl: Option.some("http://127.0.0.1:5173") })))
          .toBe("--fixtures and --base-url cannot be used together: pick one source of turns")
        expect(yield* refusal(offline({ fixtures: Option.some("cases/no-such-folder") })))
          .toBe("--fixtures cases/no-such-folder: no such folder")
        expect(yield* refusal({ ...none, baseUrl: Option.some("ftp://127.0.0.1") }))
          .toBe("--base-url ftp://127.0.0.1: expected an http(s) URL such as http://127.0.0.1:5173")
        expect(yield* refusal({ ...none, baseUrl: Option.some("http://me:secret@127.0.0.1/app") }))
          .toBe(
            "--base-url http://127.0.0.1/app: expected an http(s) URL without credentials; the session goes in EVAL_COOKIE"
          )
        expect(yield* refusal({ ...none, baseUrl: Option.some("http://127.0.0.1") })).toMatch(
          /^a live run needs the session: /
        )
        expect(
          yield* refusal({ ...none, baseUrl: Option.some("http://127.0.0.1") }, {
            EVAL_COOKIE: "a=b",
            EVAL_AUTH_HEADER: "x-api-key: c"
          })
        )
          .toBe(
            "both a session cookie (EVAL_COOKIE) and EVAL_AUTH_HEADER are set: keep the one that signs in to this app"
          )
        expect(
          yield* refusal({
            ...none,
            baseUrl: Option.some("http://127.0.0.1"),
            cookie: Option.some(Redacted.make("nocookie"))
          })
        )
          .toBe("the session cookie must look like name=value, on one line")
      }))
  })

  describe("the flags, checked together before anything runs", () => {
    it.effect("refuses numbers out of range and flags that contradict each other, each with its message", () =>
      Effect.gen(function*() {
        const refused: ReadonlyArray<readonly [Partial<RunRequest>, string]> = [
          [{ concurrency: Option.some(0) }, "--concurrency must be at least 1"],
          [{ timeout: 0 }, "--timeout must be more than 0 seconds"],
          [{ bail: Option.some(0) }, "--bail must be at least 1"],
          [{ repeat: 0 }, "--repeat must be from 1 to 100"],
          [{ repeat: 101 }, "--repeat must be from 1 to 100"],
          [
            { repeat: 2, record: Option.some("recorded") },
            "--record keeps one turn per case, and --repeat obtains several: record with a run of its own"
          ],
          [
            { shard: Option.some("1/2"), filter: ["smoke"] },
            "--shard splits the whole golden set; it cannot be combined with --filter"
          ],
          [{ shard: Option.some("3/2") }, "--shard \"3/2\": expected i/n with 1 ≤ i ≤ n, such as 2/4"],
          [
            { reporter: ["json", "junit"] },
            "json and junit would both write to standard output: send all but one to a file, e.g. --reporter junit=report.xml"
          ],
          [
            { reporter: ["github=annotations.txt"] },
            "--reporter github takes no file: it annotates through standard output and appends its summary to $GITHUB_STEP_SUMMARY"
          ],
          [
            { reporter: ["github", "markdown"] },
            "--reporter github annotates through standard output, which would break the markdown report there: send that one to a file"
          ],
          [
            { reporter: ["json=r.json"], json: Option.some("r.json") },
            "two reporters write to r.json: give each its own file"
          ]
        ]
        for (const [flags, message] of refused) expect(yield* refusal(offline(flags))).toBe(message)
      }))

    it.effect("checks the numbers before the source, and the source before the reporters", () =>
      Effect.gen(function*() {
        const noSource = offline({ fixtures: Option.none(), reporter: ["bogus"] })
        expect(yield* refusal({ ...noSource, concurrency: Option.some(0) })).toBe("--concurrency must be at least 1")
        expect(yield* refusal(noSource)).toMatch(/^say where turns come from/)
        expect(yield* refusal(offline({ reporter: ["bogus"] }))).toMatch(/^--reporter "bogus": expected NAME/)
      }))

    it.effect("takes run's defaults for what a caller does not give", () =>
      Effect.gen(function*() {
        const plan = yield* checkRun({
          baseline: "b.json",
          timeout: 30,
          fixtures: Option.some(fixtures)
        })
        expect(plan).toMatchObject({
          repeat: 1,
          filter: [],
          shard: undefined,
          bail: undefined,
          record: undefined,
          compare: undefined,
          check: false,
          ratchet: false,
          keep: false,
          silent: false,
          reporters: [{ name: "pretty" }]
        })
      }))
  })

  describe("the cases a run covers", () => {
    it.effect("are the whole golden set, in its order, when nothing is filtered", () =>
      Effect.gen(function*() {
        const set = yield* committed
        const selection = yield* selectRun(set, { filter: [], shard: undefined })
        expect(selection.cases).toEqual(set.cases)
        expect(selection.part).toBeUndefined()
        expect(selection.shard).toBeUndefined()
      }))

    it.effect("are those whose id or tag a filter names, in the golden set's order, and a part of it", () =>
      Effect.gen(function*() {
        const set = yield* committed
        const last = set.cases.at(-1)!
        const tagged = set.cases.filter((c) => c.tags?.includes("smoke") === true)
        expect(tagged.length).toBeGreaterThan(0)
        expect(tagged.map((c) => c.id)).not.toContain(last.id)
        const selection = yield* selectRun(set, { filter: [last.id, "smoke"], shard: undefined })
        expect(selection.cases.map((c) => c.id)).toEqual([...tagged, last].map((c) => c.id))
        expect(selection.part).toEqual({ _tag: "Filtered", cases: tagged.length + 1, of: set.cases.length })

        // A filter that names every case is the whole set: the floor applies to it.
        const every = yield* selectRun(set, { filter: set.cases.map((c) => c.id), shard: undefined })
        expect(every.part).toBeUndefined()

        const nothing = yield* Effect.flip(selectRun(set, { filter: ["no-such-tag"], shard: undefined }))
        expect(nothing.message).toBe(`--filter "no-such-tag" matches no case id or tag in ${defaultCasesFile}`)
      }))

    it.effect("are, over the shards of a split, every case once, each shard in the golden set's order", () =>
      Effect.gen(function*() {
        const set = yield* committed
        const whole = caseSetFingerprint(set.cases)
        for (const count of [1, 2, 3, 5]) {
          const shards = yield* Effect.forEach(
            Array.from({ length: count }, (_, i) => i + 1),
            (index) => selectRun(set, { filter: [], shard: { index, count } })
          )
          const ids = shards.flatMap((s) => s.cases.map((c) => c.id))
          expect([...ids].sort()).toEqual(set.cases.map((c) => c.id).sort())
          expect(new Set(ids).size).toBe(set.cases.length)
          shards.forEach((s, i) => {
            const order = s.cases.map((c) => set.cases.indexOf(c))
            expect(order).toEqual([...order].sort((a, b) => a - b))
            expect(s.shard).toEqual({ index: i + 1, count, of: whole })
            expect(s.part).toEqual({ _tag: "Shard", index: i + 1, count, cases: s.cases.length, of: set.cases.length })
          })
        }
      }))
  })

  describe("what a run shows while it goes", () => {
    it.effect("off a terminal, a line per case on the Console service's standard error, in none when silent", () =>
      Effect.gen(function*() {
        const set = yield* committed
        const shown = yield* withCapturedConsole(runHandler(offline({ silent: false })))
        const lines = shown.stderr.split("\n").filter((line) => / \d+(\.\d+)?m?s$/.test(line))
        expect(lines.length).toBe(set.cases.length)
        for (const c of set.cases) expect(lines.filter((line) => line.includes(c.id)).length, c.id).toBe(1)
        const quiet = yield* withCapturedConsole(runHandler(offline({ silent: true })))
        expect(quiet.stderr.split("\n").filter((line) => / \d+(\.\d+)?m?s$/.test(line))).toEqual([])
      }))
  })

  describe("the floor a run is held to", () => {
    it.effect("holds under --check for a run exactly at its floor, and not for one a hair below", () =>
      Effect.gen(function*() {
        const set = yield* committed
        const passed = set.cases.length - failingOnFixtures.length
        const exactly = passed / set.cases.length

        const at = yield* withCapturedConsole(runHandler(offline({ baseline: baselineAt(exactly), check: true })))
        expect(at.exit).toEqual(Exit.void)
        expect(verdictLine(at.stdout)).toMatch(
          new RegExp(`^${passed}/${set.cases.length} passed · .* · holds the floor$`)
        )

        const above = yield* withCapturedConsole(
          runHandler(offline({ baseline: baselineAt(exactly + 1e-9), check: true }))
        )
        expect(Exit.isFailure(above.exit) && Exit.causeOption(above.exit)).toMatchObject(
          Option.some({ _tag: "Fail", error: { _tag: "GateFailed", reason: "below-floor" } })
        )
        expect(verdictLine(above.stdout)).toMatch(/ · below the floor$/)
      }))

    it.effect("refuses --check with no floor committed, and --check or --ratchet of a floor set at another K", () =>
      Effect.gen(function*() {
        const absent = join(mkdtempSync(join(tmpdir(), "eval-app-")), "baseline.json")
        expect(yield* message(offline({ baseline: absent, check: true }))).toBe(`${absent}: ${noFloorYet}`)
        const other = baselineAt(0.5, 3)
        const words =
          `the floor in ${other} was set with --repeat 3; it is not applied to a run with --repeat 1 (compare like with like)`
        expect(yield* message(offline({ baseline: other, check: true }))).toBe(`--check: ${words}`)
        expect(yield* message(offline({ baseline: other, ratchet: true }))).toBe(`--ratchet: ${words}, nor moved by it`)
        // Without either, the run is held to no floor, and says why.
        const held = yield* withCapturedConsole(runHandler(offline({ baseline: other })))
        expect(held.exit).toEqual(Exit.void)
        expect(verdictLine(held.stdout)).toContain(` · ${words}`)
      }))

    it.effect("is none for a part of the golden set, whose --check or --ratchet is refused", () =>
      Effect.gen(function*() {
        const set = yield* committed
        const smoke = set.cases.filter((c) => c.tags?.includes("smoke") === true).length
        const filtered = yield* withCapturedConsole(
          runHandler(offline({ baseline: baselineAt(1), filter: ["smoke"] }))
        )
        expect(filtered.exit).toEqual(Exit.void)
        expect(verdictLine(filtered.stdout))
          .toContain(` · the floor is not applied to a --filter'ed run (${smoke} of ${set.cases.length} cases)`)

        expect(yield* message(offline({ filter: ["smoke"], check: true })))
          .toBe("--check holds the floor of the whole golden set; a --filter'ed run cannot be checked against it")
        expect(yield* message(offline({ shard: Option.some("1/2"), ratchet: true })))
          .toBe(
            `--ratchet holds the floor of the whole golden set; a shard cannot move it (merge the shards: ${programName} merge … --check)`
          )

        const shard = yield* withCapturedConsole(runHandler(offline({ shard: Option.some("2/3") })))
        const cases = (yield* selectRun(set, { filter: [], shard: { index: 2, count: 3 } })).cases.length
        expect(verdictLine(shard.stdout))
          .toContain(
            ` · shard 2/3 (${cases} of ${set.cases.length} cases): ${programName} merge applies the floor to the whole`
          )
      }))

    it.effect("is none for a run that stopped early, which fails --check and cannot move it", () =>
      Effect.gen(function*() {
        const stopped = yield* withCapturedConsole(
          runHandler(offline({ baseline: baselineAt(0), bail: Option.some(1), check: true }))
        )
        expect(Exit.isFailure(stopped.exit) && Exit.causeOption(stopped.exit)).toMatchObject(
          Option.some({ _tag: "Fail", error: { _tag: "GateFailed", reason: "below-floor" } })
        )
        expect(verdictLine(stopped.stdout)).toMatch(
          / · stopped after 1 failed case \(--bail 1\): \d+ of \d+ cases not run; a partial run is held to no floor$/
        )
        const ratchet = yield* withCapturedConsole(
          runHandler(offline({ baseline: baselineAt(0), bail: Option.some(1), ratchet: true })).pipe(Effect.flip)
        )
        expect(Exit.isSuccess(ratchet.exit) && ratchet.exit.value).toMatchObject({ _tag: "Refused", reason: "ratchet" })
        expect(Exit.isSuccess(ratchet.exit) && ratchet.exit.value.message)
          .toMatch(
            /^--ratchet: the run stopped after 1 failed case \(--bail 1\): \d+ of \d+ cases not run: the floor moves only on a full run$/
          )
      }))

    it.effect("is none for a run that obtained no turn at all, which is refused as no measurement", () =>
      Effect.gen(function*() {
        const set = yield* committed
        const plan = yield* checkRun(offline({ baseline: baselineAt(0), check: true }))
        const run = yield* withCapturedConsole(gradeRun(plan, set, SurfaceClient.fromTable(new Map())))
        expect(Exit.isFailure(run.exit) && Exit.causeOption(run.exit)).toMatchObject(
          Option.some({ _tag: "Fail", error: { _tag: "Refused", reason: "not-a-measurement" } })
        )
        expect(verdictLine(run.stdout)).toContain(" · no case obtained its turn: the run measured nothing")
      }))

    it.effect("is raised by --ratchet to what a full run achieved, and never lowered", () =>
      Effect.gen(function*() {
        const set = yield* committed
        const passed = set.cases.length - failingOnFixtures.length
        const file = baselineAt(0.5)
        const raised = yield* withCapturedConsole(runHandler(offline({ baseline: file, ratchet: true })))
        expect(raised.exit).toEqual(Exit.void)
        const floor = floorFor(passed, set.cases.length)
        expect((JSON.parse(readFileSync(file, "utf8")) as { floor: number }).floor).toBe(floor)
        expect(raised.stdout).toContain(
          `floor raised 0.5000 → ${floor.toFixed(4)} (${passed}/${set.cases.length} passed); wrote ${file}`
        )

        const high = baselineAt(1)
        const kept = yield* withCapturedConsole(
          runHandler(offline({ baseline: high, ratchet: true, reporter: ["json"] }))
        )
        expect(kept.exit).toEqual(Exit.void)
        // With a document on standard output, what the ratchet did goes to standard error.
        expect(kept.stderr).toContain(`floor stays at 1.0000: this run achieved only ${floor.toFixed(4)}`)
        expect((JSON.parse(readFileSync(high, "utf8")) as { floor: number }).floor).toBe(1)
      }))
  })
})
