#!/usr/bin/env node
/** The `eval` bin: the CLI on Node, with the process's exit code set from the command's outcome. */
import { NodeContext, NodeRuntime } from "@effect/platform-node"
import { Effect } from "effect"
import { main } from "./Cli.js"

const MainLive = NodeContext.layer

main(process.argv).pipe(
  Effect.flatMap((code) => Effect.sync(() => { process.exitCode = code })),
  Effect.provide(MainLive),
  NodeRuntime.runMain({ disableErrorReporting: true })
)
