/**
 * Hostile and malformed input, generated: mutations of the committed cases file, catalog, baseline,
 * results file and recorded turns — wrong types, missing fields, unknown keys and kinds, duplicate
 * ids, a key given twice, huge strings, deep nesting, escape sequences, truncated text, impossible
 * floors — and special files given as any input (a link to /dev/zero, a FIFO, a folder, a file over
 * the size cap). A file the suite owns always ends in exit 2 naming the file and the JSON path, with no
 * stack trace and nothing that looks like a pass; a broken recording fails its case, naming the file
 * and the path. Values in recordings that try to start lines of their own (line breaks, bidi and
 * format characters, workflow commands, forged case lines) are shown escaped, and huge or countless
 * ones keep every report small. A route the catalog gives, however it is spelled, is refused by
 * `validate` exactly when the transport refuses it, and no request goes to another origin or out of
 * the base URL's path. A journal's intents (`opening`, `settled`) of any shape, whose search routes
 * name another host or leave the base path, take `cleanup` nowhere but the app, and reach no terminal raw.
 * A generated AI SDK stream whose steps reuse call ids is no turn exactly when a step starts an id twice,
 * and a turn read from one holds every gated call that started, ran or not. A generated AG-UI run or AI
 * SDK stream in which some calls get no result loses none: each is an execution (an attempt when it has
 * no result, which fails never-calls on its tool) or an action of the proposal — save, on AG-UI, a
 * call of no gated tool that the run leaves for the client to run.
 */
import { describe, expect, it } from "@effect/vitest"
import { Effect, Either, Exit, FastCheck as fc, ManagedRuntime, Redacted, Scope } from "effect"
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join, posix } from "node:path"
import { resolveEvidence } from "../../src/Evidence/Rules.js"
import { neverCalls } from "../../src/Graders/NeverCalls.js"
import { readAgUiEvents } from "../../src/Protocols/AgUi/Client.js"
import { readAiSdkStream } from "../../src/Protocols/AiSdk/Client.js"
import { HttpLive } from "../../src/Runner/Http.js"
import { openJournal, stateFolder } from "../../src/Runner/Journal.js"
import { makeTransport } from "../../src/Runner/Transport.js"
import type { Surface } from "../../src/Schema/Surface.js"
import { type Turn, unresolved } from "../../src/Schema/Trace.js"
import { evalCliAsync, stackFrame } from "../support/cli.js"
import { failingOnFixtures, passingOnFixtures } from "../support/golden.js"
import { cliInProcess, withEnv } from "../support/inProcess.js"
import { listenOnLoopback } from "../support/loopback.js"
import { headerSignInOf, sessionEnv, withProtocolStandIn } from "../support/protocols.js"
import { spellings, staying } from "../support/routeSpellings.js"
import { untimed } from "../support/untimed.js"

type Json = null | boolean | number | string | ReadonlyArray<Json> | { readonly [key: string]: Json }
type Path = ReadonlyArray<string | number>

const cli = cliInProcess

const category = (value: Json): string =>
  categoryOfMarker(value) ?? (value === null ? "null" : Array.isArray(value) ? "array" : typeof value)

/**
 * Nesting deep enough to overflow any recursive checker (and JSON.stringify itself), so it is spliced
 * into the text in place of a marker.
 */
const depth = 50_000
const deepArray = "\u0000deep-array"
const deepObject = "\u0000deep-object"
const render = (document: Json): string =>
  JSON.stringify(document)
    .replaceAll(JSON.stringify(deepArray), "[".repeat(depth) + "]".repeat(depth))
    .replaceAll(JSON.stringify(deepObject), "{\"a\":".repeat(depth) + "{}" + "}".repeat(depth))
const categoryOfMarker = (value: Json): string | undefined =>
  value === deepArray ? "array" : value === deepObject ? "object" : undefined

/** Values no field of the contract expects in their place, at least one of each JSON type. */
const hostile: ReadonlyArray<Json> = [
  null,
  true,
  0,
  -1,
  1e308,
  "",
  "\u001b[2J\u001b[31mcleared your screen\u0007",
  "x".repeat(300_000),
  [],
  [1, "two", null],
  {},
  { kind: "cites-everything" },
  deepArray,
  deepObject
]

const paths = (value: Json, at: Path = []): Array<Path> => {
  if (value === null || typeof value !== "object") return []
  const entries: Array<[string | number, Json]> = Array.isArray(value)
    ? value.map((v, i) => [i, v] as [number, Json])
    : Object.entries(value)
  return entries.flatMap(([key, child]) => [[...at, key], ...paths(child, [...at, key])])
}

const get = (value: Json, path: Path): Json =>
  path.reduce<Json>((v, k) => (v as Record<string | number, Json>)[k]!, value)

const set = (value: Json, path: Path, replacement: Json | undefined): Json => {
  if (path.length === 0) return replacement ?? null
  const [key, ...rest] = path
  if (Array.isArray(value)) {
    const copy = [...value]
    if (rest.length === 0 && replacement === undefined) copy.splice(key as number, 1)
    else copy[key as number] = set(copy[key as number]!, rest, replacement)
    return copy
  }
  const copy: Record<string, Json> = { ...(value as Record<string, Json>) }
  if (rest.length === 0 && replacement === undefined) delete copy[key as string]
  else copy[key as string] = set(copy[key as string]!, rest, replacement)
  return copy
}

/** What a document kind accepts, for mutations that must make it invalid. */
interface Kind {
  /** Keys that may not be missing, by the last key of their path. */
  readonly required: ReadonlySet<string>
  /** Whether an unknown key is an error (the suite's own files) or ignored (recordings). */
  readonly strict: boolean
  /** Types a path accepts besides its committed value's (nullable fields). */
  readonly alsoAccepts: (path: Path) => ReadonlyArray<string>
  /** Paths whose content is free-form, where no change is invalid. */
  readonly freeForm: (path: Path) => boolean
  /** Whether a key of `required` may be missing at this path after all (a field only some kinds require). */
  readonly optionalAt?: (document: Json, path: Path) => boolean
}

interface Mutation {
  readonly kind: "retype" | "remove" | "add" | "duplicate" | "truncate" | "pattern"
  readonly text: string
  readonly note: string
}

/** A mutation as a counterexample shows it: its note, not its (possibly megabytes of) text. */
const mutation = (kind: Mutation["kind"], text: string, note: string): Mutation =>
  ({ kind, text, note, [fc.toStringMethod]: () => `${kind}: ${note}` }) as Mutation

