/**
 * The fault matrix: for every route of the protocol and every fault, a live run of the committed
 * golden set through the real CLI, with the fault injected into a fraction of the cases. The faulted
 * cases fail naming the route and the fault, every other case grades exactly as in a clean run, every
 * conversation created is deleted or reported by id, the results file is whole, and the cookie
 * appears nowhere. Long: runs when RELIABILITY=1 (CI sets it); RELIABILITY_REPORT=DIR also writes
 * the figures there as a Markdown table.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Redacted, Schema } from "effect"
import { createServer, type Server } from "node:http"
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { Case } from "../../src/Schema/Case.js"
import type { Route } from "../../src/Schema/Protocol.js"
import { type CaseResult, RunResult } from "../../src/Schema/Result.js"
import { type FaultKind, stableFraction } from "../../src/StandIn/Server.js"
import { evalCliAsync } from "../support/cli.js"
import { goldenSet, withStandIn } from "../support/live.js"

const enabled = process.env["RELIABILITY"] === "1"
const rate = 0.3
const timeout = 2

type Expected =
  | { readonly case: "fails"; readonly reason: RegExp; readonly mayHold?: boolean; readonly refusedId?: string }
  | { readonly case: "clean" }
  | { readonly case: "undeleted"; readonly reason: RegExp }

const routes: ReadonlyArray<Route> = ["ask", "conversation", "trace", "delete"]

/** Faults only the ask route takes: a failed answer that names its conversation, an id no route may hold. */
const askFaults: ReadonlyArray<[string, FaultKind]> = [
  ["HTTP 500 naming its conversation", { kind: "opened", status: 500 }],
  ["conversation id ..", { kind: "id", id: ".." }],
  ["conversation id %2e%2e", { kind: "id", id: "%2e%2e" }]
]

const faults = (otherOrigin: string): ReadonlyArray<[string, FaultKind]> => [
  ["HTTP 500", { kind: "status", status: 500 }],
  ["HTTP 502", { kind: "status", status: 502 }],
  ["HTTP 503", { kind: "status", status: 503 }],
  ["HTTP 503 + Retry-After", { kind: "status", status: 503, retryAfter: "1" }],
  ["HTTP 429", { kind: "status", status: 429 }],
  ["HTTP 429 + Retry-After", { kind: "status", status: 429, retryAfter: "1" }],
  ["HTTP 404", { kind: "status", status: 404 }],
  ["hang past the timeout", { kind: "hang" }],
  ["connection reset mid-answer", { kind: "reset" }],
  ["body not JSON", { kind: "not-json" }],
  ["JSON of the wrong shape", { kind: "wrong-shape" }],
  ["5 MB body", { kind: "huge" }],
  ["redirect to another origin", { kind: "redirect", to: otherOrigin }]
]

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")

/** What a faulted case should show, by route and fault. */
const expected = (route: Route, fault: FaultKind): Expected => {
  // A fault that is retried may outlast the timeout: the reason then says so after the fault.
  const retried = ` \\(retried until the ${timeout}s timeout\\)`
  // An ask that reached the app and failed before naming its conversation may have left one: the run says so.
  const because = (reason: string, mayHold = false): Expected => {
    // Every route error names its request: the method and the URL, never the cookie.
    const pattern = new RegExp(`^${route}: ${reason}(${retried})? — (GET|POST|DELETE) http://127\\.0\\.0\\.1:\\d+/\\S+$`)
    return route === "delete"
      ? { case: "undeleted", reason: pattern }
      : { case: "fails", reason: pattern, mayHold: route === "ask" && mayHold }
  }
  switch (fault.kind) {
    case "status":
      return route === "delete" && fault.status === 404 ? { case: "clean" } : because(`HTTP ${fault.status}`, fault.status >= 500)
    case "opened":
      return because(`HTTP ${fault.status}`)
    case "id":
      return {
        case: "fails",
        reason: new RegExp(`^ask: refused the conversation id ${escape(JSON.stringify(fault.id))} \\([^)]*\\): it would change the route.s path`),
        refusedId: fault.id
      }
    case "hang":
      return because(`timed out after ${timeout}s`, true)
    case "reset":
      return route === "delete" ? because("connection reset") : because("connection reset while reading the answer")
    case "not-json":
      // The stand-in answers a web page: the case says so, naming where it came from.
      return route === "delete"
        ? { case: "clean" }
        : {
          case: "fails",
          reason: new RegExp(
            `^${route}: the app answered a web page \\(HTTP 200 text/html from http://127\\.0\\.0\\.1:\\d+/\\S+\\), not the protocol — is the route right and the session signed in\\?$`
          ),
          mayHold: route === "ask"
        }
    case "wrong-shape":
      return route === "delete"
        ? { case: "clean" }
        : route === "ask"
        ? because("the answer carries no conversationId", true)
        : because("\\$\\..*")
    case "huge":
      return { case: "clean" }
    case "redirect":
      return because(`redirected to another origin \\(${escape(fault.to)}\\); not followed`)
  }
}

