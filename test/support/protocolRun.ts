/**
 * Runs the protocols' golden set (test/fixtures/protocols) live through the real CLI against an app
 * speaking one protocol, and reads what every case showed: its verdict and each expectation's fact.
 */
import { Schema } from "effect"
import { mkdtempSync, readFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { RunResult } from "../../src/Schema/Result.js"
import type { ProtocolName } from "../../src/Schema/Surface.js"
import { type CliRun, evalCliAsync } from "./cli.js"

/** What one case showed, without timings or turn ids (which differ by protocol). */
export interface Shown {
  readonly id: string
  readonly passed: boolean
  readonly error?: string
  readonly expectations: ReadonlyArray<{ readonly kind: string; readonly passed: boolean; readonly fact?: string }>
}

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
  extra: ReadonlyArray<string> = []
): Promise<ProtocolRun> => {
  const dir = mkdtempSync(join(tmpdir(), `eval-${protocol}-`))
  const run = await evalCliAsync([
    "run",
    "--base-url",
    url,
    "--cases",
    "test/fixtures/protocols/golden-cases.json",
    "--surfaces",
    surfacesOf(protocol),
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