/** Mutations of a document that each leave it invalid. */
const mutations = (document: Json, kind: Kind): fc.Arbitrary<Mutation> => {
  const all = paths(document).filter((p) => !kind.freeForm(p))
  const retype = fc.tuple(fc.constantFrom(...all), fc.constantFrom(...hostile)).filter(([p, v]) => {
    const original = category(get(document, p))
    return category(v) !== original && !kind.alsoAccepts(p).includes(category(v))
  }).map(([p, v]) => mutation("retype", render(set(document, p, v)), `${p.join(".")} := ${category(v)}`))
  const requiredPaths = all.filter((p) =>
    typeof p[p.length - 1] === "string" && kind.required.has(p[p.length - 1] as string) &&
    kind.optionalAt?.(document, p) !== true
  )
  const remove = fc.constantFrom(...requiredPaths).map((p) =>
    mutation("remove", JSON.stringify(set(document, p, undefined)), `- ${p.join(".")}`)
  )
  const objects = [[], ...all].filter((p) => category(get(document, p)) === "object")
  const add = fc.tuple(fc.constantFrom(...objects), fc.constantFrom(...hostile)).map(([p, v]) =>
    mutation(
      "add",
      render(set(document, [...p, "unexpected\u001b[1mKey"], v)),
      `+ ${p.join(".")}.unexpected := ${category(v)}`
    )
  )
  // A key given a second time, with the same value: only the duplicate itself is wrong.
  const withKeys = objects.filter((p) => Object.keys(get(document, p) as Record<string, Json>).length > 0)
  const duplicate = fc.tuple(fc.constantFrom(...withKeys), fc.nat()).map(([p, n]) => {
    const keys = Object.keys(get(document, p) as Record<string, Json>)
    const key = keys[n % keys.length]!
    const marker = "\u0000duplicate"
    const twice = `${JSON.stringify(key)}:${JSON.stringify(get(document, [...p, key]))}`
    return mutation(
      "duplicate",
      JSON.stringify(set(document, [...p, marker], null)).replace(`${JSON.stringify(marker)}:null`, twice),
      `${p.join(".")}.${key} twice`
    )
  })
  const text = JSON.stringify(document, null, 2)
  const truncate = fc.integer({ min: 0, max: text.length - 2 }).map((at) =>
    mutation("truncate", text.slice(0, at), `truncated at ${at}`)
  )
  return kind.strict ? fc.oneof(retype, remove, add, duplicate, truncate) : fc.oneof(retype, remove, truncate)
}

const read = (file: string): Json => JSON.parse(readFileSync(file, "utf8")) as Json
const scratch = () => mkdtempSync(join(tmpdir(), "eval-hostile-"))

/** What every rejection of an input the suite owns must look like. */
const expectRejected = (run: { code: number; stdout: string; stderr: string }, file: string, note: string) => {
  expect(run.code, note).toBe(2)
  expect(run.stdout, note).toBe("")
  expect(run.stderr, note).not.toMatch(stackFrame)
  expect(run.stderr, note).not.toContain("\u001b")
  expect(run.stderr.length, note).toBeLessThan(20_000)
  for (const line of run.stderr.split("\n")) {
    expect(line.startsWith(`${file}: `), `${note}: ${line.slice(0, 200)}`).toBe(true)
  }
  expect(run.stderr, note).toMatch(/: (\$[^:]*: |not valid JSON: )/)
}

const casesKind: Kind = {
  required: new Set([
    "version",
    "cases",
    "id",
    "surface",
    "question",
    "guards",
    "expect",
    "kind",
    "path",
    "paths",
    "tool",
    "tools",
    "text",
    "is",
    "pattern",
    "times",
    "tokens"
  ]),
  strict: true,
  alsoAccepts: () => [],
  // calls-tool's `with` is any JSON value.
  freeForm: (p) => p.includes("with"),
  // The kinds that count or compare calls take `tool` optionally: without it, they count every tool.
  optionalAt: (document, p) =>
    p[p.length - 1] === "tool" &&
    ["calls-at-most", "no-repeated-calls"].includes(get(document, [...p.slice(0, -1), "kind"]) as string)
}

/**
 * Citation patterns V8, which applies them, refuses: some at once, some only when it first applies
 * them (a pattern too large, whatever its syntax).
 */
const refusedPatterns: ReadonlyArray<readonly [pattern: string, note: string]> = [
  ["x".repeat(1_048_576), "1 MiB of x"],
  ["x".repeat(40_000), "40,000 x"],
  [`(${"x".repeat(300_000)}`, "an unclosed group of 300,000 x"],
  ["[z-a]", "a range out of order"],
  ["x{2,1}", "a repeat out of order"],
  ["\\k<none>", "a reference to no group"],
  ["(?<a>x)(?<a>y)", "a group name twice"]
]

/** A catalog whose surface has, in its `evidence` or `otel` block, a citation pattern V8 refuses. */
const refusedCitationPatterns = (catalog: Json): fc.Arbitrary<Mutation> =>
  fc.tuple(
    fc.constantFrom(...Object.keys((catalog as { surfaces: Record<string, Json> }).surfaces)),
    fc.constantFrom("evidence", "otel"),
    fc.constantFrom(...refusedPatterns)
  ).map(([surface, block, [pattern, note]]) =>
    mutation(
      "pattern",
      JSON.stringify(set(catalog, ["surfaces", surface, block], { citationPattern: pattern })),
      `surfaces.${surface}.${block}.citationPattern := ${note}`
    )
  )

const runs = { numRuns: 150 }

/** The keys a trace requires, in a recording and in a results file's kept turn alike. */
const traceKeys = ["outcome", "citations", "toolExecutions", "proposal", "path", "match", "tool"]