interface Row {
  readonly route: Route
  readonly fault: string
  readonly faulted: number
  readonly asExpected: number
  readonly othersClean: number
  readonly others: number
  readonly reported: number
  readonly mayHold: number
  readonly leaked: number
  readonly cookieLeaks: number
  readonly completed: boolean
  readonly seconds: number
}

const rows: Array<Row> = []
// What a clean run and a faulted one agree on for a case: its verdicts, without its turn id and wall time.
const withoutTurnId = ({ durationMs: _d, turnId: _, ...rest }: CaseResult) => rest

describe.runIf(enabled)("the fault matrix", () => {
  let other: Server
  let otherOrigin = ""
  const cookiesSeenElsewhere: Array<string> = []
  let cases: ReadonlyArray<Case> = []
  const clean = new Map<string, ReturnType<typeof withoutTurnId>>()

  beforeAll(async () => {
    other = createServer((request, response) => {
      cookiesSeenElsewhere.push(request.headers.cookie ?? "")
      response.end("{}")
    })
    await new Promise<void>((resolve) => other.listen(0, "127.0.0.1", resolve))
    otherOrigin = `http://127.0.0.1:${(other.address() as AddressInfo).port}`
    cases = (await Effect.runPromise(goldenSet)).cases
    await withStandIn({}, async (s) => {
      const out = join(mkdtempSync(join(tmpdir(), "eval-clean-")), "r.json")
      const run = await evalCliAsync(["run", "--base-url", s.url, "--json", out], { env: { EVAL_COOKIE: Redacted.value(s.cookie()) } })
      expect(run.code).toBe(0)
      for (const c of Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(out, "utf8"))).cases) {
        clean.set(c.id, withoutTurnId(c))
      }
    })
  })

  afterAll(() => {
    other?.close()
    const report = process.env["RELIABILITY_REPORT"]
    if (report !== undefined && rows.length > 0) {
      mkdirSync(report, { recursive: true })
      writeFileSync(join(report, "fault-matrix.md"), renderTable(rows))
    }
  })

  for (const route of routes) {
    for (const [name, fault] of [...faults("ORIGIN"), ...(route === "ask" ? askFaults : [])]) {
      it(`${route}: ${name}`, () =>
        withStandIn({}, async (s) => {
          const injected = fault.kind === "redirect" ? { ...fault, to: otherOrigin } : fault
          s.setFaults([{ route, rate, ...injected }])
          const want = expected(route, injected)
          const hit = new Set(cases.filter((c) => stableFraction(`${route}\u0000${c.question}`) < rate).map((c) => c.id))
          expect(hit.size).toBeGreaterThan(0)
          const dir = mkdtempSync(join(tmpdir(), "eval-fault-"))
          const cookie = Redacted.value(s.cookie())
          const started = Date.now()
          const run = await evalCliAsync(
            ["run", "--base-url", s.url, "--json", join(dir, "r.json"), "--timeout", String(timeout), "--concurrency", "8"],
            { env: { EVAL_COOKIE: cookie } }
          )
          const seconds = (Date.now() - started) / 1000
          expect(run.code).toBe(0)
          const result = Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(join(dir, "r.json"), "utf8")))
          expect(result.cases.map((c) => c.id)).toEqual(cases.map((c) => c.id))

          let asExpected = 0
          let othersClean = 0
          for (const c of result.cases) {
            if (hit.has(c.id) && want.case === "fails") {
              expect(c.passed, c.id).toBe(false)
              expect(c.error, c.id).toMatch(want.reason)
              asExpected++
            } else {
              expect(withoutTurnId(c), c.id).toEqual(clean.get(c.id))
              if (hit.has(c.id)) asExpected++
              else othersClean++
            }
          }

          const reported = [...run.stderr.matchAll(/^ {2}(conv_\S+|\S+) +(\S+): (.*)$/gm)].filter((m) => !m[1]!.endsWith(":"))
          const mayHold = [...run.stderr.matchAll(/^ {2}(\S+): the ask \(POST .*\) (.*) before naming its conversation: the app may hold one$/gm)]
          if (want.case === "undeleted") {
            expect(reported.map((m) => m[2]).sort()).toEqual([...hit].sort())
            for (const m of reported) expect(m[3]).toMatch(want.reason)
          } else if (want.case === "fails" && want.refusedId !== undefined) {
            // The conversation is named by an id no route may hold: reported by it, and no request made with it.
            expect(reported.map((m) => [m[1], m[2]]).sort()).toEqual([...hit].map((id) => [want.refusedId, id]).sort())
            expect(s.stats().requests.delete).toBe(cases.length - hit.size)
          } else if (want.case === "fails" && want.mayHold === true) {
            expect(mayHold.map((m) => m[1]).sort()).toEqual([...hit].sort())
            expect(run.stderr).toMatch(new RegExp(`^${hit.size} cases? may have left a conversation the run never learned of`, "m"))
          } else {
            expect(run.notes).toBe("")
          }
          const reportedIds = new Set(reported.map((m) => m[1]))
          // A conversation reported under an id no route may hold is the stand-in's one for that case.
          const reportedCases = new Set(reported.map((m) => m[2]))
          const leaked = s.conversations().filter((c) =>
            !reportedIds.has(c.id) && !(want.case === "fails" && want.refusedId !== undefined && reportedCases.has(cases.find((k) => k.question === c.question)?.id ?? ""))
          ).length
          expect(leaked).toBe(0)
          const everywhere = [run.stdout, run.stderr, readFileSync(join(dir, "r.json"), "utf8")].join("\n")
          const cookieLeaks = everywhere.split(cookie.split("=")[1]!).length - 1 +
            cookiesSeenElsewhere.filter((c) => c !== "").length
          expect(cookieLeaks).toBe(0)
          rows.push({
            route,
            fault: name,
            faulted: hit.size,
            asExpected,
            othersClean,
            others: cases.length - hit.size,
            reported: reported.length,
            mayHold: mayHold.length,
            leaked,
            cookieLeaks,
            completed: true,
            seconds
          })
        }), 60_000)
    }
  }
})

