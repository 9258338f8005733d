#!/usr/bin/env node
/**
 * The `turn-eval` bin: the CLI on Node. SIGINT, SIGTERM and SIGHUP (a closed terminal or SSH session)
 * interrupt the run, so every case's scope closes (in-flight conversations are deleted) before the
 * process exits with 130, 143 or 129; a second signal quits at once, saying what it leaves for
 * `cleanup`. Whatever the end, the process exits only once standard output and standard error have
 * passed on all that was written to them.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Exit, type Fiber } from "effect"
import { flushHeldOutput } from "./HeldOutput.js"
import { programName } from "./ProgramName.js"
import { openConversations } from "./Runner/Journal.js"
import { plural, them, they } from "./Words.js"

const signalCodes = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const
type Stop = keyof typeof signalCodes

// A terminal that went away (SIGHUP) makes writes to it fail: cleanup must go on regardless.
process.stdout.on("error", () => undefined)
process.stderr.on("error", () => undefined)

const quitFlushMs = 2_000
// Whether the process is ending (a signal then quits at once), and whether within `quitFlushMs`.
let ending = false
let quitting = false

/**
 * Ends the process with `code` once standard output and standard error have passed on all that was
 * written to them. A pipe takes writes asynchronously, and `process.exit` drops what its reader has
 * not yet taken: a slow reader (`| tee log`, a CI log collector) would lose the scorecard's end. A
 * normal end waits as long as the reader takes, as any program writing to a pipe does; a quit at once
 * waits at most `quitFlushMs`, so a reader that never reads cannot hold it, and a further signal while
 * it waits exits there and then.
 */
const exitFlushed = (code: number, bounded = false) => {
  process.exitCode = code
  if (quitting) process.exit()
  ending = true
  quitting = bounded
  // A write's callback runs once everything before it has been handed on, or the stream has failed.
  const flushed = (stream: NodeJS.WriteStream) =>
    new Promise<void>((resolve) => {
      if (stream.destroyed || stream.writableLength === 0) return resolve()
      stream.once("close", resolve)
      stream.write("", () => resolve())
    })
  // The code is the last one set: a quit at once while a command's end drains exits with the signal's.
  void Promise.all([flushed(process.stdout), flushed(process.stderr)]).then(() => process.exit())
  if (bounded) setTimeout(() => process.exit(), quitFlushMs).unref()
}
// The command runs once its module has loaded; a signal before that finds nothing started.
let fiber: Fiber.RuntimeFiber<number, unknown> | undefined

const words: Record<Stop, string> = { SIGINT: "interrupted", SIGTERM: "terminated", SIGHUP: "hung up" }

let stoppedBy: Stop | undefined
const stop = (signal: Stop) => {
  // The case lines the run has produced come before the stop's own.
  flushHeldOutput()
  if (stoppedBy !== undefined || ending) {
    const open = openConversations()
    if (open.length > 0) {
      const lines = open.map(({ baseUrl, count, opening }) => {
        const cleanup = `\`${programName} cleanup --base-url ${baseUrl}\``
        const kept = `${plural(count, "conversation")} still open at ${baseUrl} ${
          count === 1 ? "is" : "are"
        } kept in the journal`
        if (opening === 0) return `quitting at once: ${kept}; ${cleanup} deletes them`
        // Threads being created: the app may hold each, and the journal holds the intent that finds it.
        const maybe = `${they(opening)} may be left, and the journal can find ${them(opening)}`
        return count === 0
          ? `quitting at once: ${
            plural(opening, "conversation")
          } being opened at ${baseUrl}: ${maybe}; ${cleanup} finds and deletes them`
          : `quitting at once: ${kept}, and ${opening} more being opened: ${maybe}; ${cleanup} finds and deletes them`
      })
      process.stderr.write(`${lines.join("\n")}\n`)
    }
    return exitFlushed(signalCodes[signal], true)
  }
  stoppedBy = signal
  if (fiber === undefined) {
    process.stderr.write(`\n${words[signal]}\n`)
    return exitFlushed(signalCodes[signal])
  }
  process.stderr.write(`\n${words[signal]}: cleaning up (send it again to quit at once)\n`)
  fiber.unsafeInterruptAsFork(fiber.id())
}
process.on("SIGINT", () => stop("SIGINT"))
process.on("SIGTERM", () => stop("SIGTERM"))
process.on("SIGHUP", () => stop("SIGHUP"))

// The handlers are in place before the command tree loads (most of the bin's start-up), so a signal
// during start-up ends the process with its code rather than killing it before any handler runs.
const { main } = await import("./Cli.js")
// A signal during start-up is ending the process (its output may still be draining): nothing starts.
if (!ending) {
  fiber = Effect.runFork(main(process.argv).pipe(Effect.provide(NodeContext.layer)))
  fiber.addObserver((exit) => {
    exitFlushed(stoppedBy !== undefined ? signalCodes[stoppedBy] : Exit.isSuccess(exit) ? exit.value : 70)
  })
}