describe("malformed files the suite owns end in exit 2 with the file and the JSON path", () => {
  it("cases files", async () => {
    const golden = read("cases/golden-cases.json")
    const dir = scratch()
    const file = join(dir, "cases.json")
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          mutations(golden, casesKind),
          fc.integer({ min: 1, max: 21 }).map((i) =>
            mutation(
              "retype",
              JSON.stringify(set(golden, ["cases", i, "id"], get(golden, ["cases", 0, "id"]))),
              `duplicate id at ${i}`
            )
          )
        ),
        async (mutation) => {
          writeFileSync(file, mutation.text)
          expectRejected(await cli(["validate", "--cases", file]), file, mutation.note)
        }
      ),
      runs
    )
  })

  it("catalogs", async () => {
    const catalog = read("cases/surfaces.json")
    const dir = scratch()
    const file = join(dir, "surfaces.json")
    const kind: Kind = {
      required: new Set(["surfaces", "endpoint", "tools"]),
      strict: true,
      alsoAccepts: () => [],
      freeForm: () => false
    }
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutations(catalog, kind), refusedCitationPatterns(catalog)), async (mutation) => {
        writeFileSync(file, mutation.text)
        expectRejected(await cli(["validate", "--surfaces", file]), file, mutation.note)
      }),
      runs
    )
  })

  it("baselines, including impossible floors, for run --check and ratchet alike", async () => {
    const baseline: Json = { _comment: ["a note"], floor: 0.8181 }
    const dir = scratch()
    const file = join(dir, "baseline.json")
    writeFileSync(join(dir, "results.json"), "{}")
    const kind: Kind = { required: new Set(["floor"]), strict: true, alsoAccepts: () => [], freeForm: () => false }
    const impossible = fc.constantFrom("NaN", "-0.1", "1.0001", "1e999", "-1e999", "\"0.9\"", "null").map((floor) =>
      mutation("retype", `{"floor": ${floor}}`, `floor ${floor}`)
    )
    await fc.assert(
      fc.asyncProperty(fc.oneof(mutations(baseline, kind), impossible), async (mutation) => {
        writeFileSync(file, mutation.text)
        expectRejected(
          await cli(["run", "--fixtures", "cases/fixtures", "--baseline", file, "--check"]),
          file,
          mutation.note
        )
        expectRejected(await cli(["validate", "--baseline", file]), file, mutation.note)
      }),
      { numRuns: 80 }
    )
  })

  it("results files given to ratchet", async () => {
    const dir = scratch()
    const results = join(dir, "full.json")
    expect((await cli(["run", "--fixtures", "cases/fixtures", "--json", results])).code).toBe(0)
    const result = read(results)
    const file = join(dir, "edited.json")
    const kind: Kind = {
      required: new Set([
        "version",
        "passRate",
        "floor",
        "passed",
        "total",
        "passedCount",
        "caseSet",
        "cases",
        "id",
        "surface",
        "expectations",
        "kind",
        // The kept turn's.
        "answer",
        "trace",
        ...traceKeys
      ]),
      strict: true,
      alsoAccepts: (p) => {
        if (p.length === 1 && (p[0] === "floor" || p[0] === "passed")) return ["null", "number", "boolean"]
        const last = p[p.length - 1]
        return last === "error" && p.includes("turn")
          ? ["string", "null"]
          : last === "proposal"
          ? ["null", "object"]
          : []
      },
      // A tool's input and output, and a proposal's actions, are any JSON value.
      freeForm: (p) => p.includes("input") || p.includes("output") || p.includes("actions")
    }
    await fc.assert(
      fc.asyncProperty(mutations(result, kind), async (mutation) => {
        writeFileSync(file, mutation.text)
        expectRejected(
          await cli(["ratchet", "--from", file, "--baseline", join(dir, "baseline.json")]),
          file,
          mutation.note
        )
      }),
      { numRuns: 100 }
    )
  })
})

describe("malformed recordings fail their own case, naming the file and the JSON path", () => {
  it("and every other case grades as before", async () => {
    const id = "docs.where-payments-api-catalog-retry"
    const recorded = read(`cases/fixtures/${id}.json`)
    const kind: Kind = {
      required: new Set([
        "caseId",
        "question",
        "answer",
        "trace",
        "turnId",
        "surface",
        ...traceKeys
      ]),
      strict: false,
      alsoAccepts: (p) => {
        const last = p[p.length - 1]
        return last === "error" ? ["string", "null"] : last === "proposal" ? ["null", "object"] : []
      },
      freeForm: (p) => p.includes("input") || p.includes("output") || p.includes("actions")
    }
    const dir = scratch()
    const fixtures = join(dir, "fixtures")
    const { cpSync } = await import("node:fs")
    cpSync("cases/fixtures", fixtures, { recursive: true })
    const file = join(fixtures, `${id}.json`)
    await fc.assert(
      fc.asyncProperty(mutations(recorded, kind), async (mutation) => {
        writeFileSync(file, mutation.text)
        // Silent: the per-case lines go to the captured standard error, which is to hold nothing else.
        const run = await cli(["run", "--fixtures", fixtures, "--json", join(dir, "r.json"), "--silent"])
        expect(run.code, mutation.note).toBe(0)
        expect(run.stderr, mutation.note).toBe("")
        expect(run.stdout, mutation.note).not.toContain("\u001b")
        const results = JSON.parse(readFileSync(join(dir, "r.json"), "utf8")) as {
          cases: Array<{ id: string; passed: boolean; error?: string }>
          passedCount: number
        }
        const broken = results.cases.find((c) => c.id === id)!
        expect(broken.passed, mutation.note).toBe(false)
        expect(broken.error, mutation.note).toMatch(
          new RegExp(`^recorded turn ${file.replace(/[.]/g, "\\.")}: (\\$|not valid JSON)`)
        )
        expect(results.passedCount, mutation.note).toBe(passingOnFixtures - (failingOnFixtures.includes(id) ? 0 : 1))
      }),
      { numRuns: 100 }
    )
  })
})

