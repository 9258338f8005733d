/**
 * The Agent–User Interaction protocol (`"protocol": "ag-ui"`): CopilotKit's runtimes and the AG-UI
 * framework adapters. The run names the thread; an AG-UI agent keeps nothing unless the surface says
 * where its threads are deleted.
 */
import { defineProtocol } from "../Protocol.js"

/** The Agent–User Interaction protocol. */
export const agUi = defineProtocol({
  name: "ag-ui",
  surface: {
    reads: ["endpoint", "request.body", "resume", "routes.delete"],
    requires: { endpoint: true }
  },
  conversation: { by: "suite", what: "thread id" },
  client: () => import("./Client.js").then((m) => m.client),
  wire: () => import("./Wire.js").then((m) => m.make),
  faults: { routes: ["ask", "ratings"], ask: ["reused-id", "no-result"] },
  doc: {
    serves: "the Agent–User Interaction protocol: CopilotKit's runtimes and AG-UI framework adapters " +
      "([below](#ag-ui-the-agentuser-interaction-protocol))",
    conversation: "a thread id the suite generates",
    deletedBy: "nothing, unless `routes.delete` is set",
    usage:
      "the `usage` of `RUN_FINISHED` or `RUN_ERROR`, summed across its entries ([below](#where-each-fact-comes-from))"
  }
})
