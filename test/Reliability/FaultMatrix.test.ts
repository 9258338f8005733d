/**
 * The fault matrix: for every protocol, every route it has and every fault that route takes, a live run
 * of the committed golden set through the real CLI, with the fault injected into a fraction of the
 * cases. The faulted cases fail naming the route and the fault (and the request: method and URL); a
 * stream that drops a call's result is still a turn, the call kept as an attempt that fails the
 * expectations naming its tool. Every other case grades exactly as in a clean run of the same protocol,
 * every conversation created is deleted or reported by id (the stand-in's counts: created = deleted +
 * reported), the results file is whole, and the session appears nowhere: not in any output, and not at
 * the other origin a redirect points to, which no request reaches. This product's protocol signs in by
 * cookie, as it always has; the others by the header in EVAL_AUTH_HEADER (a bearer token, or LangGraph's
 * API key), and the AI SDK's redirects once more by cookie. Long: runs when RELIABILITY=1 (CI sets it),
 * two runs at a time (each is mostly waiting on its timeouts); RELIABILITY_REPORT=DIR also writes the
 * figures there as Markdown tables. Its last rows are of the catalog, not the app: every route a
 * protocol builds from the catalog spelled to name the other origin's host or to leave the base URL's
 * path (test/support/routeSpellings.ts), which `run` refuses, exit 2, naming each JSON path, before any
 * request; and `cleanup` of a journal whose delete or search routes are so spelled, which sends nothing.
 * Then the threads a LangGraph run was opening when it was killed (kill -9) or quit by a second Ctrl-C,
 * their creations reaching the app but unanswered: `cleanup` finds each by search and deletes it, and
 * keeps another run's thread; and an `https://` base URL against the http app on each protocol, which
 * journals nothing and leaves `cleanup` nothing to do.
 */
import { afterAll, beforeAll, describe, expect, it } from "@effect/vitest"
import { Effect, Exit, Redacted, Schema, Scope } from "effect"
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, writeFileSync } from "node:fs"
import { createServer, type IncomingHttpHeaders, type Server } from "node:http"
import type { AddressInfo } from "node:net"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ProtocolName } from "../../src/Protocols/Registry.js"
import { openJournal, stateFolder } from "../../src/Runner/Journal.js"
import { type QuestionCase, questionCases } from "../../src/Schema/Case.js"
import type { Route } from "../../src/Schema/Protocol.js"
import { type CaseResult, RunResult } from "../../src/Schema/Result.js"
import { type Fault, type FaultKind, stableFraction, type StandIn } from "../../src/StandIn/Server.js"
import { type CliProcess, evalCliAsync, stackFrame } from "../support/cli.js"
import { goldenCases } from "../support/golden.js"
import { creatingThreads, journalText, scratch, usersOwnThread } from "../support/lostThreads.js"
import {
  allProtocols,
  headerSignInOf,
  type ProtocolSet,
  protocolSet,
  routesOf,
  secretOf,
  sessionEnv,
  type SignIn,
  surfacesArgs,
  withProtocolStandIn
} from "../support/protocols.js"
import {
  journalSpelledDeletes,
  type SpelledField,
  type Spelling,
  spellings,
  validateMessage
} from "../support/routeSpellings.js"

const enabled = process.env["RELIABILITY"] === "1"
const rate = 0.3
/**
 * The case timeout of a run whose fault ends its cases by reaching it: a hang, and the answers and
 * dropped connections that are retried (until the timeout, which their expected reasons name).
 */
const timeout = 3
/**
 * The case timeout of a run under any other fault, whose verdict never waits on the clock: long enough
 * that no loaded machine reaches it (a 5 MB body is read whole, and a clean case beside a faulted one
 * must stay clean), so the verdict is the fault's, never the machine's speed.
 */
const unhurried = 60
/** Whether a fault's cases end by reaching the case timeout. */
const reachesTimeout = (fault: FaultKind): boolean =>
  fault.kind === "hang" || fault.kind === "status" || fault.kind === "reset"
/** LangGraph names a thread when it is created, which carries no question: its `id=` fault hits the first creations. */
const renamedThreads = 4

type Expected =
  | {
    readonly case: "fails"
    readonly reason: RegExp
    readonly mayHold?: boolean
    readonly refusedId?: string
  }
  | { readonly case: "clean" }
  | { readonly case: "undeleted"; readonly reason: RegExp }
  /** The turn is read, its first call an attempt with no result (droppedAsExpected). */
  | { readonly case: "attempted" }

/** How each protocol signs in here: this product's by cookie, as it always has; the others by a header. */
const signInOf = (protocol: ProtocolName): SignIn => protocol === "turn-eval" ? "cookie" : headerSignInOf[protocol]
/** How a table says it. */
const signInWords: { readonly [S in SignIn]: string } = {
  cookie: "a session cookie (`EVAL_COOKIE`)",
  bearer: "`EVAL_AUTH_HEADER='authorization: Bearer …'`",
  "api-key": "`EVAL_AUTH_HEADER='x-api-key: …'`"
}

const uuid = "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"

/** A request as a failure names it: the name its reason starts with, the method, and its path as a pattern. */
interface Request {
  readonly name: string
  readonly method: "GET" | "POST" | "DELETE"
  readonly path: string
}

/** The request of each route, per protocol: what its failures must name. */
const requestOf = (protocol: ProtocolName, route: Route): Request => {
  const ask: Request = { name: "ask", method: "POST", path: "/api/ai/(docs|agent)/ask" }
  switch (protocol) {
    case "turn-eval":
      return route === "ask"
        ? ask
        : route === "trace"
        ? { name: "trace", method: "GET", path: "/api/ai/turns/turn_\\w+/trace" }
        : { name: route, method: route === "delete" ? "DELETE" : "GET", path: "/api/ai/conversations/conv_\\w+" }
    case "ai-sdk":
      return route === "delete" ? { name: "delete", method: "DELETE", path: `/api/ai/chats/${uuid}` } : ask
    case "langgraph":
      return route === "ask"
        ? { name: "ask", method: "POST", path: `/threads/${uuid}/runs/wait` }
        : route === "conversation"
        ? { name: "thread", method: "GET", path: `/threads/${uuid}` }
        : route === "trace"
        ? { name: "state", method: "GET", path: `/threads/${uuid}/state` }
        : { name: "delete", method: "DELETE", path: `/threads/${uuid}` }
    case "ag-ui":
      return ask
  }
}

