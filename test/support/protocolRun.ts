/**
 * Runs the protocols' golden set (test/fixtures/protocols) live through the real CLI against an app
 * speaking one protocol, and reads what every case showed: its verdict and each expectation's fact.
 */
import { Schema } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import type { ProtocolName } from "../../src/Protocols/Registry.js"
import { RunResult } from "../../src/Schema/Result.js"
import { type CliRun, evalCliAsync } from "./cli.js"

/** What one case showed, without timings or turn ids (which differ by protocol). */
export interface Shown {
  readonly id: string
  readonly passed: boolean
  readonly error?: string
  readonly expectations: ReadonlyArray<{ readonly kind: string; readonly passed: boolean; readonly fact?: string }>
}

const pass = (kind: string) => ({ kind, passed: true })

/** What the protocols' golden set shows on every protocol. */
export const expected: ReadonlyArray<Shown> = [
  {
    id: "support.refund-window-cites-kb",
    passed: true,
    expectations: ["calls-tool", "cites", "cites-only-surfaced", "answer-includes", "outcome"].map(pass)
  },
  {
    id: "support.order-lookup-errors",
    passed: false,
    expectations: [
      { kind: "calls-tool", passed: false, fact: "lookup_order errored: order service unavailable" },
      pass("outcome")
    ]
  },
  {
    id: "support.refund-waits-for-approval",
    passed: true,
    expectations: ["calls-tool", "stops-at-approval", "never-calls"].map(pass)
  },
  {
    id: "support.shipping-cites-only-surfaced",
    passed: false,
    expectations: [pass("calls-tool"), pass("cites"), {
      kind: "cites-only-surfaced",
      passed: false,
      fact: "unsurfaced: /kb/delivery"
    }]
  },
  {
    id: "support.greeting-calls-nothing",
    passed: true,
    expectations: ["never-calls", "no-citations", "outcome"].map(pass)
  },
  {
    id: "support.invoice-failure-is-an-error",
    passed: false,
    expectations: [pass("calls-tool"), { kind: "outcome", passed: false, fact: "outcome: error (expected answered)" }]
  }
]

/** The protocols' conversation cases: an approval, a denial and a follow-up, on every protocol alike. */
export const conversationCases = "test/fixtures/protocols/conversation-cases.json"

/** What each step of each conversation case shows on every protocol: its kind and its failing facts. */
export const expectedSteps: ReadonlyArray<{ readonly id: string; readonly steps: ReadonlyArray<string> }> = [
  { id: "support.refund-after-approval", steps: ["ask", "approve"] },
  { id: "support.refund-denied", steps: ["ask", "deny"] },
  { id: "support.follow-up-on-shipping", steps: ["ask", "ask: cites-only-surfaced unsurfaced: /kb/delivery"] }
]

/** What a run's results show of each step: its kind, then any failing fact or error. */
export const stepsShown = (results: RunResult | undefined) =>
  (results?.cases ?? []).map((c) => ({
    id: c.id,
    steps: (c.turns ?? []).map((t) =>
      [
        t.kind,
        ...t.expectations.filter((e) => !e.passed).map((e) => `${e.kind} ${e.fact ?? ""}`),
        ...(t.error === undefined ? [] : [`error ${t.error}`]),
        ...(t.skipped === undefined ? [] : [`skipped ${t.skipped}`])
      ].join(": ")
    )
  }))

/** A live run of the protocols' golden set and what it showed. */
export interface ProtocolRun {
  readonly run: CliRun
  readonly results: RunResult | undefined
  readonly shown: ReadonlyArray<Shown>
  readonly dir: string
}

/** The catalog of the protocols' golden set for one protocol. */
export const surfacesOf = (protocol: ProtocolName): string => `test/fixtures/protocols/surfaces-${protocol}.json`

/** Runs the protocols' golden set live against `url`, in `protocol`, with `env` (the session) and more arguments. */
export const runProtocol = async (
  protocol: ProtocolName,
  url: string,
  env: NodeJS.ProcessEnv,
  extra: ReadonlyArray<string> = [],
  surfaces = surfacesOf(protocol),
  cases = "test/fixtures/protocols/golden-cases.json"
): Promise<ProtocolRun> => {
  const dir = mkdtempSync(join(tmpdir(), `eval-${protocol}-`))
  const run = await evalCliAsync([
    "run",
    "--base-url",
    url,
    "--cases",
    cases,
    "--surfaces",
    surfaces,
    "--baseline",
    join(dir, "baseline.json"),
    "--json",
    join(dir, "results.json"),
    ...extra
  ], { env: { XDG_STATE_HOME: join(dir, "state"), ...env } })
  let results: RunResult | undefined
  try {
    results = Schema.decodeUnknownSync(RunResult)(JSON.parse(readFileSync(join(dir, "results.json"), "utf8")))
  } catch {
    results = undefined
  }
  const shown = (results?.cases ?? []).map((c) => ({
    id: c.id,
    passed: c.passed,
    ...(c.error === undefined ? {} : { error: c.error }),
    expectations: c.expectations.map((e) => ({
      kind: e.kind,
      passed: e.passed,
      ...(e.fact === undefined ? {} : { fact: e.fact })
    }))
  }))
  return { run, results, shown, dir }
}