describe("untrusted values in recorded turns reach no terminal raw and swamp no report", () => {
  const golden = read("cases/golden-cases.json") as { cases: ReadonlyArray<{ id: string }> }
  const caseCount = golden.cases.length
  const unsafe = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Cs}]/u
  const lineBreak = /\r\n|[\n\r\u000b\u000c\u0085\u2028\u2029]/
  const id = "docs.where-search-api-repo-catalog"
  const scratchFixtures = async () => {
    const dir = scratch()
    const { cpSync } = await import("node:fs")
    cpSync("cases", join(dir, "cases"), { recursive: true })
    return {
      dir,
      file: join(dir, "cases/fixtures", `${id}.json`),
      recorded: read(`cases/fixtures/${id}.json`) as Record<string, Json>
    }
  }
  /** Text that tries to end its line and start one of the product's, or a workflow command. */
  const hostileText = fc.array(
    fc.oneof(
      fc.string(),
      fc.fullUnicodeString({ maxLength: 8 }),
      fc.constantFrom(
        "\n",
        "\r",
        "\r\n",
        "\u2028",
        "\u2029",
        "\u0085",
        "\t",
        "\u202e",
        "\u2066",
        "\ufeff",
        "\u200b",
        "\u001b[2J"
      ),
      fc.constantFrom(
        "::error::x",
        "::add-mask::x",
        "::stop-commands::t",
        "✓ docs  docs.fake",
        "22/22 passed · pass rate 1.0000"
      )
    ),
    { minLength: 1, maxLength: 12 }
  ).map((parts) => parts.join(""))

  it("every case keeps one line, and every payload is shown escaped", async () => {
    const { dir, file, recorded } = await scratchFixtures()
    await fc.assert(
      fc.asyncProperty(hostileText, hostileText, hostileText, hostileText, async (path, tool, error, turnId) => {
        const trace = recorded["trace"] as Record<string, Json>
        const hostileTrace = {
          ...trace,
          turnId,
          outcome: error,
          citations: [{ path, match: "unsurfaced" }],
          toolExecutions: [{ tool, error }, { tool: "catalog", error: path }]
        }
        writeFileSync(file, JSON.stringify({ ...recorded, trace: hostileTrace }))
        const run = await cli([
          "run",
          "--fixtures",
          join(dir, "cases/fixtures"),
          "--cases",
          join(dir, "cases/golden-cases.json")
        ])
        expect(run.code).toBe(0)
        expect(run.stdout.replaceAll("\n", "")).not.toMatch(unsafe)
        const lines = run.stdout.split(lineBreak)
        expect(lines.filter((line) => /^[✓✗~] /.test(line))).toHaveLength(caseCount)
        expect(lines.filter((line) => /^\d+\/\d+ passed/.test(line))).toHaveLength(1)
        expect(lines.filter((line) => line.startsWith("::"))).toEqual([])
      }),
      { numRuns: 60 }
    )
  })

  it("100,000 distinct unsurfaced citations make one fact of 20 and a count, and every report stays small", async () => {
    const { dir } = await scratchFixtures()
    const proration = "docs.refund-proration-no-retired-page"
    const recorded = read(`cases/fixtures/${proration}.json`) as { trace: { citations: Array<Json> } }
    recorded.trace.citations = Array.from(
      { length: 100_000 },
      (_, i) => ({ path: `/docs/recalled/${i}`, match: "unsurfaced" })
    )
    writeFileSync(join(dir, "cases/fixtures", `${proration}.json`), JSON.stringify(recorded))
    const summary = join(dir, "summary.md")
    const run = await evalCliAsync(
      [
        "run",
        "--fixtures",
        "cases/fixtures",
        "--reporter",
        "github",
        "--json",
        "out/results.json",
        "--reporter",
        "junit=out/report.xml"
      ],
      { cwd: dir, env: { GITHUB_ACTIONS: "true", GITHUB_WORKSPACE: "", GITHUB_STEP_SUMMARY: summary, CI: "" } }
    )
    expect(run.code).toBe(0)
    const results = JSON.parse(readFileSync(join(dir, "out/results.json"), "utf8")) as {
      cases: Array<{ id: string; expectations: Array<{ kind: string; fact?: string }> }>
    }
    const fact = results.cases.find((c) => c.id === proration)!.expectations.find((e) =>
      e.kind === "cites-only-surfaced"
    )!.fact!
    const items = fact.split("; ")
    expect(items).toHaveLength(21)
    expect(items[20]).toBe("… and 99,980 more")
    const annotation = run.stdout.split("\n").find((line) => line.includes(`title=failed%3A ${proration}`))!
    for (
      const [name, size] of [
        ["scorecard and annotations", run.stdout.length],
        ["annotation", annotation.length],
        // The results file keeps every case's turn; of these 100,000 citations, the case's entry keeps the first 20.
        ["the case in the results file", JSON.stringify(results.cases.find((c) => c.id === proration)).length],
        ["JUnit report", readFileSync(join(dir, "out/report.xml")).length],
        ["step summary", readFileSync(summary).length]
      ] as const
    ) expect(size, name).toBeLessThan(20_000)
  })

  it("a 1 MB tool name in a catalog, a cases file or a turn gives a few kilobytes of output", async () => {
    const { dir, file, recorded } = await scratchFixtures()
    const huge = "t".repeat(1_000_000)
    const catalog = read("cases/surfaces.json") as {
      surfaces: Record<string, { tools: Array<string>; gatedTools?: Array<string> }>
    }
    catalog.surfaces["docs"]!.tools.push(huge)
    catalog.surfaces["docs"]!.gatedTools = [`${huge}x`]
    writeFileSync(join(dir, "catalog.json"), JSON.stringify(catalog))
    const cases = read("cases/golden-cases.json") as { cases: Array<{ expect: Array<Json> }> }
    for (const c of cases.cases.slice(0, 4)) c.expect.push({ kind: "never-calls", tool: `${huge}y` })
    writeFileSync(join(dir, "cases.json"), JSON.stringify(cases))
    const trace = recorded["trace"] as Record<string, Json>
    writeFileSync(
      file,
      JSON.stringify({ ...recorded, trace: { ...trace, toolExecutions: [{ tool: huge, error: huge }] } })
    )
    const badCatalog = await cli(["validate", "--surfaces", join(dir, "catalog.json")])
    const badCases = await cli(["validate", "--cases", join(dir, "cases.json")])
    const graded = await cli(["run", "--fixtures", join(dir, "cases/fixtures"), "--reporter", "junit"])
    expect([badCatalog.code, badCases.code, graded.code]).toEqual([2, 2, 0])
    expect(badCatalog.stderr.length).toBeLessThan(20_000)
    expect(badCases.stderr.length).toBeLessThan(20_000)
    expect(badCases.stderr.split("\n")).toHaveLength(4)
    expect(graded.stdout.length).toBeLessThan(20_000)
  })

  it("a 1 MB surface in results files gives a few kilobytes of diff and scorecard, however many cases share it", async () => {
    const dir = scratch()
    expect((await cli(["run", "--fixtures", "cases/fixtures", "--shard", "1/1", "--json", join(dir, "run.json")])).code)
      .toBe(0)
    const result = read(join(dir, "run.json")) as { cases: Array<Record<string, Json>> }
    const huge = "s".repeat(1_000_000)
    // Every case fails now, on a huge surface: each one that passed is a regression row, padded to the widest surface.
    const cases = result.cases.map((c) => ({
      id: c["id"]!,
      surface: huge,
      passed: false,
      expectations: [{ kind: "outcome", passed: false, fact: "x" }]
    }))
    writeFileSync(join(dir, "newer.json"), JSON.stringify({ ...result, cases, passedCount: 0, passRate: 0 }))
    const diff = await cli(["diff", join(dir, "run.json"), join(dir, "newer.json")])
    const merged = await cli(["merge", join(dir, "newer.json")])
    expect([diff.code, merged.code]).toEqual([0, 0])
    expect(diff.stdout).toContain("regressed ")
    expect(diff.stdout.length).toBeLessThan(20_000)
    expect(merged.stdout.length).toBeLessThan(20_000)
  })
})

