/**
 * The typed API: everything another Effect program needs to run a golden set inside itself — the
 * schemas of the contract, the graders and `grade`, the scorecard and ratchet, the Runner with its
 * SurfaceClient service and layers, and the loaders of the committed files.
 */
export * from "./Schema/Baseline.js"
export * from "./Schema/Case.js"
export { decodeJson, decodeValue, jsonPath } from "./Schema/Decode.js"
export * from "./Schema/Errors.js"
export * from "./Schema/Result.js"
export * from "./Schema/Surface.js"
export * from "./Schema/Trace.js"
export { catalogProblems, caseProblems } from "./Schema/Validate.js"

export { grade, gradeExpectation, type Grader, graders, type Verdict } from "./Graders/index.js"

export { defaultBaselineFile, encodeBaseline, readBaseline, writeBaseline } from "./Scorecard/BaselineStore.js"
export { caseSetFingerprint } from "./Scorecard/CaseSet.js"
export { baselineHeader, ratchet, type RatchetDecision } from "./Scorecard/Ratchet.js"
export { type PrettyOptions, renderPretty } from "./Scorecard/Render/Pretty.js"
export { floorFor, noFloorYet, resultInconsistencies, showRate, summarize } from "./Scorecard/Scorecard.js"

export {
  defaultCasesFile,
  defaultSurfacesFile,
  type GoldenSet,
  loadGoldenSet,
  selectCases
} from "./Runner/GoldenSet.js"
export { erroredCase, type RunOptions, Runner } from "./Runner/Runner.js"
export { fixturePath, plainClient, scopedClient, SurfaceClient, type SurfaceClientShape } from "./Runner/SurfaceClient.js"
