/**
 * A child process for the crash test: rewrites a baseline over and over, alternating two versions,
 * until it is killed. Each version is large, so a kill often lands in the middle of a write. It runs
 * the built package (`dist/`), so it starts as fast as the bin does.
 */
import { NodeContext } from "@effect/platform-node"
import { Effect } from "effect"
import { writeBaseline } from "../../dist/index.js"

const [file] = process.argv.slice(2)
const padding = "x".repeat(2_000_000)
const versions = [
  { floor: 0.25, _comment: ["version a", padding] },
  { floor: 0.75, _comment: ["version b", padding] }
]

const loop = Effect.gen(function*() {
  for (let i = 0;; i++) {
    yield* writeBaseline(file, versions[i % 2])
    if (i === 0) process.stdout.write("writing\n")
  }
})

Effect.runPromise(loop.pipe(Effect.provide(NodeContext.layer)))
