/**
 * A route that would take the session off the app, through the real CLI: `validate` and `run` refuse
 * a catalog holding one, exit 2, naming each JSON path and what was expected, and make no request; and
 * `cleanup` reports a conversation whose journalled delete route is one as not deleted, with why,
 * making no request with it. The routes are each spelling of test/support/routeSpellings.ts, naming the
 * host of a second listener, which must see no request at all.
 */
import { describe, expect, it } from "@effect/vitest"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { createServer } from "node:http"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { evalCliAsync, stackFrame } from "../support/cli.js"
import { type Listening, listenOnLoopback } from "../support/loopback.js"
import { journalSpelledDeletes, type SpelledField, spellings, validateMessage } from "../support/routeSpellings.js"

/** A listener that records the path of every request, answering 404. */
const recording = async (): Promise<Listening & { readonly seen: Array<string> }> => {
  const seen: Array<string> = []
  const listening = await listenOnLoopback(createServer((request, response) => {
    seen.push(`${request.method} ${request.url}`)
    response.writeHead(404).end()
  }))
  return { ...listening, seen }
}

const scratch = () => mkdtempSync(join(tmpdir(), "eval-route-origin-"))

/** Runs the bodies at most `n` at a time, in order. */
const inBatches = async <A>(n: number, bodies: ReadonlyArray<() => Promise<A>>): Promise<ReadonlyArray<A>> => {
  const done: Array<A> = []
  for (let i = 0; i < bodies.length; i += n) done.push(...await Promise.all(bodies.slice(i, i + n).map((b) => b())))
  return done
}

/**
 * The committed catalog with a surface of each protocol whose every route is `path` (with its
 * placeholders), and the catalog's own routes so too; the JSON path and the value of each.
 */
const spelledCatalog = (path: string) => {
  const committed = JSON.parse(readFileSync("cases/surfaces.json", "utf8")) as {
    surfaces: Record<string, unknown>
  }
  const conversation = `${path}/{conversationId}`
  const trace = `${path}/{turnId}/trace`
  const ratings = `${path}?rating=down`
  const tools = ["search_docs"]
  const surfaces = {
    te: { endpoint: path, tools, routes: { conversation, trace, delete: conversation } },
    sdk: { protocol: "ai-sdk", endpoint: path, tools, routes: { delete: conversation } },
    lg: { protocol: "langgraph", endpoint: path, tools, routes: { delete: conversation } },
    agui: { protocol: "ag-ui", endpoint: path, tools, routes: { delete: conversation } }
  }
  const catalog = {
    ...committed,
    surfaces: { ...committed.surfaces, ...surfaces },
    routes: { conversation, trace, delete: conversation, ratings }
  }
  const spelled: ReadonlyArray<readonly [string, SpelledField, string]> = [
    ["$.surfaces.te.endpoint", "endpoint", path],
    ["$.surfaces.te.routes.conversation", "conversation", conversation],
    ["$.surfaces.te.routes.trace", "trace", trace],
    ["$.surfaces.te.routes.delete", "delete", conversation],
    ...(["sdk", "lg", "agui"] as const).flatMap((name) =>
      [
        [`$.surfaces.${name}.endpoint`, "endpoint", path],
        [`$.surfaces.${name}.routes.delete`, "delete", conversation]
      ] as const
    ),
    ["$.routes.conversation", "conversation", conversation],
    ["$.routes.trace", "trace", trace],
    ["$.routes.delete", "delete", conversation],
    ["$.routes.ratings", "ratings", ratings]
  ]
  return { catalog, spelled }
}

describe("a catalog whose routes would leave the app", () => {
  it("is refused by validate (and run), exit 2, naming every JSON path, and no request is made", async () => {
    const app = await recording()
    const other = await recording()
    const host = new URL(other.url).host
    const dir = scratch()
    try {
      const runs = await inBatches(
        4,
        spellings.flatMap((spelling, i) => {
          const file = join(dir, `surfaces-${i}.json`)
          const { catalog, spelled } = spelledCatalog(spelling.path(host))
          writeFileSync(file, JSON.stringify(catalog, null, 2))
          const expected = spelled.map(([at, field, value]) =>
            `${file}: ${at}: ${validateMessage(spelling, field, value)}`
          )
          const env = { EVAL_AUTH_HEADER: "authorization: Bearer s3cret", XDG_STATE_HOME: join(dir, "state") }
          // A run checks the catalog as validate does, with the same words: it is tried on the first spelling.
          return [
            ["validate", "--surfaces", file],
            ...(i === 0 ? [["run", "--base-url", app.url, "--surfaces", file]] : [])
          ].map((args) => async () => ({ spelling, args, expected, run: await evalCliAsync(args, { env }) }))
        })
      )
      for (const { args, expected, run, spelling } of runs) {
        const what = `${spelling.name}: ${args[0]}`
        expect(run.code, what).toBe(2)
        expect(run.stdout, what).toBe("")
        expect(run.stderr, what).not.toMatch(stackFrame)
        expect(run.stderr.trimEnd().split("\n").sort(), what).toEqual([...expected].sort())
      }
      expect(runs).toHaveLength(spellings.length + 1)
      expect([app.seen, other.seen]).toEqual([[], []])
    } finally {
      await Promise.all([app.close(), other.close()])
    }
  }, 120_000)
})

describe("a journal whose delete routes would leave the app", () => {
  it("cleanup reports each conversation not deleted, with why, and makes no request with it", async () => {
    const app = await recording()
    const other = await recording()
    const host = new URL(other.url).host
    const state = scratch()
    const cookie = "session=s3cret"
    try {
      // The journal a run killed with kill -9 would leave, its conversations journalled with those routes.
      await journalSpelledDeletes(app.url, cookie, state, host)

      const run = await evalCliAsync(["cleanup", "--base-url", app.url], {
        env: { EVAL_COOKIE: cookie, XDG_STATE_HOME: state }
      })
      expect(run.code).toBe(1)
      expect(run.stderr).not.toMatch(stackFrame)
      const lines = run.stdout.split("\n").filter((line) => line.startsWith("not deleted"))
      expect(lines).toHaveLength(spellings.length)
      for (const [i, spelling] of spellings.entries()) {
        const route = `${spelling.path(host)}/conv-${i}`
        const line = lines.find((l) => l.includes(` conv-${i} `))
        expect(line, spelling.name).toMatch(
          /^not deleted +conv-\d+ +case-\d+ \(left by process 2147483646 started .*\): /
        )
        expect(line?.replace(/^.*?\): /, ""), spelling.name).toBe(
          `delete: refused the path ${JSON.stringify(route)}: it ${spelling.why}; no request is made`
        )
      }
      expect(run.stdout).toContain(
        `0 conversations cleaned up at ${app.url}/; ${spellings.length} could not be deleted and stay in the journal`
      )
      expect([app.seen, other.seen]).toEqual([[], []])
    } finally {
      await Promise.all([app.close(), other.close()])
    }
  }, 60_000)
})
