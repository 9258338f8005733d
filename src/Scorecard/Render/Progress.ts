/**
 * The live progress line of a long run on a terminal: cases done of the total, passing so far, time
 * elapsed and an estimate of the time left. Pure; the CLI decides when to draw it.
 */
import { plural } from "../../Words.js"

/** Where a run is. */
export interface Progress {
  readonly done: number
  readonly total: number
  readonly passing: number
  readonly elapsedMs: number
}

/** Time gone or left as the progress line shows it, rounded to the second: `42s`, `3m05s`, `1h02m`. */
export const showElapsed = (ms: number): string => {
  const seconds = Math.max(0, Math.round(ms / 1000))
  if (seconds < 60) return `${seconds}s`
  const minutes = Math.floor(seconds / 60)
  if (minutes < 60) return `${minutes}m${String(seconds % 60).padStart(2, "0")}s`
  return `${Math.floor(minutes / 60)}h${String(minutes % 60).padStart(2, "0")}m`
}

/** The line: `12/40 cases · 11 passing · 8s elapsed · ~19s left` (no estimate before the first case ends). */
export const renderProgress = (p: Progress): string => {
  const left = p.done === 0 ? "estimating" : `~${showElapsed((p.elapsedMs / p.done) * (p.total - p.done))} left`
  return `${p.done}/${plural(p.total, "case")} · ${p.passing} passing · ${showElapsed(p.elapsedMs)} elapsed · ${left}`
}