/** What each route is on each protocol, for the tables. */
const legendOf: { readonly [P in ProtocolName]: string } = {
  "turn-eval": "ask = `POST /api/ai/{surface}/ask`, conversation = `GET /api/ai/conversations/{id}`, trace = " +
    "`GET /api/ai/turns/{turnId}/trace`, delete = `DELETE /api/ai/conversations/{id}`",
  "ai-sdk":
    "ask = the chat route, `POST /api/ai/{surface}/ask` (the chat id is the run's own, named before it asks), " +
    "delete = the surface's `routes.delete`, `DELETE /api/ai/chats/{id}`",
  langgraph: "ask = the run, `POST /threads/{id}/runs/wait` (`id=` hits the thread's creation, `POST /threads`), " +
    "conversation = `GET /threads/{id}` (failures say `thread:`), trace = `GET /threads/{id}/state` (`state:`), " +
    "delete = `DELETE /threads/{id}`",
  "ag-ui":
    "ask = the agent, `POST /api/ai/{surface}/ask`; the agent keeps no thread, so there is nothing to read back or delete"
}

/** A fault of the matrix: its name in the table, the fault, and the sign-in when it is not the protocol's own. */
interface Planned {
  readonly name: string
  readonly fault: FaultKind
  readonly signIn?: SignIn
}

const faults: ReadonlyArray<Planned> = [
  { name: "HTTP 500", fault: { kind: "status", status: 500 } },
  { name: "HTTP 502", fault: { kind: "status", status: 502 } },
  { name: "HTTP 503", fault: { kind: "status", status: 503 } },
  { name: "HTTP 503 + Retry-After", fault: { kind: "status", status: 503, retryAfter: "1" } },
  { name: "HTTP 429", fault: { kind: "status", status: 429 } },
  { name: "HTTP 429 + Retry-After", fault: { kind: "status", status: 429, retryAfter: "1" } },
  { name: "HTTP 404", fault: { kind: "status", status: 404 } },
  { name: "hang past the timeout", fault: { kind: "hang" } },
  { name: "connection reset mid-answer", fault: { kind: "reset" } },
  { name: "body not JSON", fault: { kind: "not-json" } },
  { name: "JSON of the wrong shape", fault: { kind: "wrong-shape" } },
  { name: "5 MB body", fault: { kind: "huge" } },
  { name: "redirect to another origin", fault: { kind: "redirect", to: "ORIGIN" } }
]

/** The faults of one protocol's route: every route's, the ask's own where the protocol takes them, and redirects by cookie. */
const faultsOf = (protocol: ProtocolName, route: Route): ReadonlyArray<Planned> => [
  ...faults,
  ...(route === "ask" && protocol !== "ag-ui"
    ? [{ name: "HTTP 500 naming its conversation", fault: { kind: "opened", status: 500 } } as const]
    : []),
  // A call id a stream reuses is the client's to read, on the two wires that stream calls by id.
  ...(route === "ask" && (protocol === "ai-sdk" || protocol === "ag-ui")
    ? [{ name: "a call id started again by a gated tool", fault: { kind: "reused-id" } } as const]
    : []),
  // A call whose result never comes is an attempt, on the two wires that stream a call apart from its result.
  ...(route === "ask" && (protocol === "ai-sdk" || protocol === "ag-ui")
    ? [{ name: "the first call's result dropped", fault: { kind: "no-result" } } as const]
    : []),
  ...(route === "ask" && (protocol === "turn-eval" || protocol === "langgraph")
    ? [
      { name: "conversation id ..", fault: { kind: "id", id: ".." } } as const,
      { name: "conversation id %2e%2e", fault: { kind: "id", id: "%2e%2e" } } as const
    ]
    : []),
  // One protocol's redirects are also run signed in by cookie: neither kind of session may leave the origin.
  ...(protocol === "ai-sdk"
    ? [
      {
        name: "redirect to another origin, by cookie",
        fault: { kind: "redirect", to: "ORIGIN" },
        signIn: "cookie"
      } as const
    ]
    : [])
]

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")
const host = "http://127\\.0\\.0\\.1:\\d+"

/** What a faulted case should show, by protocol, route and fault. */
const expected = (protocol: ProtocolName, route: Route, fault: FaultKind): Expected => {
  // A fault that is retried may outlast the timeout: the reason then says so after the fault.
  const retried = ` \\(retried until the ${timeout}s timeout\\)`
  const own = requestOf(protocol, route)
  // Only this product's ask names its conversation in its answer: one that failed first may have left one.
  const mayHoldOne = protocol === "turn-eval" && route === "ask"
  const because = (reason: string, options: { readonly mayHold?: boolean; readonly at?: Request } = {}): Expected => {
    const at = options.at ?? own
    // Every route error names its request: the method and the URL, never the session.
    const pattern = new RegExp(`^${at.name}: ${reason}(${retried})? — ${at.method} ${host}${at.path}$`)
    return route === "delete"
      ? { case: "undeleted", reason: pattern }
      : { case: "fails", reason: pattern, mayHold: mayHoldOne && options.mayHold === true }
  }
  switch (fault.kind) {
    case "status":
      return route === "delete" && fault.status === 404
        ? { case: "clean" }
        : because(`HTTP ${fault.status}`, { mayHold: fault.status >= 500 })
    case "opened":
      return because(`HTTP ${fault.status}`)
    case "id": {
      const refused = `^ask: refused the conversation id ${escape(JSON.stringify(fault.id))}`
      const unsafe = "it would change the route.s path"
      return {
        case: "fails",
        // A LangGraph thread is named by its creation, which the failure names.
        reason: protocol === "langgraph"
          ? new RegExp(`${refused} \\(POST /threads\\): ${unsafe}; no request is made with it — POST ${host}/threads$`)
          : new RegExp(`${refused} \\([^)]*\\): ${unsafe}`),
        refusedId: fault.id
      }
    }
    case "hang":
      return because(`timed out after ${timeout}s`, { mayHold: true })
    case "reset":
      return route === "delete" ? because("connection reset") : because("connection reset while reading the answer")
    case "not-json":
      // The stand-in answers a web page: the case says so, naming where it came from.
      return route === "delete"
        ? { case: "clean" }
        : {
          case: "fails",
          reason: new RegExp(
            `^${own.name}: the app answered a web page \\(HTTP 200 text/html from ${host}${own.path}\\), not the protocol — ` +
              "is the route right and the session signed in\\?$"
          ),
          mayHold: mayHoldOne
        }
    case "wrong-shape":
      return wrongShape(protocol, route, because)
    case "huge":
      return { case: "clean" }
    case "reused-id": {
      // The stand-in's search_docs call, then deploy started under its id: no turn, naming the id and both tools.
      const named = `tool call "[^"]+-call-reused" was started again \\("search_docs", then "deploy"\\)`
      return because(
        protocol === "ag-ui" ? `event 5 \\(TOOL_CALL_START\\): ${named}` : `chunk 6 \\(tool-input-start\\): ${named}`
      )
    }
    case "no-result":
      return { case: "attempted" }
    case "redirect":
      return because(`redirected to another origin \\(${escape(fault.to)}\\); not followed`)
  }
}