describe("special and oversized files are refused at once, whichever input they are given as", () => {
  it("exit 2 naming the file and what it is for the suite's own files; a failed case for a recording", async () => {
    const { closeSync, cpSync, ftruncateSync, mkdirSync, openSync, symlinkSync } = await import("node:fs")
    const { spawnSync } = await import("node:child_process")
    const dir = scratch()
    const id = "docs.refund-window-cites-source"
    /** Each kind of file that is not read, made by `make` at a path, and why it is not. */
    const specials = [
      {
        name: "a link to /dev/zero",
        make: (file: string) => symlinkSync("/dev/zero", file),
        why: "not a regular file (a character device)"
      },
      { name: "a FIFO", make: (file: string) => void spawnSync("mkfifo", [file]), why: "not a regular file (a FIFO)" },
      { name: "a folder", make: (file: string) => mkdirSync(file), why: "not a regular file (a folder)" },
      {
        name: "a 65 MiB file",
        make: (file: string) => {
          const fd = openSync(file, "w")
          ftruncateSync(fd, 65 * 1024 * 1024)
          closeSync(fd)
        },
        why: "65.0 MiB, over the 64 MiB limit for one file"
      }
    ].map((special, i) => {
      const file = join(dir, `special-${i}.json`)
      special.make(file)
      const fixtures = join(dir, `fixtures-${i}`)
      cpSync("cases/fixtures", fixtures, { recursive: true })
      const recording = join(fixtures, `${id}.json`)
      rmSync(recording)
      special.make(recording)
      return { ...special, file, fixtures, recording, [fc.toStringMethod]: () => special.name }
    })
    const inputs = [
      { name: "cases file", args: (f: string) => ["validate", "--cases", f] },
      { name: "catalog", args: (f: string) => ["validate", "--surfaces", f] },
      { name: "baseline", args: (f: string) => ["run", "--fixtures", "cases/fixtures", "--baseline", f, "--check"] },
      { name: "results file", args: (f: string) => ["ratchet", "--from", f, "--baseline", join(dir, "baseline.json")] },
      { name: "trace file", args: (f: string) => ["run", "--otel", f], folderIsInput: true },
      {
        name: "audit archive",
        args: (f: string) => ["audit", "--surface", "docs", "--expect", "cites-only-surfaced", "--traces", f]
      },
      { name: "recording", args: () => [] }
    ].map((input) => ({ ...input, [fc.toStringMethod]: () => input.name }))
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(...inputs), fc.constantFrom(...specials), async (input, special) => {
        // Read, a FIFO with no writer or a link to /dev/zero would never end: the test's timeout is the guard.
        const note = `${input.name} given ${special.name}`
        if (input.name === "recording") {
          const run = await cli(["run", "--fixtures", special.fixtures, "--json", join(dir, "r.json")])
          expect(run.code, note).toBe(0)
          const results = JSON.parse(readFileSync(join(dir, "r.json"), "utf8")) as {
            cases: Array<{ id: string; error?: string }>
          }
          expect(results.cases.find((c) => c.id === id)?.error, note).toBe(
            `recorded turn ${special.recording}: cannot read: ${special.why}`
          )
        } else if (!(input.folderIsInput === true && special.name === "a folder")) {
          const run = await cli(input.args(special.file))
          // An archive is streamed, so its cap is per line: 65 MiB of zero bytes is one line too long.
          const refusal = input.name === "audit archive" && special.name === "a 65 MiB file"
            ? `${special.file}:1: cannot read: longer than the 32 MiB limit for one JSON line`
            : `${special.file}: cannot read: ${special.why}`
          expect(run.stderr, note).toBe(refusal)
          expect(run.code, note).toBe(2)
          expect(run.stdout, note).toBe("")
        }
      }),
      { numRuns: 40 }
    )
  })
})

describe("recording a turn never changes its verdict", () => {
  it("whatever a tool's input holds, run --record grades as run does, skipping what it cannot write with a warning", async () => {
    const { cpSync } = await import("node:fs")
    const id = "docs.where-payments-api-catalog-retry"
    const recorded = read(`cases/fixtures/${id}.json`) as { trace: { toolExecutions: Array<Record<string, Json>> } }
    const dir = scratch()
    const fixtures = join(dir, "fixtures")
    cpSync("cases/fixtures", fixtures, { recursive: true })
    // Deeper than JSON.stringify can write back, besides the hostile values of every type.
    const tooDeepToWrite = "\u0000too-deep"
    const inputs = fc.constantFrom<Json>(...hostile, tooDeepToWrite)
    let n = 0
    await fc.assert(
      fc.asyncProperty(inputs, async (input) => {
        const note = `input := ${
          typeof input === "string" && input.length > 40 ? `${input.slice(0, 40)}…` : JSON.stringify(input)
        }`
        const turn = {
          ...recorded,
          trace: {
            ...recorded.trace,
            toolExecutions: recorded.trace.toolExecutions.map((e) => ({ ...e, input: "\u0000input" }))
          }
        }
        const inputText = input === tooDeepToWrite
          ? `${"[".repeat(100_000)}${"]".repeat(100_000)}`
          : render(input)
        writeFileSync(
          join(fixtures, `${id}.json`),
          JSON.stringify(turn).replaceAll(JSON.stringify("\u0000input"), inputText)
        )
        // Silent: standard error is to hold the recording's warnings alone, not the per-case lines.
        const plain = await cli(["run", "--fixtures", fixtures, "--json", join(dir, "plain.json"), "--silent"])
        const record = join(dir, `rec-${n++}`)
        const recording = await cli([
          "run",
          "--fixtures",
          fixtures,
          "--json",
          join(dir, "recorded.json"),
          "--record",
          record,
          "--silent"
        ])
        expect(recording.code, note).toBe(plain.code)
        expect(recording.stdout, note).toBe(plain.stdout)
        const verdicts = (file: string) =>
          untimed(
            (JSON.parse(readFileSync(join(dir, file), "utf8")) as { cases: Array<Record<string, unknown>> }).cases
          )
        expect(verdicts("recorded.json"), note).toEqual(verdicts("plain.json"))
        expect(recording.stderr, note).toMatch(
          new RegExp(`^(|warning: case ${id.replace(/[.]/g, "\\.")} was graded but not recorded: .*)$`)
        )
        if (input === tooDeepToWrite) expect(recording.stderr, note).not.toBe("")
      }),
      { numRuns: 20 }
    )
  })
})

