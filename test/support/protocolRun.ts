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
  surfaces = surfacesOf(protocol)
): Promise<ProtocolRun> => {
  const dir = mkdtempSync(join(tmpdir(), `eval-${protocol}-`))
  const run = await evalCliAsync([
    "run",
    "--base-url",
    url,
    "--cases",
    "test/fixtures/protocols/golden-cases.json",
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
