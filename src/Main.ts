#!/usr/bin/env node
/**
 * The `turn-eval` bin: the CLI on Node. SIGINT, SIGTERM and SIGHUP (a closed terminal or SSH session)
 * interrupt the run, so every case's scope closes (in-flight conversations are deleted) before the
 * process exits with 130, 143 or 129; a second signal quits at once, saying what it leaves for
 * `cleanup`.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Exit, type Fiber } from "effect"
import { programName } from "./ProgramName.js"
import { openConversations } from "./Runner/Journal.js"

const signalCodes = { SIGINT: 130, SIGTERM: 143, SIGHUP: 129 } as const
type Stop = keyof typeof signalCodes

// A terminal that went away (SIGHUP) makes writes to it fail: cleanup must go on regardless.
process.stdout.on("error", () => undefined)
process.stderr.on("error", () => undefined)

// The command runs once its module has loaded; a signal before that finds nothing started.
let fiber: Fiber.RuntimeFiber<number, unknown> | undefined

const words: Record<Stop, string> = { SIGINT: "interrupted", SIGTERM: "terminated", SIGHUP: "hung up" }

let stoppedBy: Stop | undefined
const stop = (signal: Stop) => {
  if (stoppedBy !== undefined) {
    const open = openConversations()
    if (open.length > 0) {
      const lines = open.map(({ baseUrl, count }) =>
        `quitting at once: ${count} conversation${count === 1 ? "" : "s"} still open at ${baseUrl} ${
          count === 1 ? "is" : "are"
        } kept in the journal; \`${programName} cleanup --base-url ${baseUrl}\` deletes them`
      )
      process.stderr.write(`${lines.join("\n")}\n`)
    }
    process.exit(signalCodes[signal])
  }
  stoppedBy = signal
  if (fiber === undefined) {
    process.stderr.write(`\n${words[signal]}\n`)
    process.exit(signalCodes[signal])
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
fiber = Effect.runFork(main(process.argv).pipe(Effect.provide(NodeContext.layer)))
fiber.addObserver((exit) => {
  process.exit(stoppedBy !== undefined ? signalCodes[stoppedBy] : Exit.isSuccess(exit) ? exit.value : 70)
})