describe("a cookie that cannot go in a header is refused before anything is sent", () => {
  it("exit 2 naming --cookie, the value nowhere in the output", async () => {
    const forbidden = fc.oneof(
      fc.integer({ min: 0, max: 0x1f }),
      fc.constant(0x7f),
      fc.integer({ min: 0x100, max: 0xd7ff }),
      fc.integer({ min: 0xe000, max: 0xffff })
    ).map((code) => String.fromCharCode(code))
    const text = fc.string({ unit: fc.constantFrom(..."abcXYZ019-_.~%+/"), minLength: 8, maxLength: 40 })
    await fc.assert(
      fc.asyncProperty(text, forbidden, text, async (before, bad, after) => {
        const value = `${before}${bad}${after}`
        // Line breaks are refused by the shape check ("on one line"), every other character here by this one.
        const run = await cli([
          "run",
          "--base-url",
          "http://127.0.0.1:9",
          "--timeout",
          "2",
          "--cookie",
          `session=${value}`
        ])
        expect(run.code).toBe(2)
        expect(run.stderr).toBe(
          bad === "\n" || bad === "\r"
            ? "error: the session cookie must look like name=value, on one line"
            : "error: --cookie: the session cookie may hold no control character and no character beyond U+00FF"
        )
        expect(run.stdout).toBe("")
        for (const part of [before, after]) expect(run.stderr).not.toContain(part)
      }),
      { numRuns: 50 }
    )
  })
})

describe("generated route spellings never take a request off the app", () => {
  /** A listener that records the target of every request, answering 404. */
  const recording = async () => {
    const seen: Array<string> = []
    const listening = await listenOnLoopback(createServer((request, response) => {
      seen.push(request.url ?? "")
      response.writeHead(404).end()
    }))
    return { ...listening, seen }
  }

  /** Whether a request target is under `prefix` as a server may read it: decoded again and again, `\` a `/`, dots resolved. */
  const underPrefix = (target: string, prefix: string): boolean => {
    let path = target.replace(/\?.*$/s, "")
    for (let i = 0; i < 4; i++) {
      path = path.replace(/%([0-9a-f]{2})/gi, (_, hex: string) => String.fromCharCode(parseInt(hex, 16)))
    }
    return posix.normalize(path.replace(/\\/g, "/")).startsWith(`${prefix}/`)
  }

  it("validate refuses an endpoint exactly when the transport does, and none reaches another host or leaves the base path", async () => {
    const app = await recording()
    const other = await recording()
    const host = new URL(other.url).host
    const runtime = ManagedRuntime.make(HttpLive)
    const prefixes = ["", "/app"] as const
    const transports = await Promise.all(prefixes.map((prefix) =>
      runtime.runPromise(makeTransport({
        baseUrl: new URL(`${app.url}${prefix}/`),
        auth: { header: "authorization", value: Redacted.make("Bearer s3cret") },
        retries: 0
      }))
    ))
    const catalog = read("cases/surfaces.json") as { surfaces: Record<string, Record<string, Json>> }
    const file = join(scratch(), "surfaces.json")
    const starts = fc.constantFrom(
      "/",
      "//",
      "/\\",
      "\\\\",
      "/\t/",
      "/\n/",
      "/\r/",
      "//user@",
      "",
      "/%2e%2e/",
      "/./",
      "/api/"
    )
    const pieces = fc.constantFrom(
      "/",
      "\\",
      ".",
      "..",
      "%2e",
      "%2E",
      "%252e",
      "%2f",
      "%5C",
      "?",
      "#",
      "@",
      ":",
      "\t",
      "\n",
      " ",
      "%",
      "api",
      "{conversationId}"
    )
    const route = fc.tuple(starts, fc.boolean(), fc.array(pieces, { maxLength: 8 }))
      .map(([start, named, rest]) => `${start}${named ? host : ""}${rest.join("")}`)
      .filter((path) => path.trim() !== "")
    try {
      await fc.assert(
        fc.asyncProperty(route, fc.constantFrom(0, 1), async (path, which) => {
          const before = app.seen.length
          catalog.surfaces["docs"]!["endpoint"] = path
          writeFileSync(file, JSON.stringify(catalog))
          const validated = await cli(["validate", "--surfaces", file])
          const sent = await runtime.runPromise(
            Effect.either(transports[which]!.send("ask", "POST", path, { body: { message: "hi" } }))
          )
          const reached = app.seen.slice(before)
          expect(other.seen).toEqual([])
          expect(reached.filter((target) => !underPrefix(target, prefixes[which]!))).toEqual([])
          // The one check: what validate accepts is sent, once; what it refuses, the transport refuses.
          expect([validated.code, reached.length]).toEqual(validated.code === 0 ? [0, 1] : [2, 0])
          if (Either.isLeft(sent)) expect(sent.left).toMatchObject({ _tag: "TurnError" })
          if (Either.isLeft(sent)) {
            expect(sent.left.message).toMatch(/^ask: refused the path ".*": it .*; no request is made$/s)
          }
          if (validated.code !== 0) expect(validated.stderr).toContain(": $.surfaces.docs.endpoint: expected a path")
        }),
        { numRuns: 200 }
      )
    } finally {
      await runtime.dispose()
      await Promise.all([app.close(), other.close()])
    }
  })
})

