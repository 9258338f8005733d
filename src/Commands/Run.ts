/**
 * `eval run`: obtain every selected case's turn — from recorded turns, a live app or OpenTelemetry
 * traces — grade it, print the scorecard, write the results, hold and ratchet the floor. What a run
 * is lives in the application (`Application/Run.ts`); the command hands it its arguments.
 */
import { runGoldenSet } from "../Application/Run.js"
import type { RunArgs } from "./Options.js"

/** `eval run`. */
export const runHandler = (args: RunArgs) => runGoldenSet(args)