/**
 * The kinds whose verdict reads nothing a call's result carries — the answer, the outcome, the usage, and
 * the calls' names, counts and inputs — so a dropped result leaves them as they were. (`stops-at-approval`
 * reads whether a gated tool ran; the call whose result the fault drops is of no gated tool.)
 */
const blindToResults: ReadonlySet<string> = new Set([
  "answer-includes",
  "answer-excludes",
  "answer-matches",
  "calls-at-most",
  "no-repeated-calls",
  "within-budget",
  "outcome",
  "stops-at-approval"
])

/**
 * A case whose stream lost its first call's result, against its clean run: no call is lost (the same
 * calls in the same order, the first unresolved and with no output), the answer and outcome are the
 * clean run's, `calls-tool` and `never-calls` of the first call's tool fail naming the missing result,
 * and every expectation of a kind that reads nothing of a result, or of another tool, grades as in the
 * clean run. What a result surfaced (citations) and which calls succeeded in order are the readers' own
 * rules, held by their tests. A case whose turn called nothing grades as in the clean run.
 */
const droppedAsExpected = (c: CaseResult, clean: ReturnType<typeof withoutTurnId>, testCase: QuestionCase): void => {
  const kept = "turn" in clean ? clean.turn : undefined
  const tools = kept?.tools ?? []
  if (tools.length === 0) return void expect(withoutTurnId(c), c.id).toEqual(clean)
  const dropped = tools[0]!
  const executions = c.turn?.trace.toolExecutions ?? []
  expect(executions.map((e) => [e.tool, e.unresolved === true]), c.id).toEqual(tools.map((t, i) => [t, i === 0]))
  expect(executions[0]?.output, c.id).toBeUndefined()
  expect([c.turn?.answer, c.turn?.trace.outcome], c.id).toEqual([kept?.answer, kept?.outcome])
  const once = tools.filter((tool) => tool === dropped).length === 1
  for (const [i, expectation] of testCase.expect.entries()) {
    const got = c.expectations[i]
    const named = "tool" in expectation && expectation.tool === dropped
    const own = expectation.kind === "calls-tool" || expectation.kind === "never-calls"
    if (named && once && own) {
      const fact = expectation.kind === "calls-tool"
        ? `${dropped}: no result on the wire`
        : `called: ${dropped} (no result on the wire)`
      expect(got, `${c.id} ${expectation.kind}`).toEqual({ kind: expectation.kind, passed: false, fact })
    } else if ((own && !named) || blindToResults.has(expectation.kind)) {
      expect(got, `${c.id} ${expectation.kind}`).toEqual(clean.expectations[i])
    }
  }
}

/** What a body of the wrong shape shows, by protocol: each reader says what it could not read. */
const wrongShape = (
  protocol: ProtocolName,
  route: Route,
  because: (reason: string, options?: { readonly mayHold?: boolean; readonly at?: Request }) => Expected
): Expected => {
  // A delete answered 200 with any body is done.
  if (route === "delete") return { case: "clean" }
  switch (protocol) {
    case "turn-eval":
      return route === "ask" ? because("the answer carries no conversationId", { mayHold: true }) : because("\\$\\..*")
    case "ai-sdk":
      return because("chunk 1 of the stream is not a UI message chunk \\(an object with a string type\\)")
    case "ag-ui":
      return because("event 0: not an AG-UI event \\(expected an object with a string \"type\"\\)")
    case "langgraph": {
      // A run's values are the graph's own state, so any object is one; the turn is read from the thread's
      // state, which holds no messages when the run was not taken (the ask's fault) or is itself garbage.
      // The thread's own body adds only its status and interrupts, which the state and the run carry too.
      const state = because("thread state: values\\.messages: expected a list of messages, got undefined", {
        at: requestOf("langgraph", "trace")
      })
      return route === "conversation" ? { case: "clean" } : state
    }
  }
}

interface Row {
  readonly order: number
  readonly protocol: ProtocolName
  readonly signIn: SignIn
  readonly route: Route
  readonly fault: string
  readonly faulted: number
  readonly asExpected: number
  readonly othersClean: number
  readonly others: number
  readonly reported: number
  readonly mayHold: number
  readonly created: number
  readonly deleted: number
  readonly leaked: number
  readonly elsewhere: number
  readonly sessionLeaks: number
  readonly seconds: number
}

const rows: Array<Row> = []
// What a clean run and a faulted one agree on for a case: its verdicts, without its turn id and wall time.
/**
 * A case's result less what differs from run to run: its turn id and time, and of its kept turn the
 * ids a run generates (turn, call and run ids); its answer, outcome and tools are compared.
 */
const withoutTurnId = ({ durationMs: _d, turn, turnId: _, ...rest }: CaseResult) =>
  turn === undefined
    ? rest
    : {
      ...rest,
      turn: {
        answer: turn.answer,
        outcome: turn.trace.outcome,
        tools: turn.trace.toolExecutions.map((e) => e.tool)
      }
    }