describe("a journal's intents, however malformed, never take cleanup off the app", () => {
  it(
    "opening and settled lines of any shape, with any search route: no stack trace, no request elsewhere",
    async () => {
      let elsewhere = 0
      const other = await listenOnLoopback(createServer((_request, response) => {
        elsewhere++
        response.writeHead(404).end()
      }))
      const host = new URL(other.url).host
      const route = fc.oneof(
        fc.constantFrom(...spellings.map((s) => s.path(host))),
        fc.constantFrom(...staying.map((s) => s(host))),
        fc.constant("/threads/search"),
        fc.string({ maxLength: 30 })
      )
      const field = fc.oneof(
        fc.string({ maxLength: 20 }),
        fc.integer(),
        fc.constant(null),
        fc.constant([]),
        fc.constant({})
      )
      const intent = fc.oneof(
        fc.record({
          opening: fc.oneof(fc.uuid(), field),
          run: fc.oneof(fc.uuid(), field),
          protocol: fc.oneof(fc.constantFrom("langgraph", "turn-eval", "__proto__", "constructor"), field),
          search: route,
          delete: route
        }, { requiredKeys: ["opening", "run", "search", "delete"] }),
        fc.record({
          opening: field,
          run: field,
          protocol: field,
          search: fc.oneof(route, field),
          delete: fc.oneof(route, field)
        }, {
          requiredKeys: []
        }),
        fc.record({ settled: fc.oneof(fc.uuid(), field) })
      ).map((entry) => JSON.stringify(entry))
      // A line cut short by a kill, or not JSON at all.
      const broken = fc.oneof(intent.map((line) => line.slice(0, -3)), fc.string({ maxLength: 40 }))
      try {
        await withProtocolStandIn("langgraph", {}, async (s) => {
          const env = sessionEnv(s, headerSignInOf.langgraph)
          await fc.assert(
            fc.asyncProperty(
              fc.array(fc.oneof(intent, intent, broken), { minLength: 1, maxLength: 6 }),
              async (lines) => {
                const state = mkdtempSync(join(tmpdir(), "eval-hostile-journal-"))
                const scope = Effect.runSync(Scope.make())
                const journal = await Effect.runPromise(Scope.extend(
                  openJournal({
                    baseUrl: new URL(s.url),
                    session: Redacted.make(env["EVAL_AUTH_HEADER"]!),
                    deleteRoute: "/threads/{conversationId}",
                    folder: stateFolder({ XDG_STATE_HOME: state }),
                    warn: (text) => {
                      throw new Error(text)
                    }
                  }),
                  scope
                ))
                // One well-formed intent keeps the file (a journal left with nothing open is removed).
                await Effect.runPromise(
                  journal.opening({
                    caseId: "case-0",
                    protocol: "langgraph",
                    searchRoute: "/threads/search",
                    deleteRoute: "/threads/{conversationId}"
                  })
                )
                await Effect.runPromise(Scope.close(scope, Exit.void))
                const entry = readdirSync(state, { recursive: true, withFileTypes: true }).find((e) =>
                  e.name.endsWith(".jsonl")
                )!
                const file = join(entry.parentPath, entry.name)
                // Its run has ended: a process id no process holds.
                const header = readFileSync(file, "utf8").replace(/"pid":\d+/, "\"pid\":2147483646")
                writeFileSync(file, `${header}${lines.join("\n")}\n`)
                // In this process, as the bin runs it: a defect would throw here, and a stack trace would show.
                const run = await withEnv(
                  { EVAL_COOKIE: undefined, EVAL_AUTH_HEADER: undefined, ...env, XDG_STATE_HOME: state },
                  () => cliInProcess(["cleanup", "--base-url", s.url])
                )
                expect([0, 1]).toContain(run.code)
                expect(run.stderr).not.toMatch(stackFrame)
                // Journal text is untrusted: none of it reaches the terminal raw.
                expect(`${run.stdout}${run.stderr}`).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f]/)
                expect(elsewhere).toBe(0)
                rmSync(state, { recursive: true, force: true })
              }
            ),
            { numRuns: 25 }
          )
        })
      } finally {
        await other.close()
      }
    },
    300_000
  )
})

describe("a stream that names a call id again hides no gated call", () => {
  const surface = {
    protocol: "ai-sdk",
    endpoint: "/api/chat",
    tools: ["search_docs", "deploy"],
    gatedTools: ["deploy"]
  } as unknown as Surface
  const context = { surface: "ops", conversationId: "chat", gatedTools: ["deploy"], evidence: resolveEvidence(surface) }
  // Few ids, so that calls in a step and across steps reuse them; a call resolves with an output, an error or nothing.
  const call = fc.record({
    id: fc.constantFrom("call_0", "call_1"),
    tool: fc.constantFrom("search_docs", "deploy"),
    ends: fc.constantFrom("output", "error", "none")
  })
  const steps = fc.array(fc.array(call, { minLength: 1, maxLength: 4 }), { minLength: 1, maxLength: 3 })

  it("reads a turn only when no step starts an id twice, and then every deploy that started is in it", () => {
    fc.assert(
      fc.property(steps, (generated) => {
        const chunks = [
          { type: "start" },
          ...generated.flatMap((step) => [
            { type: "start-step" },
            ...step.flatMap(({ ends, id, tool }) => [
              { type: "tool-input-start", toolCallId: id, toolName: tool },
              { type: "tool-input-available", toolCallId: id, toolName: tool, input: {} },
              ...(ends === "output" ? [{ type: "tool-output-available", toolCallId: id, output: {} }] : []),
              ...(ends === "error" ? [{ type: "tool-output-error", toolCallId: id, errorText: "down" }] : [])
            ]),
            { type: "finish-step" }
          ]),
          { type: "finish" }
        ]
        const read = readAiSdkStream(chunks, context)
        const restarted = generated.some((step) => new Set(step.map((c) => c.id)).size < step.length)
        expect(Either.isLeft(read)).toBe(restarted)
        if (Either.isLeft(read)) {
          expect(read.left).toMatch(/^chunk \d+ \(tool-input-start\): tool call "call_[01]" was started again/)
          return
        }
        const turn = read.right.trace
        const deploys = generated.flat().filter((c) => c.tool === "deploy")
        const ran = turn.toolExecutions.filter((e) => e.tool === "deploy").length
        // Each deploy that started is an execution (an attempt when unresolved) or the proposal the client waits on.
        expect(ran).toBeGreaterThanOrEqual(deploys.filter((c) => c.ends !== "none").length)
        if (ran < deploys.length) expect(JSON.stringify(turn.proposal)).toContain("deploy")
      }),
      { numRuns: 300 }
    )
  })
})

