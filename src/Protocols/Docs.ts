/**
 * The summary tables of docs/protocol.md, rendered from the registry: which protocols there are, what
 * each app serves, how its conversation is named and deleted, and where a turn's token usage is read.
 * `npm run docs` writes them between their markers, and a test holds the file to them.
 */
import type { Generated } from "../Graders/Docs.js"
import { defaultProtocol, protocols } from "./Registry.js"

const nameCell = (name: string): string => name === defaultProtocol ? `\`${name}\` (the default)` : `\`${name}\``

/** The table of protocols: what the app serves, how its conversation comes to be, what deletes it. */
export const protocolsTable = (): string =>
  [
    "| protocol | what the app serves | conversation | deleted by |",
    "|---|---|---|---|",
    ...protocols.map((p) => `| ${nameCell(p.name)} | ${p.doc.serves} | ${p.doc.conversation} | ${p.doc.deletedBy} |`)
  ].join("\n")

/** The table of where each protocol reads a turn's `usage`. */
export const usageTable = (): string =>
  [
    "| protocol | `usage` read from |",
    "|---|---|",
    ...protocols.map((p) => `| \`${p.name}\` | ${p.doc.usage} |`)
  ].join("\n")

/** The sections `npm run docs` writes from the protocols. */
export const generatedProtocols: ReadonlyArray<Generated> = [
  { file: "docs/protocol.md", name: "protocols", source: "src/Protocols/Registry.ts", render: protocolsTable },
  { file: "docs/protocol.md", name: "usage", source: "src/Protocols/Registry.ts", render: usageTable }
]