/** Runs at most `n` bodies at once. */
const limiter = (n: number) => {
  let running = 0
  const waiting: Array<() => void> = []
  return async <A>(body: () => Promise<A>): Promise<A> => {
    if (running >= n) await new Promise<void>((resolve) => waiting.push(resolve))
    running++
    try {
      return await body()
    } finally {
      running--
      waiting.shift()?.()
    }
  }
}
const slot = limiter(2)

/** A server on another origin that records every request it gets, with its headers. */
const recordingOrigin = async () => {
  const seen: Array<IncomingHttpHeaders> = []
  const server: Server = createServer((request, response) => {
    seen.push(request.headers)
    response.end("{}")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    origin: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

/**
 * The golden set's one-question cases, as a cases file: each fault is held to every case's turn, and the
 * protocols other than this product's carry only a conversation's first step.
 */
const questionsFile = (() => {
  const file = join(mkdtempSync(join(tmpdir(), "eval-fault-cases-")), "questions.json")
  writeFileSync(file, JSON.stringify({ version: 1, cases: questionCases(goldenCases) }))
  return file
})()

/** Runs the golden set's one-question cases live over a protocol's catalog; the results file is decoded whole. */
const liveRun = async (p: ProtocolSet, url: string, env: NodeJS.ProcessEnv, seconds = timeout) => {
  const dir = mkdtempSync(join(tmpdir(), "eval-fault-"))
  const file = join(dir, "r.json")
  const run = await evalCliAsync(
    [
      "run",
      "--base-url",
      url,
      "--cases",
      questionsFile,
      ...surfacesArgs(p),
      "--json",
      file,
      "--timeout",
      String(seconds),
      "--concurrency",
      "8"
    ],
    { env: { XDG_STATE_HOME: join(dir, "state"), ...env } }
  )
  const text = readFileSync(file, "utf8")
  return { run, text, result: Schema.decodeUnknownSync(RunResult)(JSON.parse(text)) }
}

describe.runIf(enabled)("the fault matrix", () => {
  let cases: ReadonlyArray<QuestionCase> = []
  const clean = new Map<ProtocolName, Map<string, ReturnType<typeof withoutTurnId>>>()

  beforeAll(async () => {
    cases = questionCases((await protocolSet("turn-eval")).set.cases)
    await Promise.all(allProtocols.map((protocol) =>
      withProtocolStandIn(protocol, {}, async (s, p) => {
        const { result, run } = await liveRun(p, s.url, sessionEnv(s, signInOf(protocol)))
        expect(run.code).toBe(0)
        // The wires other than this product's have no refused or handed-off outcome, and the AI SDK's
        // carries no token usage: those cases fail there.
        const usageOnWire = protocol !== "ai-sdk"
        const unreadable = cases.filter((c) =>
          c.expect.some((e) =>
            (e.kind === "outcome" && ["refused", "handed-off"].includes(e.is)) ||
            (e.kind === "within-budget" && !usageOnWire)
          )
        )
        expect(unreadable.length).toBeGreaterThan(0)
        expect(result.cases.filter((c) => !c.passed).map((c) => c.id)).toEqual(
          protocol === "turn-eval" ? [] : unreadable.map((c) => c.id)
        )
        clean.set(protocol, new Map(result.cases.map((c) => [c.id, withoutTurnId(c)])))
      })
    ))
  }, 120_000)

  afterAll(() => {
    const report = process.env["RELIABILITY_REPORT"]
    if (report !== undefined && rows.length > 0) {
      mkdirSync(report, { recursive: true })
      writeFileSync(join(report, "fault-matrix.md"), renderTables(rows))
    }
  })

  let order = 0
  for (const protocol of allProtocols) {
    describe.concurrent(protocol, () => {
      for (const route of routesOf[protocol]) {
        for (const planned of faultsOf(protocol, route)) {
          const at = order++
          it(
            `${protocol} ${route}: ${planned.name}`,
            () => slot(() => faultedRun(protocol, route, planned, at)),
            60_000
          )
        }
      }
    })
  }

  const faultedRun = (protocol: ProtocolName, route: Route, planned: Planned, at: number) =>
    withProtocolStandIn(protocol, {}, async (s, p) => {
      const other = await recordingOrigin()
      try {
        const signIn = planned.signIn ?? signInOf(protocol)
        const injected = planned.fault.kind === "redirect" ? { ...planned.fault, to: other.origin } : planned.fault
        const renamesThreads = protocol === "langgraph" && injected.kind === "id"
        const fault: Fault = renamesThreads
          ? { route, times: renamedThreads, ...injected }
          : { route, rate, ...injected }
        s.setFaults([fault])
        const want = expected(protocol, route, injected)
        const started = Date.now()
        const { result, run, text } = await liveRun(
          p,
          s.url,
          sessionEnv(s, signIn),
          reachesTimeout(injected) ? timeout : unhurried
        )
        const seconds = (Date.now() - started) / 1000
        expect(run.code).toBe(0)
        expect(result.cases.map((c) => c.id)).toEqual(cases.map((c) => c.id))
        // The cases hit: chosen by a hash of the question, or, for a thread's creation, whichever came first.
        const hit = renamesThreads
          ? new Set(
            result.cases.filter((c) => want.case === "fails" && want.reason.test(c.error ?? "")).map((c) => c.id)
          )
          : new Set(cases.filter((c) => stableFraction(`${route}\u0000${c.question}`) < rate).map((c) => c.id))
        if (renamesThreads) expect(hit.size).toBe(renamedThreads)
        expect(hit.size).toBeGreaterThan(0)

        let asExpected = 0
        let othersClean = 0
        for (const c of result.cases) {
          if (hit.has(c.id) && want.case === "fails") {
            expect(c.passed, c.id).toBe(false)
            expect(c.error, c.id).toMatch(want.reason)
            asExpected++
          } else if (hit.has(c.id) && want.case === "attempted") {
            droppedAsExpected(c, clean.get(protocol)!.get(c.id)!, cases.find((k) => k.id === c.id)!)
            asExpected++
          } else {
            expect(withoutTurnId(c), c.id).toEqual(clean.get(protocol)!.get(c.id))
            if (hit.has(c.id)) asExpected++
            else othersClean++
          }
        }

        const reported = [...run.stderr.matchAll(/^ {2}(\S+) +(\S+): (.*)$/gm)].filter((m) => !m[1]!.endsWith(":"))
        const mayHold = [
          ...run.stderr.matchAll(
            /^ {2}(\S+): the ask \(POST .*\) (.*) before naming its conversation: the app may hold one$/gm
          )
        ]
        const stats = s.stats()
        if (want.case === "undeleted") {
          expect(reported.map((m) => m[2]).sort()).toEqual([...hit].sort())
          for (const m of reported) expect(m[3]).toMatch(want.reason)
        } else if (want.case === "fails" && want.refusedId !== undefined) {
          // The conversation is named by an id no route may hold: reported by it, and no request made with it.
          expect(reported.map((m) => [m[1], m[2]]).sort()).toEqual([...hit].map((id) => [want.refusedId, id]).sort())
          expect(stats.requests.delete).toBe(cases.length - hit.size)
        } else if (want.case === "fails" && want.mayHold === true) {
          expect(mayHold.map((m) => m[1]).sort()).toEqual([...hit].sort())
          expect(run.stderr).toMatch(
            new RegExp(`^${hit.size} cases? may have left a conversation the run never learned of`, "m")
          )
        } else {
          expect(run.notes).toBe("")
        }
        // Every conversation created is deleted or reported: what the stand-in still holds is what was reported.
        const held = s.conversations()
        const refused = want.case === "fails" && want.refusedId !== undefined
        if (!refused) expect(reported.map((m) => m[1]).sort()).toEqual(held.map((c) => c.id).sort())
        const leaked = stats.created - stats.deleted - reported.length
        expect([leaked, held.length]).toEqual([0, reported.length])
        if (protocol === "ag-ui") expect([stats.created, stats.requests.delete]).toEqual([0, 0])

        // No request reaches the other origin, so no session does; nor does the session show in any output.
        const secret = secretOf(s)
        const carried = other.seen.filter((headers) => JSON.stringify(headers).includes(secret)).length
        const sessionLeaks = [run.stdout, run.stderr, text].join("\n").split(secret).length - 1 + carried
        expect([other.seen.length, sessionLeaks]).toEqual([0, 0])
        rows.push({
          order: at,
          protocol,
          signIn,
          route,
          fault: planned.name,
          faulted: hit.size,
          asExpected,
          othersClean,
          others: cases.length - hit.size,
          reported: reported.length,
          mayHold: mayHold.length,
          created: stats.created,
          deleted: stats.deleted,
          leaked,
          elsewhere: other.seen.length,
          sessionLeaks,
          seconds
        })
      } finally {
        await other.close()
      }
    })
})

const renderTables = (all: ReadonlyArray<Row>): string => {
  const sorted = [...all].sort((a, b) => a.order - b.order)
  const sum = (rows: ReadonlyArray<Row>, f: (r: Row) => number) => rows.reduce((n, r) => n + f(r), 0)
  const totals = (rows: ReadonlyArray<Row>) =>
    [
      `${rows.length} runs completed`,
      `${sum(rows, (r) => r.faulted)} faults injected`,
      `${sum(rows, (r) => r.asExpected)} faulted cases as expected`,
      `${sum(rows, (r) => r.othersClean)} of ${sum(rows, (r) => r.others)} other cases graded as in a clean run`,
      `${sum(rows, (r) => r.created)} conversations created, ${sum(rows, (r) => r.deleted)} deleted`,
      `${
        sum(rows, (r) => r.reported)
      } reported by id (their delete was the faulted route, or the app named them by an id ` +
      "no route may hold)",
      `${sum(rows, (r) => r.mayHold)} cases listed as maybe holding a conversation they never named`,
      `${sum(rows, (r) => r.leaked)} conversations leaked`,
      `${sum(rows, (r) => r.elsewhere)} requests at the other origin`,
      `${sum(rows, (r) => r.sessionLeaks)} session leaks.`
    ].join(", ")
  const columns = [
    "route",
    "fault",
    "cases faulted",
    "faulted as expected",
    "other cases graded as in a clean run",
    "conversations created / deleted",
    "reported undeleted",
    "cases listed as maybe holding one",
    "conversations leaked",
    "session leaks",
    "run time (s)"
  ]
  const line = (cells: ReadonlyArray<string | number>) => `| ${cells.join(" | ")} |`
  const sections = allProtocols.flatMap((protocol) => {
    const mine = sorted.filter((r) => r.protocol === protocol)
    if (mine.length === 0) return []
    const byCookie = protocol !== "turn-eval" && mine.some((r) => r.signIn === "cookie")
      ? "; the rows that say “by cookie”, by a session cookie"
      : ""
    return [
      `### ${protocol}`,
      "",
      `Signed in by ${signInWords[signInOf(protocol)]}${byCookie}. ${legendOf[protocol]}.`,
      "",
      line(columns),
      line(columns.map(() => "---")).replace(/ /g, ""),
      ...mine.map((r) =>
        line([
          r.route,
          r.fault,
          r.faulted,
          `${r.asExpected}/${r.faulted}`,
          `${r.othersClean}/${r.others}`,
          `${r.created} / ${r.deleted}`,
          r.reported,
          r.mayHold,
          r.leaked,
          r.sessionLeaks,
          r.seconds.toFixed(1)
        ])
      ),
      "",
      `Totals (${protocol}): ${totals(mine)}`,
      ""
    ]
  })
  return [...sections, `Totals (every protocol): ${totals(sorted)}`, ""].join("\n")
}

/** A row of the catalog's part: a protocol's routes spelled one way (or its journal's, for `cleanup`). */
interface RouteRow {
  readonly order: number
  readonly protocol: ProtocolName
  readonly command: "run" | "cleanup" | "cleanup search"
  readonly spelling: string
  readonly routes: number
  readonly refused: number
  readonly code: number | null
  readonly atApp: number
  readonly elsewhere: number
  readonly sessionLeaks: number
}

const routeRows: Array<RouteRow> = []

/** The fields of the docs surface each protocol builds request paths from: this product's four, the others' two. */
const spelledFieldsOf = (protocol: ProtocolName): ReadonlyArray<SpelledField> =>
  protocol === "turn-eval" ? ["endpoint", "conversation", "trace", "delete"] : ["endpoint", "delete"]

/** The session as the journal keys it for a sign-in (`sessionOf` of the run's auth). */
const journalSessionOf = (s: StandIn, signIn: SignIn): string => {
  const token = Redacted.value(s.token())
  return signIn === "cookie"
    ? Redacted.value(s.cookie())
    : signIn === "bearer"
    ? `authorization: Bearer ${token}`
    : `x-api-key: ${token}`
}

describe.runIf(enabled)("catalog routes that would leave the app", () => {
  afterAll(() => {
    const report = process.env["RELIABILITY_REPORT"]
    if (report !== undefined && routeRows.length > 0) {
      mkdirSync(report, { recursive: true })
      writeFileSync(join(report, "route-origin.md"), renderRouteTable(routeRows))
    }
  })

  let order = 0
  for (const protocol of allProtocols) {
    describe.concurrent(protocol, () => {
      for (const spelling of spellings) {
        const at = order++
        it(
          `${protocol}: run refuses every route spelled ${spelling.name}`,
          () => slot(() => spelledRun(protocol, spelling, at)),
          60_000
        )
      }
      const at = order++
      it(
        `${protocol}: cleanup deletes nothing at delete routes so spelled`,
        () => slot(() => spelledCleanup(protocol, at)),
        60_000
      )
      if (protocol === "langgraph") {
        const searchAt = order++
        it(
          `${protocol}: cleanup searches nothing at search routes so spelled`,
          () => slot(() => spelledSearch(searchAt)),
          60_000
        )
      }
    })
  }

  const spelledRun = (protocol: ProtocolName, spelling: Spelling, at: number) =>
    withProtocolStandIn(protocol, {}, async (s, p) => {
      const other = await recordingOrigin()
      try {
        const signIn = signInOf(protocol)
        const path = spelling.path(new URL(other.origin).host)
        const catalog = JSON.parse(readFileSync(p.surfacesFile, "utf8")) as {
          surfaces: Record<string, { endpoint?: string; routes?: Record<string, unknown> }>
        }
        const docs = catalog.surfaces["docs"]!
        const values: Record<SpelledField, string> = {
          endpoint: path,
          conversation: `${path}/{conversationId}`,
          trace: `${path}/{turnId}/trace`,
          delete: `${path}/{conversationId}`,
          ratings: `${path}?rating=down`
        }
        const fields = spelledFieldsOf(protocol)
        for (const field of fields) {
          if (field === "endpoint") docs.endpoint = values.endpoint
          else docs.routes = { ...docs.routes, [field]: values[field] }
        }
        const dir = mkdtempSync(join(tmpdir(), "eval-route-origin-"))
        const file = join(dir, "surfaces.json")
        writeFileSync(file, JSON.stringify(catalog, null, 2))
        const run = await evalCliAsync(
          ["run", "--base-url", s.url, "--surfaces", file, "--json", join(dir, "r.json"), "--timeout", String(timeout)],
          { env: { XDG_STATE_HOME: join(dir, "state"), ...sessionEnv(s, signIn) } }
        )
        const expected = fields.map((field) =>
          `${file}: $.surfaces.docs.${field === "endpoint" ? "endpoint" : `routes.${field}`}: ${
            validateMessage(spelling, field, values[field])
          }`
        )
        expect(run.code).toBe(2)
        expect(run.stderr).not.toMatch(stackFrame)
        const lines = run.stderr.trimEnd().split("\n")
        expect(lines.sort()).toEqual([...expected].sort())
        const atApp = Object.values(s.stats().requests).reduce((n, k) => n + k, 0)
        const secret = secretOf(s)
        const sessionLeaks = [run.stdout, run.stderr].join("\n").split(secret).length - 1 +
          other.seen.filter((headers) => JSON.stringify(headers).includes(secret)).length
        expect([atApp, other.seen.length, sessionLeaks]).toEqual([0, 0, 0])
        routeRows.push({
          order: at,
          protocol,
          command: "run",
          spelling: spelling.name,
          routes: fields.length,
          refused: lines.length,
          code: run.code,
          atApp,
          elsewhere: other.seen.length,
          sessionLeaks
        })
      } finally {
        await other.close()
      }
    })

  const spelledCleanup = (protocol: ProtocolName, at: number) =>
    withProtocolStandIn(protocol, {}, async (s) => {
      const other = await recordingOrigin()
      try {
        const signIn = signInOf(protocol)
        const host = new URL(other.origin).host
        const state = mkdtempSync(join(tmpdir(), "eval-route-origin-"))
        // The journal a run killed with kill -9 would leave: a conversation per spelling, each with its delete route.
        await journalSpelledDeletes(s.url, journalSessionOf(s, signIn), state, host)
        const run = await evalCliAsync(["cleanup", "--base-url", s.url], {
          env: { XDG_STATE_HOME: state, ...sessionEnv(s, signIn) }
        })
        expect(run.code).toBe(1)
        expect(run.stderr).not.toMatch(stackFrame)
        const refused = spellings.filter((spelling, i) =>
          run.stdout.split("\n").some((line) =>
            line.startsWith("not deleted") && line.includes(` conv-${i} `) &&
            line.endsWith(
              `: delete: refused the path ${JSON.stringify(`${spelling.path(host)}/conv-${i}`)}: it ${spelling.why}; ` +
                "no request is made"
            )
          )
        )
        expect(refused.map((r) => r.name)).toEqual(spellings.map((r) => r.name))
        const atApp = Object.values(s.stats().requests).reduce((n, k) => n + k, 0)
        const secret = secretOf(s)
        const sessionLeaks = [run.stdout, run.stderr].join("\n").split(secret).length - 1 +
          other.seen.filter((headers) => JSON.stringify(headers).includes(secret)).length
        expect([atApp, other.seen.length, sessionLeaks]).toEqual([0, 0, 0])
        routeRows.push({
          order: at,
          protocol,
          command: "cleanup",
          spelling: `each of the ${spellings.length}`,
          routes: spellings.length,
          refused: refused.length,
          code: run.code,
          atApp,
          elsewhere: other.seen.length,
          sessionLeaks
        })
      } finally {
        await other.close()
      }
    })
})

/** A journal left by a run that ended: `write` records its entries, then its process id is made one no process holds. */
const endedJournal = async (
  s: StandIn,
  signIn: SignIn,
  deleteRoute: string,
  write: (journal: Effect.Effect.Success<ReturnType<typeof openJournal>>) => Promise<void>
): Promise<string> => {
  const state = mkdtempSync(join(tmpdir(), "eval-route-origin-"))
  const scope = Effect.runSync(Scope.make())
  const journal = await Effect.runPromise(Scope.extend(
    openJournal({
      baseUrl: new URL(s.url),
      session: Redacted.make(journalSessionOf(s, signIn)),
      deleteRoute,
      folder: stateFolder({ XDG_STATE_HOME: state }),
      warn: (text) => {
        throw new Error(text)
      }
    }),
    scope
  ))
  await write(journal)
  await Effect.runPromise(Scope.close(scope, Exit.void))
  const entry = readdirSync(state, { recursive: true, withFileTypes: true }).find((e) => e.name.endsWith(".jsonl"))!
  const file = join(entry.parentPath, entry.name)
  writeFileSync(file, readFileSync(file, "utf8").replace(/"pid":\d+/, "\"pid\":2147483646"))
  return state
}

const spelledSearch = (at: number) =>
  withProtocolStandIn("langgraph", {}, async (s) => {
    const other = await recordingOrigin()
    try {
      const signIn = signInOf("langgraph")
      const host = new URL(other.origin).host
      // Threads a killed run was opening, one per spelling of the route that would find them.
      const state = await endedJournal(s, signIn, "/threads/{conversationId}", async (journal) => {
        for (const [i, spelling] of spellings.entries()) {
          await Effect.runPromise(journal.opening({
            caseId: `case-${i}`,
            protocol: "langgraph",
            searchRoute: spelling.path(host),
            deleteRoute: "/threads/{conversationId}"
          }))
        }
      })
      const run = await evalCliAsync(["cleanup", "--base-url", s.url], {
        env: { XDG_STATE_HOME: state, ...sessionEnv(s, signIn) }
      })
      expect(run.code).toBe(1)
      expect(run.stderr).not.toMatch(stackFrame)
      // Each is named as the journal gives it, never as a URL at the host it would have reached.
      const lines = run.stdout.split("\n").filter((line) => line.startsWith("not searched"))
      const refused = spellings.filter((spelling) =>
        lines.includes(
          `not searched  POST ${JSON.stringify(spelling.path(host))} for the 1 thread process 2147483646 was ` +
            `opening: thread: refused the path ${JSON.stringify(spelling.path(host))}: it ${spelling.why}; no ` +
            "request is made; they may remain"
        )
      )
      expect(refused.map((r) => r.name)).toEqual(spellings.map((r) => r.name))
      expect(lines).toHaveLength(spellings.length)
      const atApp = Object.values(s.stats().requests).reduce((n, k) => n + k, 0)
      const secret = secretOf(s)
      const sessionLeaks = [run.stdout, run.stderr].join("\n").split(secret).length - 1 +
        other.seen.filter((headers) => JSON.stringify(headers).includes(secret)).length
      expect([atApp, other.seen.length, sessionLeaks]).toEqual([0, 0, 0])
      routeRows.push({
        order: at,
        protocol: "langgraph",
        command: "cleanup search",
        spelling: `each of the ${spellings.length}`,
        routes: spellings.length,
        refused: refused.length,
        code: run.code,
        atApp,
        elsewhere: other.seen.length,
        sessionLeaks
      })
    } finally {
      await other.close()
    }
  })

const renderRouteTable = (all: ReadonlyArray<RouteRow>): string => {
  const sorted = [...all].sort((a, b) => a.order - b.order)
  const sum = (f: (r: RouteRow) => number) => sorted.reduce((n, r) => n + f(r), 0)
  const line = (cells: ReadonlyArray<string | number | null>) => `| ${cells.join(" | ")} |`
  const columns = [
    "protocol",
    "command",
    "spelling",
    "routes spelled",
    "refused (JSON path or case named)",
    "exit",
    "requests at the app",
    "requests at the other origin",
    "session leaks"
  ]
  return [
    "### Catalog routes that would leave the app",
    "",
    line(columns),
    line(columns.map(() => "---")).replace(/ /g, ""),
    ...sorted.map((r) =>
      line([
        r.protocol,
        r.command,
        r.command === "run" ? `\`${r.spelling}\`` : r.spelling,
        r.routes,
        r.refused,
        r.code,
        r.atApp,
        r.elsewhere,
        r.sessionLeaks
      ])
    ),
    "",
    `Totals: ${sorted.length} runs, ${sum((r) => r.routes)} routes spelled, ${sum((r) => r.refused)} refused, ` +
    `${sum((r) => r.atApp)} requests at the app, ${sum((r) => r.elsewhere)} at the other origin, ` +
    `${sum((r) => r.sessionLeaks)} session leaks.`,
    ""
  ].join("\n")
}

/** A row of the threads-being-opened table: one run quit while its thread creations were unanswered, then `cleanup`. */
interface OpeningRow {
  readonly order: number
  readonly stop: string
  readonly inFlight: number
  readonly created: number
  readonly found: number
  readonly deleted: number
  readonly left: number
  readonly kept: number
  readonly code: number | null
}

/** A row of the https table: a run with an `https://` base URL against the http stand-in, then `cleanup`. */
interface HttpsRow {
  readonly protocol: ProtocolName
  readonly code: number | null
  readonly journalled: number
  readonly cleanupCode: number | null
  readonly nothingToDo: boolean
}

const openingRows: Array<OpeningRow> = []
const httpsRows: Array<HttpsRow> = []

/** How a run is stopped while its thread creations are held: kill -9, or Ctrl-C twice (the second within the first's grace). */
const stops: ReadonlyArray<{ readonly name: string; readonly stop: (cli: CliProcess) => Promise<number | null> }> = [
  {
    name: "kill -9",
    stop: async (cli) => {
      cli.signal("SIGKILL")
      return (await cli.done).code
    }
  },
  {
    name: "a second Ctrl-C",
    stop: async (cli) => {
      cli.signal("SIGINT")
      await cli.whenStderr("cleaning up")
      cli.signal("SIGINT")
      return (await cli.done).code
    }
  }
]

describe.runIf(enabled)("threads being opened when the run quits, and https:// against http", () => {
  afterAll(() => {
    const report = process.env["RELIABILITY_REPORT"]
    if (report !== undefined && (openingRows.length > 0 || httpsRows.length > 0)) {
      mkdirSync(report, { recursive: true })
      writeFileSync(join(report, "lost-threads.md"), renderOpeningTables(openingRows, httpsRows))
    }
  })

  let order = 0
  describe.concurrent("langgraph", () => {
    for (const inFlight of [8, 22]) {
      for (const stop of stops) {
        const at = order++
        it(
          `langgraph: ${inFlight} thread creations unanswered, ${stop.name}, then cleanup deletes each`,
          () => slot(() => quitWhileOpening(stop, inFlight, at)),
          60_000
        )
      }
    }
  })

  describe.concurrent("https", () => {
    for (const protocol of allProtocols) {
      it(
        `${protocol}: an https:// base URL against http journals nothing; cleanup has nothing to do`,
        () => slot(() => httpsAgainstHttp(protocol)),
        60_000
      )
    }
  })

  const quitWhileOpening = (
    stop: { readonly name: string; readonly stop: (cli: CliProcess) => Promise<number | null> },
    inFlight: number,
    at: number
  ) =>
    // Room for every thread being opened and the account's own, past the stand-in's default cap of 16.
    withProtocolStandIn("langgraph", { maxConversations: 64 }, async (s, p) => {
      const state = scratch()
      const { cli, env, proxy } = await creatingThreads(s, p, state, inFlight)
      try {
        const code = await stop.stop(cli)
        expect(code).toBe(stop.name === "kill -9" ? null : 130)
        const lost = s.conversations().map((c) => c.id).sort()
        const mine = await usersOwnThread(s, env)
        proxy.setHold(() => false)
        const cleanup = await evalCliAsync(["cleanup", "--base-url", proxy.url], { env })
        expect([cleanup.code, cleanup.stderr]).toEqual([0, ""])
        const found = [
          ...cleanup.stdout.matchAll(/^searched POST \S+ for the \d+ threads? process \d+ was opening: found (\d+)$/gm)
        ]
          .reduce((n, m) => n + Number(m[1]), 0)
        const deleted = [...cleanup.stdout.matchAll(/^deleted +(\S+) +\S+ \(found by search/gm)].map((m) => m[1]!)
          .sort()
        const remaining = s.conversations().map((c) => c.id)
        const left = remaining.filter((id) => id !== mine).length
        const kept = remaining.filter((id) => id === mine).length
        expect(lost).toHaveLength(inFlight)
        expect({ found, deleted, left, kept }).toEqual({ found: inFlight, deleted: lost, left: 0, kept: 1 })
        expect(journalText(state)).toBe("")
        openingRows.push({
          order: at,
          stop: stop.name,
          inFlight,
          created: lost.length,
          found,
          deleted: deleted.length,
          left,
          kept,
          code: cleanup.code
        })
      } finally {
        await proxy.close()
      }
    })

  const httpsAgainstHttp = (protocol: ProtocolName) =>
    withProtocolStandIn(protocol, {}, async (s, p) => {
      const state = scratch()
      const env = { ...sessionEnv(s, signInOf(protocol)), XDG_STATE_HOME: state }
      const url = s.url.replace(/^http:/, "https:")
      const run = await evalCliAsync(["run", "--base-url", url, ...surfacesArgs(p), "--concurrency", "8"], { env })
      expect(run.code).toBe(2)
      expect(run.notes).toMatch(/the app speaks http, not https\?$/m)
      expect(run.notes).not.toMatch(stackFrame)
      const journalled = journalText(state).split("\n").filter((line) => line !== "").length
      const cleanup = await evalCliAsync(["cleanup", "--base-url", url], { env })
      const nothingToDo = cleanup.stdout.includes("nothing to clean up")
      expect([journalled, cleanup.code, cleanup.stderr, nothingToDo]).toEqual([0, 0, "", true])
      expect(s.stats().created).toBe(0)
      httpsRows.push({ protocol, code: run.code, journalled, cleanupCode: cleanup.code, nothingToDo })
    })
})

const renderOpeningTables = (openings: ReadonlyArray<OpeningRow>, https: ReadonlyArray<HttpsRow>): string => {
  const sorted = [...openings].sort((a, b) => a.order - b.order)
  const byProtocol = [...https].sort((a, b) => allProtocols.indexOf(a.protocol) - allProtocols.indexOf(b.protocol))
  const sum = (f: (r: OpeningRow) => number) => sorted.reduce((n, r) => n + f(r), 0)
  const line = (cells: ReadonlyArray<string | number | null>) => `| ${cells.join(" | ")} |`
  const rule = (columns: ReadonlyArray<string>) => line(columns.map(() => "---")).replace(/ /g, "")
  const openingColumns = [
    "stop",
    "creations unanswered",
    "threads created at the app",
    "found by search",
    "deleted",
    "left",
    "another run's thread kept",
    "cleanup exit"
  ]
  const httpsColumns = ["protocol", "run exit", "journal lines", "cleanup exit", "cleanup says nothing to clean up"]
  return [
    "### Threads being opened when the run quits (LangGraph)",
    "",
    line(openingColumns),
    rule(openingColumns),
    ...sorted.map((r) => line([r.stop, r.inFlight, r.created, r.found, r.deleted, r.left, r.kept, r.code])),
    "",
    `Totals: ${sorted.length} runs, ${sum((r) => r.created)} threads created, ${sum((r) => r.found)} found by ` +
    `search, ${sum((r) => r.deleted)} deleted, ${sum((r) => r.left)} left, ${sum((r) => r.kept)} of ` +
    `${sorted.length} other runs' threads kept.`,
    "",
    "### An https:// base URL against an app that speaks http",
    "",
    line(httpsColumns),
    rule(httpsColumns),
    ...byProtocol.map((r) => line([r.protocol, r.code, r.journalled, r.cleanupCode, r.nothingToDo ? "yes" : "no"])),
    ""
  ].join("\n")
}