const renderTable = (all: ReadonlyArray<Row>): string => {
  const sum = (f: (r: Row) => number) => all.reduce((n, r) => n + f(r), 0)
  return [
    "| route | fault | cases faulted | faulted as expected | other cases graded as in a clean run | conversations reported undeleted | cases listed as maybe holding one | conversations leaked | cookie leaks | run time (s) |",
    "|---|---|---|---|---|---|---|---|---|---|",
    ...all.map((r) =>
      `| ${r.route} | ${r.fault} | ${r.faulted} | ${r.asExpected}/${r.faulted} | ${r.othersClean}/${r.others} | ${r.reported} | ${r.mayHold} | ${r.leaked} | ${r.cookieLeaks} | ${
        r.seconds.toFixed(1)
      } |`
    ),
    "",
    `Totals: ${all.length} runs completed, ${sum((r) => r.faulted)} faults injected, ${
      sum((r) => r.asExpected)
    } faulted cases as expected, ${sum((r) => r.reported)} conversations reported by id (their delete was the faulted route, or the ask named them by an id no route may hold), ${
      sum((r) => r.mayHold)
    } cases listed as maybe holding a conversation they never named, ${sum((r) => r.leaked)} conversations leaked, ${
      sum((r) => r.cookieLeaks)
    } cookie leaks.`,
    ""
  ].join("\n")
}
