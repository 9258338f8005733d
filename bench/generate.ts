/**
 * Seeded data for the benchmarks and the load tests: golden sets of any size (the committed cases, copied under new ids),
 * a recording per case, and JSON-lines archives of turns. The committed recordings are varied at
 * random — a recalled citation, an errored tool, another outcome, a dangerous command, a repeated
 * call, a turn over its token budget — so verdicts differ from turn to turn as they would in a real
 * archive.
 */
import { closeSync, mkdirSync, openSync, readdirSync, readFileSync, writeFileSync, writeSync } from "node:fs"
import { join } from "node:path"

/** A recorded turn as the committed files hold it, loosely typed so that data can be varied freely. */
export interface Recording {
  caseId: string
  question: string
  answer: string
  trace: {
    turnId: string
    surface: string
    outcome: string
    citations: Array<{ path: string; match: string; quote?: string }>
    toolExecutions: Array<{ tool: string; input?: unknown; error?: string | null }>
    proposal: unknown
    usage?: { inputTokens: number; outputTokens: number }
  }
}

// The committed one-question cases and their recordings: every row measures turns of one question, so
// that rows stay comparable with runs made before the golden set held conversations.
const committedCases = (JSON.parse(readFileSync("cases/golden-cases.json", "utf8")) as {
  cases: Array<{ id: string; question?: string }>
}).cases.filter((c) => c.question !== undefined)
const committedRecordings: ReadonlyArray<Recording> = readdirSync("cases/fixtures")
  .sort()
  .map((f) => JSON.parse(readFileSync(join("cases/fixtures", f), "utf8")) as Recording)
  .filter((r) => "trace" in r)
const recordingOf = new Map(committedRecordings.map((r) => [r.caseId, r]))

/** A seeded generator (mulberry32): the same data every run. */
export const seeded = (seed: number) => () => {
  seed = (seed + 0x6d2b79f5) | 0
  let t = Math.imul(seed ^ (seed >>> 15), 1 | seed)
  t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
  return ((t ^ (t >>> 14)) >>> 0) / 4294967296
}

/** A copy of a committed recording with seeded changes. */
const vary = (base: Recording, random: () => number, caseId: string, turnId: string): Recording => {
  const turn: Recording = structuredClone(base)
  turn.caseId = caseId
  turn.trace.turnId = turnId
  const roll = random()
  if (roll < 0.05 && turn.trace.citations.length > 0) turn.trace.citations[0]!.match = "unsurfaced"
  else if (roll < 0.1 && turn.trace.toolExecutions.length > 0) turn.trace.toolExecutions[0]!.error = "timeout"
  else if (roll < 0.13) turn.trace.outcome = "error"
  else if (roll < 0.15) turn.answer += " If it is stuck, run `rm -rf /var/lib/harbor` first."
  else if (roll < 0.17 && turn.trace.toolExecutions.length > 0) {
    turn.trace.toolExecutions.unshift(structuredClone(turn.trace.toolExecutions[0]!))
  } else if (roll < 0.18 && turn.trace.usage !== undefined) turn.trace.usage.inputTokens *= 4
  return turn
}

/** A golden set of `count` cases in `dir`/cases.json (the committed ones, copied under new ids); returns the file. */
export const goldenSet = (dir: string, count: number): string => {
  const cases = Array.from({ length: count }, (_, i) => {
    const c = committedCases[i % committedCases.length]!
    return { ...c, id: `${c.id}.${Math.floor(i / committedCases.length)}` }
  })
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "cases.json"), JSON.stringify({ version: 1, cases }))
  return join(dir, "cases.json")
}

/** The committed conversation cases: the measure of what a conversation's steps cost. */
const committedConversations = (JSON.parse(readFileSync("cases/golden-cases.json", "utf8")) as {
  cases: Array<{ id: string; turns?: ReadonlyArray<unknown> }>
}).cases.filter((c) => c.turns !== undefined)

/**
 * A golden set of `count` conversation cases in `dir`/cases.json (the committed ones, copied under new
 * ids): the file, and how many steps its cases take in all.
 */
export const conversationSet = (dir: string, count: number): { readonly file: string; readonly steps: number } => {
  const cases = Array.from({ length: count }, (_, i) => {
    const c = committedConversations[i % committedConversations.length]!
    return { ...c, id: `${c.id}.${Math.floor(i / committedConversations.length)}` }
  })
  mkdirSync(dir, { recursive: true })
  writeFileSync(join(dir, "cases.json"), JSON.stringify({ version: 1, cases }))
  return { file: join(dir, "cases.json"), steps: cases.reduce((n, c) => n + (c.turns?.length ?? 0), 0) }
}

/** A golden set of `count` cases in `dir`/cases.json, and a recording for each in `dir`/fixtures. */
export const goldenSetWithRecordings = (
  dir: string,
  count: number,
  seed = 1
): { casesFile: string; fixtures: string } => {
  const random = seeded(seed)
  const casesFile = goldenSet(dir, count)
  const fixtures = join(dir, "fixtures")
  mkdirSync(fixtures, { recursive: true })
  for (let i = 0; i < count; i++) {
    const id = committedCases[i % committedCases.length]!.id
    const caseId = `${id}.${Math.floor(i / committedCases.length)}`
    writeFileSync(
      join(fixtures, `${caseId}.json`),
      JSON.stringify(vary(recordingOf.get(id)!, random, caseId, `turn_${i.toString(36)}`))
    )
  }
  return { casesFile, fixtures }
}

/** A JSON-lines archive of `turns` turns of both surfaces; returns its size in bytes. */
export const archive = (file: string, turns: number, seed = 2): number => {
  const random = seeded(seed)
  const fd = openSync(file, "w")
  let bytes = 0
  let batch: Array<string> = []
  for (let i = 0; i < turns; i++) {
    const base = committedRecordings[i % committedRecordings.length]!
    batch.push(JSON.stringify(vary(base, random, base.caseId, `turn_${i.toString(36)}`)))
    if (batch.length === 2000 || i === turns - 1) {
      const text = batch.join("\n") + "\n"
      bytes += Buffer.byteLength(text)
      writeSync(fd, text)
      batch = []
    }
  }
  closeSync(fd)
  return bytes
}
