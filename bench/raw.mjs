// The raw limit of offline grading, as a process of its own: `node bench/raw.mjs CASES FIXTURES` reads
// and parses the golden set, then reads and parses each case's recording, as `turn-eval run --fixtures`
// must, and nothing else. The bench times it from spawn to exit, as it times the run.
import { readFileSync } from "node:fs"
import { join } from "node:path"

const [casesFile, fixtures] = process.argv.slice(2)
const { cases } = JSON.parse(readFileSync(casesFile, "utf8"))
let turns = 0
for (const { id } of cases) {
  JSON.parse(readFileSync(join(fixtures, `${id}.json`), "utf8"))
  turns++
}
process.stdout.write(`${turns}\n`)
