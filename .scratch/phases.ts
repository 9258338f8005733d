import { NodeContext } from "@effect/platform-node"
import { Effect, Layer } from "effect"
import { readFileSync, readdirSync } from "node:fs"
import { loadGoldenSet } from "../src/Runner/GoldenSet.js"
import { Runner } from "../src/Runner/Runner.js"
import { SurfaceClient } from "../src/Runner/SurfaceClient.js"
import { caseSetFingerprint } from "../src/Scorecard/CaseSet.js"
import { renderPretty } from "../src/Scorecard/Render/Pretty.js"
import { summarize } from "../src/Scorecard/Scorecard.js"
const prog = Effect.gen(function*() {
  for (let round = 0; round < 3; round++) {
    let t = performance.now(); const lap = (n: string) => { const now = performance.now(); console.log(n.padEnd(12), (now - t).toFixed(0), "ms"); t = now }
    const set = yield* loadGoldenSet("/tmp/cases10000.json", "cases/surfaces.json"); lap("load")
    const runner = yield* Runner
    const results = yield* runner.run(set.catalog, set.cases, { concurrency: 1 }); lap("run")
    const fp = caseSetFingerprint(set.cases); lap("fingerprint")
    const r = summarize(results, fp, 0.8); lap("summarize")
    const text = renderPretty(r, { color: false }); lap("render")
    JSON.stringify(r, null, 2); lap("json")
    console.log("--")
  }
  let t = performance.now(); for (const f of readdirSync("/tmp/fx10k")) JSON.parse(readFileSync("/tmp/fx10k/" + f, "utf8")); JSON.parse(readFileSync("/tmp/cases10000.json", "utf8")); console.log("raw", (performance.now() - t).toFixed(0))
}).pipe(Effect.provide(Runner.Default.pipe(Layer.provide(SurfaceClient.Fixture("/tmp/fx10k")))), Effect.provide(NodeContext.layer))
Effect.runPromise(prog)
