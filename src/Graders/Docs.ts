/**
 * The documentation of the expectation kinds, rendered from the registry: the contract's table, its
 * examples and the README's short table. `npm run docs` writes them into docs/contract.md and
 * README.md between their markers, and a test holds the files to them and every example to its
 * verdict, so the documentation cannot drift from the kinds.
 */
import type { Surface } from "../Schema/Surface.js"
import type { Turn } from "../Schema/Trace.js"
import type { AnyKind, TurnSketch } from "./Kind.js"
import { kinds } from "./Kinds.js"

/** A Markdown table cell: a `|` would end it. */
const cell = (text: string): string => text.replace(/\|/g, "\\|")

const code = (text: string): string => `\`${cell(text)}\``

/** The turn an example sketches: an answered turn that ran nothing, cited nothing and used no tokens, but for what it sets. */
export const sketchedTurn = ({ answer, ...trace }: TurnSketch): Turn => ({
  answer: answer ?? "An answer.",
  trace: {
    turnId: "turn_1",
    surface: "example",
    outcome: "answered",
    citations: [],
    toolExecutions: [],
    proposal: null,
    ...trace
  }
})

/** The surface the examples run on: every tool they name, with `apply_change` and `deploy` gated. */
export const exampleSurface: Surface = {
  endpoint: "/api/ask",
  tools: [
    ...new Set([
      ...kinds.flatMap((k: AnyKind) => k.names(k.example.expect)).flatMap((named) =>
        "tool" in named ? [named.tool] : []
      ),
      "apply_change",
      "deploy"
    ])
  ],
  gatedTools: ["apply_change", "deploy"]
}

const sketch = (turn: TurnSketch): string =>
  Object.keys(turn).length === 0 ? "a turn that ran and cited nothing" : code(JSON.stringify(turn))

const fieldsOf = (kind: AnyKind): ReadonlyArray<{ readonly name: string; readonly optional: boolean }> =>
  kind.doc.fields === "" ? [] : kind.doc.fields.split(", ").map((field) => ({
    name: /`[^`]+`/.exec(field)![0],
    optional: field.endsWith("?")
  }))

/** The contract's table of kinds. */
export const contractTable = (): string =>
  [
    "| `kind` | fields | passes when | fact on failure |",
    "|---|---|---|---|",
    ...kinds.map((k: AnyKind) => `| \`${k.kind}\` | ${k.doc.fields} | ${k.doc.passes} | ${k.doc.fact} |`)
  ].join("\n")

/** The contract's examples: each kind, a turn it passes on and one it fails on, with the fact. */
export const examplesTable = (): string =>
  [
    "| expectation | passes on | fails on | with the fact |",
    "|---|---|---|---|",
    ...kinds.map((k: AnyKind) =>
      `| ${code(JSON.stringify(k.example.expect))}${
        k.example.approved === undefined ? "" : `, approving ${code(JSON.stringify(k.example.approved))}`
      } | ${sketch(k.example.passes)} | ${sketch(k.example.fails)} | ${code(k.example.fact)} |`
    )
  ].join("\n")

/** The README's table of kinds. */
export const readmeTable = (): string =>
  [
    "| kind | passes when | fact on failure |",
    "|---|---|---|",
    ...kinds.map((k: AnyKind) => {
      const fields = fieldsOf(k)
      const required = fields.filter((f) => !f.optional).map((f) => ` + ${f.name}`).join("")
      const optional = fields.filter((f) => f.optional).map((f) => f.name).join(", ")
      return `| \`${k.kind}\`${required}${optional === "" ? "" : ` (${optional})`} | ${k.doc.brief} | ${
        code(k.example.fact)
      } |`
    })
  ].join("\n")

/** A section of a file that `npm run docs` writes from a registry (`source`), between markers named `name`. */
export interface Generated {
  readonly file: string
  readonly name: string
  readonly source: string
  readonly render: () => string
}

/** The sections `npm run docs` writes from the kinds, by file and marker name. */
export const generated: ReadonlyArray<Generated> = [
  { file: "docs/contract.md", name: "kinds", source: "src/Graders/Kinds.ts", render: contractTable },
  { file: "docs/contract.md", name: "examples", source: "src/Graders/Kinds.ts", render: examplesTable },
  { file: "README.md", name: "kinds", source: "src/Graders/Kinds.ts", render: readmeTable }
]

/** The markers around a generated section. */
export const markers = (name: string, source = "src/Graders/Kinds.ts") => ({
  begin: `<!-- ${name}: written by \`npm run docs\` from ${source} -->`,
  end: `<!-- /${name} -->`
})

/** A file's text with the section between the markers replaced, or `undefined` when the markers are missing. */
export const withSection = (text: string, name: string, body: string, source?: string): string | undefined => {
  const { begin, end } = markers(name, source)
  const start = text.indexOf(begin)
  const stop = text.indexOf(end, start)
  if (start < 0 || stop < 0) return undefined
  return `${text.slice(0, start + begin.length)}\n${body}\n${text.slice(stop)}`
}
