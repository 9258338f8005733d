/**
 * What the committed golden set is and does, derived from the committed files (cases/golden-cases.json,
 * cases/surfaces.json, cases/fixtures, baseline.json), so that adding a case is the golden set, its
 * recording and `turn-eval ratchet`, with no test to edit. The recorded turns are graded here with the
 * product's own graders, as an offline run grades them.
 */
import { Effect, Layer, Schema } from "effect"
import { readFileSync } from "node:fs"
import { Runner } from "../../src/Runner/Runner.js"
import { SurfaceClient } from "../../src/Runner/SurfaceClient.js"
import { Baseline } from "../../src/Schema/Baseline.js"
import { CasesFile, stepsOf } from "../../src/Schema/Case.js"
import { Catalog } from "../../src/Schema/Surface.js"
import { Recording, type Turn } from "../../src/Schema/Trace.js"
import { floorFor, showRate } from "../../src/Scorecard/Scorecard.js"

const readJson = (file: string): unknown => JSON.parse(readFileSync(file, "utf8"))

/** The committed golden set's cases, in its order. */
export const goldenCases = Schema.decodeUnknownSync(CasesFile)(readJson("cases/golden-cases.json")).cases

const catalog = Schema.decodeUnknownSync(Catalog)(readJson("cases/surfaces.json"))

/** How many cases the committed golden set holds. */
export const caseCount = goldenCases.length

/** The surfaces the golden set's cases ask, in the order they first appear. */
export const surfacesInUse: ReadonlyArray<string> = [...new Set(goldenCases.map((c) => c.surface))]

/** Each case's committed recording (cases/fixtures/<id>.json): a turn, or a conversation's turns in order. */
const recordings = new Map(goldenCases.map((c) => {
  const recorded = Schema.decodeUnknownSync(Recording)(readJson(`cases/fixtures/${c.id}.json`))
  const turns = "turns" in recorded ? recorded.turns : [recorded]
  const asTurns = turns.map((t): Turn => ({ answer: t.answer, trace: t.trace }))
  return [c.id, "turns" in recorded ? asTurns : asTurns[0]!] as const
}))

/** Each case graded over its committed recording, by the runner, as an offline run grades it. */
export const gradedOnFixtures = Effect.runSync(
  Effect.flatMap(Runner, (runner) => runner.run(catalog, goldenCases)).pipe(
    Effect.provide(Runner.Default.pipe(Layer.provide(SurfaceClient.fromTable(recordings))))
  )
)

/** The cases that fail on the recorded turns, in the golden set's order. */
export const failingOnFixtures: ReadonlyArray<string> = gradedOnFixtures.filter((r) => !r.passed).map((r) => r.id)

/** How many cases pass on the recorded turns. */
export const passingOnFixtures = caseCount - failingOnFixtures.length

/** How many cases of a surface the golden set holds, and how many of them fail on the recorded turns. */
export const onSurface = (surface: string) => ({
  cases: goldenCases.filter((c) => c.surface === surface).length,
  failing: gradedOnFixtures.filter((r) => r.surface === surface && !r.passed).length
})

/** The cases a `--filter` of this id or tag selects. */
export const selectedBy = (filter: string) =>
  goldenCases.filter((c) => c.id === filter || (c.tags ?? []).includes(filter))

/** The floor committed in baseline.json. */
export const committedFloor = Schema.decodeUnknownSync(Baseline)(readJson("baseline.json")).floor

/** A rate of `passed` out of `total` cases as the scorecard prints it: `0.8181`. */
export const rateOf = (passed: number, total: number = caseCount): string => showRate(total === 0 ? 0 : passed / total)

/** The floor a full run of `passed` out of `total` cases sets, as a number: `0.8181`. */
export const floorOf = (passed: number, total: number = caseCount): number => floorFor(passed, total)

/** The scorecard's tally of `passed` out of `total` cases: `18/22 passed · pass rate 0.8181`. */
export const tally = (passed: number, total: number = caseCount): string =>
  `${passed}/${total} passed · pass rate ${rateOf(passed, total)}`

/** How many cases pass on the recorded turns, out of how many: `18/22`. */
export const offlineScore = `${passingOnFixtures}/${caseCount}`

/** The tally of a run over the recorded turns. */
export const offlineTally = tally(passingOnFixtures)

/** The tally of a run against the stand-in, which answers every case of the committed golden set. */
export const standInTally = tally(caseCount)

/** The scorecard's last line for a run over the recorded turns, held to the committed floor. */
export const offlineHolds = `${offlineTally} · floor ${showRate(committedFloor)} · holds the floor`

/** The scorecard's last line for a run against the stand-in, held to the committed floor. */
export const standInHolds = `${standInTally} · floor ${showRate(committedFloor)} · holds the floor`

/** What `validate` says of the committed golden set, catalog and baseline. */
export const validated = `cases/golden-cases.json: ${caseCount} cases over ${surfacesInUse.length} surfaces (${
  surfacesInUse.join(", ")
}), valid against cases/surfaces.json\nbaseline.json: floor ${showRate(committedFloor)}\n`

/** How many turns a run of the golden set obtains: a case's one, or a conversation's one per step. */
export const turnCount = goldenCases.reduce((n, c) => n + stepsOf(c).length, 0)

/**
 * What the stand-in says it served for one live run of the golden set, every conversation deleted: an
 * ask (a question or a decision) and a read of each route per turn, a conversation per case.
 */
export const standInServed = `${turnCount} asks (questions and decisions), ${turnCount} conversation reads, ` +
  `${turnCount} trace reads, ${caseCount} conversations opened, ${caseCount} deleted, 0 left`
