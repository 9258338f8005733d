/**
 * The HTTP client of live runs: Node's, with connections kept alive between requests. Its own module,
 * so that commands that never go on the network do not load it.
 */
import type { HttpClient } from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import { Layer } from "effect"

/** Node's HTTP client with a keep-alive agent. */
export const HttpLive: Layer.Layer<HttpClient.HttpClient> = NodeHttpClient.layerWithoutAgent.pipe(
  Layer.provide(NodeHttpClient.makeAgentLayer({ keepAlive: true }))
)
