/**
 * The HTTP client of live runs: @effect/platform's, on Node through undici, which keeps connections
 * alive and costs about half the CPU per request of the node:http client. Its own module, so that
 * commands that never go on the network do not load it.
 */
import type { HttpClient } from "@effect/platform"
import * as NodeHttpClient from "@effect/platform-node/NodeHttpClient"
import type { Layer } from "effect"

/** The live runs' HTTP client. */
export const HttpLive: Layer.Layer<HttpClient.HttpClient> = NodeHttpClient.layerUndici
