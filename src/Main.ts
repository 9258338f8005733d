#!/usr/bin/env node
/**
 * The `eval` bin: the CLI on Node. SIGINT and SIGTERM interrupt the run, so every case's scope closes
 * (in-flight conversations are deleted) before the process exits with 130 or 143; a second signal
 * quits at once.
 */
import * as NodeContext from "@effect/platform-node/NodeContext"
import { Effect, Exit } from "effect"
import { main } from "./Cli.js"

const signalCodes = { SIGINT: 130, SIGTERM: 143 } as const
type Stop = keyof typeof signalCodes

const fiber = Effect.runFork(main(process.argv).pipe(Effect.provide(NodeContext.layer)))

let stoppedBy: Stop | undefined
const stop = (signal: Stop) => {
  if (stoppedBy !== undefined) process.exit(signalCodes[signal])
  stoppedBy = signal
  process.stderr.write(`\n${signal === "SIGINT" ? "interrupted" : "terminated"}: cleaning up (send it again to quit at once)\n`)
  fiber.unsafeInterruptAsFork(fiber.id())
}
process.on("SIGINT", () => stop("SIGINT"))
process.on("SIGTERM", () => stop("SIGTERM"))

fiber.addObserver((exit) => {
  process.exit(stoppedBy !== undefined ? signalCodes[stoppedBy] : Exit.isSuccess(exit) ? exit.value : 70)
})