describe("a call started and never resolved is never lost", () => {
  const surface = {
    protocol: "ag-ui",
    endpoint: "/api/chat",
    tools: ["search_docs", "deploy"],
    gatedTools: ["deploy"]
  } as unknown as Surface
  const context = { surface: "ops", conversationId: "run", gatedTools: ["deploy"], evidence: resolveEvidence(surface) }
  const tools = ["search_docs", "deploy"] as const
  const gated = (tool: string) => context.gatedTools.includes(tool)
  /** A proposal's action as both readers write one: the tool it would run, and on AG-UI the call it waits on. */
  type ProposalAction = { readonly tool?: string; readonly toolCallId?: string }
  // Each tool's calls as the turn holds them: executions (and of those the unresolved ones) and proposal actions.
  const countsOf = (turn: Turn, tool: string, waits: ReadonlySet<string> | undefined) => {
    const executions = turn.trace.toolExecutions.filter((e) => e.tool === tool)
    const actions = ((turn.trace.proposal?.actions ?? []) as ReadonlyArray<ProposalAction>).filter((a) =>
      a.tool === tool && (waits === undefined || (a.toolCallId !== undefined && waits.has(a.toolCallId)))
    )
    return { executions: executions.length, unresolved: executions.filter(unresolved).length, actions: actions.length }
  }
  // An attempt fails never-calls on its tool, naming the result the wire never showed.
  const neverCallsFails = (turn: Turn, tool: string) =>
    expect(neverCalls({ kind: "never-calls", tool }, turn, surface)).toEqual({
      passed: false,
      fact: expect.stringMatching(/^called: \S+ \((.*, )?(\d+ with )?no result on the wire\)$/)
    })

  it("ag-ui: every call is an execution, resolved or not, or the proposal's action, unless the client has it to run", () => {
    const call = fc.record({
      tool: fc.constantFrom(...tools),
      // Started, its arguments sent and ended; or as one TOOL_CALL_CHUNK.
      chunked: fc.boolean(),
      resolved: fc.boolean()
    })
    const ending = fc.oneof(
      fc.record({ kind: fc.constant("success" as const), pending: fc.array(fc.nat(5), { maxLength: 3 }) }),
      fc.record({ kind: fc.constant("interrupt" as const), on: fc.array(fc.nat(5), { maxLength: 3 }) }),
      fc.record({ kind: fc.constant("error" as const) })
    )
    const frontend = fc.constantFrom<ReadonlyArray<string>>([], ["deploy"], ["search_docs"], [...tools])
    fc.assert(
      fc.property(fc.array(call, { minLength: 1, maxLength: 6 }), ending, frontend, (calls, end, frontendTools) => {
        const id = (i: number) => `call_${i}`
        const events: Array<unknown> = [{ type: "RUN_STARTED", threadId: "t", runId: "run" }]
        for (const [i, c] of calls.entries()) {
          const toolCallId = id(i)
          events.push(
            ...(c.chunked
              ? [{ type: "TOOL_CALL_CHUNK", toolCallId, toolCallName: c.tool, delta: "{\"n\":1}" }]
              : [
                { type: "TOOL_CALL_START", toolCallId, toolCallName: c.tool },
                { type: "TOOL_CALL_ARGS", toolCallId, delta: "{\"n\":1}" },
                { type: "TOOL_CALL_END", toolCallId }
              ]),
            ...(c.resolved ? [{ type: "TOOL_CALL_RESULT", messageId: `m${i}`, toolCallId, content: "[]" }] : [])
          )
        }
        const named = (picked: ReadonlyArray<number>) => new Set(picked.filter((i) => i < calls.length).map(id))
        const interrupted = end.kind === "interrupt" ? named(end.on) : new Set<string>()
        const pending = end.kind === "success" ? named(end.pending) : new Set<string>()
        events.push(
          end.kind === "error"
            ? { type: "RUN_ERROR", message: "down" }
            : end.kind === "success"
            ? { type: "RUN_FINISHED", outcome: { type: "success", pendingToolCallIds: [...pending] } }
            : {
              type: "RUN_FINISHED",
              outcome: {
                type: "interrupt",
                interrupts: interrupted.size === 0
                  ? [{ id: "i", reason: "confirm" }]
                  : [...interrupted].map((toolCallId) => ({ id: `i-${toolCallId}`, reason: "tool_call", toolCallId }))
              }
            }
        )
        const read = readAgUiEvents(events, context, "run", frontendTools)
        expect(Either.isRight(read)).toBe(true)
        if (Either.isLeft(read)) return
        const turn = read.right
        // Where each call must be: a result makes an execution; with none, a call an interrupt names or a
        // gated one the client is to run is the proposal's, another the client is to run is its alone, and
        // every other is an attempt.
        const placed = calls.map((c, i) => {
          if (c.resolved) return "resolved"
          if (interrupted.has(id(i))) return "proposal"
          const clientSide = end.kind !== "error" && (pending.has(id(i)) || frontendTools.includes(c.tool))
          return clientSide ? (gated(c.tool) ? "proposal" : "client") : "attempt"
        })
        const waits = new Set(calls.flatMap((_, i) => placed[i] === "proposal" ? [id(i)] : []))
        for (const tool of tools) {
          const of = (where: string) => calls.filter((c, i) => c.tool === tool && placed[i] === where).length
          expect(countsOf(turn, tool, waits), tool).toEqual({
            executions: of("resolved") + of("attempt"),
            unresolved: of("attempt"),
            actions: of("proposal")
          })
          if (of("attempt") > 0) neverCallsFails(turn, tool)
        }
      }),
      { numRuns: 500 }
    )
  })

  it("ai-sdk: every call is an execution, resolved or not, or the proposal's action", () => {
    const call = fc.record({
      tool: fc.constantFrom(...tools),
      ends: fc.constantFrom("output", "error", "none", "approval")
    })
    const steps = fc.array(fc.array(call, { minLength: 1, maxLength: 3 }), { minLength: 1, maxLength: 3 })
    fc.assert(
      fc.property(steps, fc.constantFrom("finish", "error"), (generated, end) => {
        let n = 0
        const chunks = [
          { type: "start" },
          ...generated.flatMap((step) => [
            { type: "start-step" },
            ...step.flatMap(({ ends, tool }) => {
              const toolCallId = `call_${n++}`
              return [
                { type: "tool-input-start", toolCallId, toolName: tool },
                { type: "tool-input-available", toolCallId, toolName: tool, input: {} },
                ...(ends === "output" ? [{ type: "tool-output-available", toolCallId, output: {} }] : []),
                ...(ends === "error" ? [{ type: "tool-output-error", toolCallId, errorText: "down" }] : []),
                ...(ends === "approval"
                  ? [{ type: "tool-approval-request", approvalId: `a_${toolCallId}`, toolCallId }]
                  : [])
              ]
            }),
            { type: "finish-step" }
          ]),
          end === "finish" ? { type: "finish" } : { type: "error", errorText: "down" }
        ]
        const read = readAiSdkStream(chunks, context)
        expect(Either.isRight(read)).toBe(true)
        if (Either.isLeft(read)) return
        const turn = read.right
        // A call waiting for approval, or — in a turn that did not fail — a gated one left with no result,
        // is the proposal's; any other call with no result is an attempt.
        const all = generated.flat()
        const placed = all.map((c) =>
          c.ends === "output" || c.ends === "error"
            ? "resolved"
            : c.ends === "approval" || (end === "finish" && gated(c.tool))
            ? "proposal"
            : "attempt"
        )
        for (const tool of tools) {
          const of = (where: string) => all.filter((c, i) => c.tool === tool && placed[i] === where).length
          expect(countsOf(turn, tool, undefined), tool).toEqual({
            executions: of("resolved") + of("attempt"),
            unresolved: of("attempt"),
            actions: of("proposal")
          })
          if (of("attempt") > 0) neverCallsFails(turn, tool)
        }
      }),
      { numRuns: 500 }
    )
  })
})
