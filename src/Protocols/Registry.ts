/**
 * The registry of live protocols: each once, the default first, in the order the docs list them.
 * Everything that depends on the set of protocols derives from this list — the names a surface's
 * `protocol` may give and `--protocol`'s choices, the catalog's checks of the fields each reads, the
 * live client's turns and delete routes, the stand-in's wires and the faults each takes, and the docs'
 * summary tables — so a new protocol is its folder and one line here.
 */
import type { Surface } from "../Schema/Surface.js"
import { agUi } from "./AgUi/AgUi.js"
import { aiSdk } from "./AiSdk/AiSdk.js"
import { langGraph } from "./LangGraph/LangGraph.js"
import type { ProtocolClient, ProtocolDefinition } from "./Protocol.js"
import { turnEval } from "./TurnEval/TurnEval.js"

/** Every live protocol; the first is a surface's when it names none. */
export const protocols = [turnEval, aiSdk, langGraph, agUi] as const

/** The name of a live protocol, as a surface's `protocol` gives it. */
export type ProtocolName = typeof protocols[number]["name"]

/** Every protocol's name, the default first. */
export const protocolNames: ReadonlyArray<ProtocolName> = protocols.map((p) => p.name)

/** The protocol a surface speaks when it names none. */
export const defaultProtocol: ProtocolName = protocols[0].name

const byName = new Map<string, ProtocolDefinition<ProtocolName>>(protocols.map((p) => [p.name, p]))

/** The protocol of that name, if there is one. */
export const protocolNamed = (name: string): ProtocolDefinition<ProtocolName> | undefined => byName.get(name)

/** Whether a name is a protocol's. */
export const isProtocolName = (name: string): name is ProtocolName => byName.has(name)

/** The name of the protocol a surface speaks: its own, else the default; none for a name no protocol has. */
export const protocolOf = (surface: Surface): ProtocolName | undefined => {
  const name = surface.protocol ?? defaultProtocol
  return isProtocolName(name) ? name : undefined
}

/** A protocol with its client loaded, for a live run. */
export interface LoadedProtocol {
  readonly definition: ProtocolDefinition<ProtocolName>
  readonly client: ProtocolClient
}

/** Every protocol's client, loaded, by name. */
export const loadClients = (): Promise<ReadonlyMap<string, LoadedProtocol>> =>
  Promise.all(
    protocols.map((definition) =>
      (definition.client() as Promise<ProtocolClient>).then((client): readonly [string, LoadedProtocol] => [
        definition.name,
        { definition, client }
      ])
    )
  ).then((loaded) => new Map(loaded))
