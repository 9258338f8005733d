/** What a run shows while it goes: a line per case as it finishes, or a progress line on a terminal. */
import { Console, Effect } from "effect"
import { holdingOutput } from "../HeldOutput.js"
import type { Case } from "../Schema/Case.js"
import type { CaseResult } from "../Schema/Result.js"
import { caseLine, showCaseDuration, surfaceWidth } from "../Scorecard/Render/Pretty.js"
import { renderProgress } from "../Scorecard/Render/Progress.js"
import { useColor } from "../Terminal.js"

/**
 * How a run shows its progress. On a terminal's stderr, a long run redraws one progress line; off a
 * terminal (a CI log, a pipe) each case's scorecard line is printed to stderr as it finishes, in
 * completion order, with its wall time, so a log never falls silent while cases run. `silent` shows
 * neither. The lines go to the Console service's standard error, so that whatever runs the run (a test)
 * decides where they go.
 */
export const caseProgress = (cases: ReadonlyArray<Case>, silent: boolean) =>
  Console.consoleWith((console) =>
    Effect.sync(() => {
      const terminal = process.stderr.isTTY === true && (process.env["CI"] ?? "") === ""
      const total = cases.length
      const width = surfaceWidth(cases.map((c) => c.surface))
      const color = useColor()
      const started = Date.now()
      let done = 0
      let passing = 0
      let drawn = false
      let last = 0
      // Streamed lines are written a few at a time (within 50 ms of their case): one write per case
      // would cost an offline run of thousands of cases a tenth of its time. A signal's line flushes
      // them first.
      let lines: Array<string> = []
      let timer: ReturnType<typeof setTimeout> | undefined
      const flush = () => {
        if (timer !== undefined) clearTimeout(timer)
        timer = undefined
        // The console ends what it writes with a newline: the last line's own is left to it.
        if (lines.length > 0) console.unsafe.error(lines.join("").slice(0, -1))
        lines = []
      }
      const held = holdingOutput(flush)
      return {
        onCaseDone: (result: CaseResult) =>
          Effect.sync(() => {
            done++
            if (result.passed) passing++
            if (silent) return
            if (!terminal) {
              lines.push(`${caseLine(result, width, color)}  ${showCaseDuration(result.durationMs ?? 0)}\n`)
              if (lines.length >= 256) flush()
              else timer ??= setTimeout(flush, 50)
              return
            }
            const now = Date.now()
            // Only a long run gets a line, redrawn at most ten times a second.
            if (total <= 1 || now - started < 1_000 || (now - last < 100 && done < total)) return
            last = now
            drawn = true
            process.stderr.write(`\r\u001b[2K${renderProgress({ done, total, passing, elapsedMs: now - started })}`)
          }),
        clear: Effect.sync(() => {
          flush()
          held.release()
          if (drawn) process.stderr.write("\r\u001b[2K")
        }),
        elapsedMs: Effect.sync(() => Date.now() - started)
      }
    })
  )
