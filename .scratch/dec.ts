import { Schema } from "effect"
import { readFileSync } from "node:fs"
import { CasesFile } from "../src/Schema/Case.js"
const value = JSON.parse(readFileSync("/tmp/cases10000.json", "utf8"))
for (const [name, opts] of [["all+error", { errors: "all", onExcessProperty: "error" }], ["first+error", { errors: "first", onExcessProperty: "error" }], ["first", {}], ["all", { errors: "all" }]] as const) {
  const d = Schema.decodeUnknownEither(CasesFile, opts as any)
  d(value)
  const t = performance.now(); for (let i = 0; i < 5; i++) d(value); console.log(name, ((performance.now() - t) / 5).toFixed(1), "ms")
}
const is = Schema.is(CasesFile); const t = performance.now(); for (let i = 0; i < 5; i++) is(value); console.log("is", ((performance.now() - t) / 5).toFixed(1), "ms")
