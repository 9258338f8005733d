// `npm run docs`: writes the tables of expectation kinds into docs/contract.md and README.md, between
// their markers, from the registry (src/Graders/Kinds.ts). test/Graders/Docs.test.ts fails when a
// file is not what this writes.
import { readFileSync, writeFileSync } from "node:fs"
import { generated, markers, withSection } from "../src/Graders/Docs.js"

for (const { file, name, render } of generated) {
  const text = readFileSync(file, "utf8")
  const next = withSection(text, name, render())
  if (next === undefined) {
    const { begin, end } = markers(name)
    process.stderr.write(`${file}: no section ${name}: write the lines\n${begin}\n${end}\nwhere its table goes\n`)
    process.exit(2)
  }
  if (next !== text) {
    writeFileSync(file, next)
    process.stdout.write(`wrote ${file} (${name})\n`)
  }
}
