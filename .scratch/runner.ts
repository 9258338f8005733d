import { Effect, Layer, Schema } from "effect"
import { readFileSync } from "node:fs"
import { Runner } from "../src/Runner/Runner.js"
import { SurfaceClient } from "../src/Runner/SurfaceClient.js"
import { CasesFile } from "../src/Schema/Case.js"
import { Catalog } from "../src/Schema/Surface.js"
import { grade } from "../src/Graders/index.js"
const file = Schema.decodeUnknownSync(CasesFile)(JSON.parse(readFileSync("/tmp/cases10000.json", "utf8")))
const catalog = Schema.decodeUnknownSync(Catalog)(JSON.parse(readFileSync("cases/surfaces.json", "utf8")))
const turns = new Map(file.cases.map((c) => { const t = JSON.parse(readFileSync(`/tmp/fx10k/${c.id}.json`, "utf8")); return [c.id, { answer: t.answer, trace: t.trace }] }))
const run = (concurrency: number) => Effect.flatMap(Runner, (r) => r.run(catalog, file.cases, { concurrency })).pipe(Effect.provide(Runner.Default.pipe(Layer.provide(SurfaceClient.fromTable(turns)))))
for (const c of [1, 4, 32]) { let best = 1e9; for (let i = 0; i < 6; i++) { const t = performance.now(); await Effect.runPromise(run(c)); best = Math.min(best, performance.now() - t) } console.log("runner conc", c, best.toFixed(0), "ms") }
let t = performance.now(); for (const c of file.cases) grade(c, turns.get(c.id)!, catalog.surfaces[c.surface]!); console.log("pure grading", (performance.now() - t).toFixed(1), "ms")
