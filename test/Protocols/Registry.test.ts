/**
 * What derives from the protocol registry: docs/protocol.md's summary tables are what `npm run docs`
 * renders from it, the catalog's checks of a surface's fields follow each protocol's declaration, and
 * every protocol's client and stand-in wire load.
 */
import { describe, expect, it } from "@effect/vitest"
import { readFileSync } from "node:fs"
import { markers } from "../../src/Graders/Docs.js"
import { generatedProtocols, protocolsTable } from "../../src/Protocols/Docs.js"
import type { SurfaceField } from "../../src/Protocols/Protocol.js"
import { defaultProtocol, loadClients, protocolNames, protocolOf, protocols } from "../../src/Protocols/Registry.js"
import type { Surface } from "../../src/Schema/Surface.js"
import { catalogProblems } from "../../src/Schema/Validate.js"

/** The section of a file between a pair of markers. */
const section = (file: string, name: string, source: string): string => {
  const text = readFileSync(file, "utf8")
  const { begin, end } = markers(name, source)
  const start = text.indexOf(begin)
  const stop = text.indexOf(end, start)
  expect(start, `${file} has the marker ${begin}`).toBeGreaterThanOrEqual(0)
  expect(stop, `${file} has the marker ${end}`).toBeGreaterThan(start)
  return text.slice(start + begin.length, stop).trim()
}

/** A surface of a protocol with every field it needs, and one field set besides. */
const surfaceWith = (protocol: string, field: SurfaceField): Surface => {
  const base: Surface = { protocol, endpoint: "/api/ask", tools: [], routes: { delete: "/c/{conversationId}" } }
  switch (field) {
    case "endpoint":
      return base
    case "assistantId":
      return { ...base, assistantId: "agent" }
    case "request.body":
      return { ...base, request: { body: {} } }
    case "request.input":
      return { ...base, request: { input: {} } }
    case "resume":
      return { ...base, resume: { approve: true, deny: false } }
    case "routes.conversation":
      return { ...base, routes: { ...base.routes, conversation: "/c/{conversationId}" } }
    case "routes.trace":
      return { ...base, routes: { ...base.routes, trace: "/t/{turnId}" } }
    case "routes.delete":
      return base
  }
}

const optionalFields: ReadonlyArray<SurfaceField> = [
  "assistantId",
  "request.body",
  "request.input",
  "routes.conversation",
  "routes.trace"
]

/** What each protocol reads of the optional fields, as docs/protocol.md describes it. */
const documented: Readonly<Record<string, ReadonlyArray<SurfaceField>>> = {
  "turn-eval": ["routes.conversation", "routes.trace"],
  "ai-sdk": ["request.body"],
  langgraph: ["assistantId", "request.input"],
  "ag-ui": ["request.body"]
}

describe("the protocol registry", () => {
  it.each(generatedProtocols.map((g) => [g.file, g.name, g] as const))(
    "%s (%s) is what npm run docs writes",
    (file, name, g) => {
      expect(section(file, name, g.source), `run npm run docs to rewrite ${file}`).toBe(g.render())
    }
  )

  it("lists every protocol once, the default first, in docs/protocol.md and the contract", () => {
    const listed = protocolsTable().split("\n").slice(2).map((row) => /^\| `([a-z-]+)`/.exec(row)?.[1])
    expect(listed).toEqual(protocolNames)
    expect(new Set(protocolNames).size).toBe(protocolNames.length)
    const contractRow = readFileSync("docs/contract.md", "utf8").split("\n").find((l) => l.startsWith("| `protocol` |"))
    for (const name of protocolNames) expect(contractRow, name).toContain(`\`${name}\``)
  })

  it("names a surface's protocol, the default when it names none, and none for a name no protocol has", () => {
    const surface: Surface = { tools: [] }
    expect(protocolOf(surface)).toBe(defaultProtocol)
    for (const name of protocolNames) expect(protocolOf({ ...surface, protocol: name })).toBe(name)
    expect(protocolOf({ ...surface, protocol: "lang-graph" })).toBeUndefined()
  })

  it.each(protocols.flatMap((p) => optionalFields.map((f) => [p.name, f, documented[p.name]!.includes(f)] as const)))(
    "%s with %s set: refused unless the protocol reads it (reads: %s)",
    (name, field, reads) => {
      const problems = catalogProblems({ surfaces: { s: surfaceWith(name, field) } })
      const at = problems.filter((p) => p.path === `$.surfaces.s.${field}`)
      if (reads) expect(at).toEqual([])
      else expect(at.map((p) => p.message)).toEqual([expect.stringMatching(new RegExp(`"${name}"`))])
    }
  )

  it.each(protocols.map((p) => [p.name, p] as const))(
    "%s: a surface without a field it requires is refused at that field",
    (name, p) => {
      for (const field of Object.keys(p.surface.requires)) {
        const { endpoint: _endpoint, routes: _routes, ...bare } = surfaceWith(name, "endpoint")
        const problems = catalogProblems({ surfaces: { s: bare } })
        expect(problems.map((q) => q.path), field).toContain(`$.surfaces.s.${field}`)
      }
      const problems = catalogProblems({ surfaces: { s: surfaceWith(name, "endpoint") } })
      expect(problems).toEqual([])
    }
  )

  it("refuses a protocol the registry does not have, naming the ones it has", () => {
    expect(catalogProblems({ surfaces: { s: { protocol: "grpc", endpoint: "/a", tools: [] } } })).toEqual([{
      path: "$.surfaces.s.protocol",
      message: `expected one of ${protocolNames.map((n) => `"${n}"`).join(", ")}, got "grpc"`
    }])
  })

  it("loads every protocol's client and stand-in wire", async () => {
    const clients = await loadClients()
    expect([...clients.keys()]).toEqual(protocolNames)
    for (const p of protocols) expect(typeof (await p.wire())).toBe("function")
  })
})
