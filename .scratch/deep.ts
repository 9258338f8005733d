import { Either } from "effect"
import { CasesFile } from "../src/Schema/Case.js"
import { decodeJson } from "../src/Schema/Decode.js"
import { Baseline } from "../src/Schema/Baseline.js"
for (const depth of [1000, 10_000, 100_000, 1_000_000]) {
  const deep = "[".repeat(depth) + "]".repeat(depth)
  const text = `{"version": 1, "cases": [{"id": "a", "surface": "docs", "question": "q", "guards": "g", "expect": [{"kind": "cites", "path": ${deep}}]}]}`
  const t = Date.now()
  try {
    const r = decodeJson(CasesFile, "c.json", text)
    console.log(depth, Either.isLeft(r) ? r.left.message.slice(0, 200) : "ok", Date.now() - t, "ms")
  } catch (e) { console.log(depth, "THROWS", String(e).slice(0, 200)) }
  const o = `{"floor": ${deep}}`
  try {
    const r = decodeJson(Baseline, "b.json", o)
    console.log(depth, Either.isLeft(r) ? r.left.message.slice(0, 200) : "ok")
  } catch (e) { console.log(depth, "THROWS", String(e).slice(0, 200)) }
}
const obj = '{"a":'.repeat(100000) + '1' + '}'.repeat(100000)
try { const r = decodeJson(Baseline, "b.json", `{"floor": 0.5, "_comment": ${obj}}`); console.log(Either.isLeft(r) ? r.left.message.slice(0,300) : "ok") } catch (e) { console.log("THROWS", String(e).slice(0, 200)) }
