/**
 * This product's own protocol (`"protocol": "turn-eval"`, the default): the app serves four routes — ask,
 * conversation, trace, delete — and names the conversation in its answer.
 */
import { defineProtocol } from "../Protocol.js"

/** This product's own protocol. */
export const turnEval = defineProtocol({
  name: "turn-eval",
  surface: {
    reads: ["endpoint", "routes.conversation", "routes.trace", "routes.delete"],
    requires: { endpoint: true }
  },
  conversation: { by: "server" },
  client: () => import("./Client.js").then((m) => m.client),
  wire: () => import("./Wire.js").then((m) => m.make),
  faults: { routes: ["ask", "conversation", "trace", "delete", "ratings"], ask: ["opened", "id"] },
  doc: {
    serves:
      "this product's own four routes: ask, conversation, trace, delete ([below](#turn-eval-the-products-own-routes))",
    conversation: "named by the app",
    deletedBy: "`routes.delete`",
    usage: "the trace's `usage`, as the app serves it ([below](#trace-get-apiaiturnsturnidtrace))"
  }
})
