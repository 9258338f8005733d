// `npm run docs`: writes the tables rendered from the registries — the expectation kinds
// (src/Graders/Kinds.ts) into docs/contract.md and README.md, the protocols (src/Protocols/Registry.ts)
// into docs/protocol.md — between their markers. test/Graders/Docs.test.ts and
// test/Protocols/Docs.test.ts fail when a file is not what this writes.
import { readFileSync, writeFileSync } from "node:fs"
import { generated, markers, withSection } from "../src/Graders/Docs.js"
import { generatedProtocols } from "../src/Protocols/Docs.js"

for (const { file, name, render, source } of [...generated, ...generatedProtocols]) {
  const text = readFileSync(file, "utf8")
  const next = withSection(text, name, render(), source)
  if (next === undefined) {
    const { begin, end } = markers(name, source)
    process.stderr.write(`${file}: no section ${name}: write the lines\n${begin}\n${end}\nwhere its table goes\n`)
    process.exit(2)
  }
  if (next !== text) {
    writeFileSync(file, next)
    process.stdout.write(`wrote ${file} (${name})\n`)
  }
}
