/**
 * The typed API: everything another Effect program needs to run a golden set inside itself — the
 * schemas of the contract, the graders and `grade`, the scorecard and ratchet, the Runner with its
 * SurfaceClient service and layers, and the loaders of the committed files.
 */

// ── Schemas: the files of the contract and the errors a user sees ─────────────────────────────────
export * from "./Schema/Baseline.js"
export * from "./Schema/Case.js"
export { decodeJson, decodeValue, jsonPath } from "./Schema/Decode.js"
export * from "./Schema/Errors.js"
export { defaultRoutes, resolveRoutes, type Route } from "./Schema/Protocol.js"
export * from "./Schema/Result.js"
export * from "./Schema/Surface.js"
export * from "./Schema/Trace.js"
export { caseProblems, catalogProblems } from "./Schema/Validate.js"

// ── Graders: pure, one per expectation kind ───────────────────────────────────────────────────────
export {
  grade,
  gradeAll,
  type GradeContext,
  gradeExpectation,
  type Grader,
  graders,
  type Verdict
} from "./Graders/index.js"

// ── Scorecard: pass rate, floor and ratchet (pure), and the baseline file ─────────────────────────
export { defaultBaselineFile, defaultCasesFile, defaultSurfacesFile } from "./ProjectFiles.js"
export { attemptsOf, type Fact, failingFacts, type Flakiness, flakiness, showFact } from "./Scorecard/Attempts.js"
export { belongsTo, casesEntry, casesOfBaseline } from "./Scorecard/BaselineCases.js"
export { encodeBaseline, readBaseline, writeBaseline } from "./Scorecard/BaselineStore.js"
export { caseSetFingerprint } from "./Scorecard/CaseSet.js"
export {
  baselineHeader,
  commentLine,
  floorHistory,
  ratchet,
  type RatchetDecision,
  type RunWords
} from "./Scorecard/Ratchet.js"
export { readResults } from "./Scorecard/ResultsStore.js"
export { floorFor, noFloorYet, resultInconsistencies, showRate, summarize } from "./Scorecard/Scorecard.js"

// ── Golden set: the cases file and the catalog, loaded and checked against each other ─────────────
export { type GoldenSet, loadGoldenSet, selectCases } from "./Runner/GoldenSet.js"

// ── Runner: the run, and the SurfaceClient service with its layers (Fixture, Live, recording, fromTable)
export { type EvidenceRules, type ResolvedEvidence, resolveEvidence } from "./Evidence/Rules.js"
export { HttpLive } from "./Runner/Http.js"
export type { LeftBehind, LeftConversation, LiveConfig } from "./Runner/LiveClient.js"
export { combineAttempts, conversationResult, erroredCase, Runner, type RunOptions } from "./Runner/Runner.js"
export {
  type Conversing,
  fixturePath,
  makeFixture,
  plainClient,
  scopedClient,
  type StepsOf,
  SurfaceClient,
  type SurfaceClientShape
} from "./Runner/SurfaceClient.js"
export { type Auth, cookieAuth } from "./Runner/Transport.js"

// ── Reporters: render a run ────────────────────────────────────────────────────────────────────────
export { type ChangedCase, diffRuns, type OnlyIn, type RunDiff } from "./Scorecard/Diff.js"
export { renderDiffMarkdown } from "./Scorecard/Render/DiffMarkdown.js"
export { renderDiffPretty } from "./Scorecard/Render/DiffText.js"
export { caseLines, type GitHubOptions, renderGitHubAnnotations } from "./Scorecard/Render/GitHub.js"
export { type JUnitOptions, renderJUnit } from "./Scorecard/Render/JUnit.js"
export { escapeMarkdown, type MarkdownOptions, renderMarkdown } from "./Scorecard/Render/Markdown.js"
export { type PrettyOptions, renderPretty } from "./Scorecard/Render/Pretty.js"

// ── OpenTelemetry: grade turns read from OTLP JSON traces ─────────────────────────────────────────
export { type Links, linkTurns, type Unlinked } from "./Otel/Link.js"
export { describeUnlinked, loadOtelLinks, readOtelTurns } from "./Otel/Source.js"
export { OtelClient } from "./Runner/OtelClient.js"
export { type OtelRules, type ResolvedOtelRules, resolveOtelRules } from "./Schema/Otel.js"
