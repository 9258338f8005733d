import { readdirSync, readFileSync } from "node:fs"
import { isRecordedTurn } from "/work/main/src/Schema/Trace.ts"
for (const f of readdirSync("/work/main/cases/fixtures")) { const v = JSON.parse(readFileSync("/work/main/cases/fixtures/" + f, "utf8")); if (!isRecordedTurn(v)) console.log("rejected", f) }
