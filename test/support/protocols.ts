/**
 * The committed golden set spoken over each live protocol: a catalog naming the protocol on every
 * surface (written to a file for `--surfaces`), a stand-in serving that same catalog, and the session
 * signed in by a cookie, a bearer token or an API key.
 */
import { NodeContext } from "@effect/platform-node"
import { Effect, Exit, Redacted, Scope } from "effect"
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs"
import { tmpdir } from "node:os"
import { join } from "node:path"
import { defaultCasesFile, defaultSurfacesFile } from "../../src/ProjectFiles.js"
import { type ProtocolName, protocolNames as protocols } from "../../src/Protocols/Registry.js"
import { type GoldenSet, loadGoldenSet } from "../../src/Runner/GoldenSet.js"
import type { Route } from "../../src/Schema/Protocol.js"
import { type StandIn, type StandInOptions, start } from "../../src/StandIn/Server.js"

/** Every protocol a live run speaks, this product's own first. */
export const allProtocols: ReadonlyArray<ProtocolName> = protocols

/**
 * The delete route each protocol's surfaces use here, or null for an app that keeps no conversations.
 * The AI SDK's is not the run's default route, so a journal that lost a conversation's own route would
 * send its cleanup to the wrong place.
 */
export const deleteRouteOf: { readonly [P in ProtocolName]: string | null } = {
  "turn-eval": "/api/ai/conversations/{conversationId}",
  "ai-sdk": "/api/ai/chats/{conversationId}",
  langgraph: "/threads/{conversationId}",
  "ag-ui": null
}

/** The routes each protocol has, as faults name them: AI SDK chats are only asked and deleted, an AG-UI agent only asked. */
export const routesOf: { readonly [P in ProtocolName]: ReadonlyArray<Route> } = {
  "turn-eval": ["ask", "conversation", "trace", "delete"],
  "ai-sdk": ["ask", "delete"],
  langgraph: ["ask", "conversation", "trace", "delete"],
  "ag-ui": ["ask"]
}

/** The name a route's failures go by on a protocol: LangGraph's reads are of the thread and its state. */
export const shownRouteOf = (protocol: ProtocolName, route: Route): string =>
  protocol === "langgraph" && route === "conversation"
    ? "thread"
    : protocol === "langgraph" && route === "trace"
    ? "state"
    : route

/** The committed catalog with every surface speaking `protocol`: its own delete route, LangGraph without an endpoint. */
const catalogJson = (protocol: ProtocolName): unknown => {
  const committed = JSON.parse(readFileSync(defaultSurfacesFile, "utf8")) as {
    surfaces: Record<string, Record<string, unknown>>
  }
  if (protocol === "turn-eval") return committed
  const surfaces = Object.fromEntries(
    Object.entries(committed.surfaces).map(([name, surface]) => {
      const { endpoint, ...rest } = surface
      const route = deleteRouteOf[protocol]
      return [name, {
        ...rest,
        protocol,
        // A LangGraph server serves every graph at its root: an endpoint would be a mount prefix.
        ...(protocol === "langgraph" ? {} : { endpoint }),
        ...(protocol === "ai-sdk" && route !== null ? { routes: { delete: route } } : {})
      }]
    })
  )
  return { ...committed, surfaces }
}

/** The golden set over one protocol: the catalog's file (for `--surfaces`) and the set loaded from it. */
export interface ProtocolSet {
  readonly protocol: ProtocolName
  readonly surfacesFile: string
  readonly set: GoldenSet
}

const sets = new Map<ProtocolName, Promise<ProtocolSet>>()

/** The golden set over `protocol`, its catalog written once per test file. */
export const protocolSet = (protocol: ProtocolName): Promise<ProtocolSet> => {
  const made = sets.get(protocol) ?? (async () => {
    const surfacesFile = protocol === "turn-eval"
      ? defaultSurfacesFile
      : join(mkdtempSync(join(tmpdir(), `eval-${protocol}-catalog-`)), "surfaces.json")
    if (protocol !== "turn-eval") writeFileSync(surfacesFile, JSON.stringify(catalogJson(protocol), null, 2))
    const set = await Effect.runPromise(
      loadGoldenSet(defaultCasesFile, surfacesFile).pipe(Effect.provide(NodeContext.layer), Effect.orDie)
    )
    return { protocol, surfacesFile, set }
  })()
  sets.set(protocol, made)
  return made
}

/** The arguments that point a live run at a protocol's catalog (none for this product's own). */
export const surfacesArgs = (p: ProtocolSet): ReadonlyArray<string> =>
  p.protocol === "turn-eval" ? [] : ["--surfaces", p.surfacesFile]

/** Runs `body` with a stand-in serving the golden set over `protocol`, stopping it afterwards. */
export const withProtocolStandIn = async <A>(
  protocol: ProtocolName,
  options: Omit<StandInOptions, "catalog" | "protocol">,
  body: (s: StandIn, p: ProtocolSet) => Promise<A>
): Promise<A> => {
  const p = await protocolSet(protocol)
  const scope = Effect.runSync(Scope.make())
  const standIn = await Effect.runPromise(Scope.extend(start({ catalog: p.set.catalog, ...options }), scope))
  try {
    return await body(standIn, p)
  } finally {
    await Effect.runPromise(Scope.close(scope, Exit.void))
  }
}

/** How a run signs in: the session cookie, or the same token as a bearer token or an API key. */
export type SignIn = "cookie" | "bearer" | "api-key"

/** The header each protocol's runs sign in with here: a bearer token, or an API key as LangGraph Platform takes it. */
export const headerSignInOf: { readonly [P in ProtocolName]: Exclude<SignIn, "cookie"> } = {
  "turn-eval": "bearer",
  "ai-sdk": "bearer",
  langgraph: "api-key",
  "ag-ui": "bearer"
}

/** The environment that signs a run in to the stand-in (`EVAL_COOKIE`, or `EVAL_AUTH_HEADER`). */
export const sessionEnv = (s: StandIn, how: SignIn): NodeJS.ProcessEnv => {
  const token = Redacted.value(s.token())
  switch (how) {
    case "cookie":
      return { EVAL_COOKIE: Redacted.value(s.cookie()) }
    case "bearer":
      return { EVAL_AUTH_HEADER: `authorization: Bearer ${token}` }
    case "api-key":
      return { EVAL_AUTH_HEADER: `x-api-key: ${token}` }
  }
}

/** The secret every way of signing in carries, which no output may show: the session's token. */
export const secretOf = (s: StandIn): string => Redacted.value(s.token())
