/**
 * A LangGraph Server (`"protocol": "langgraph"`, the Agent Protocol as `langgraph dev` and LangGraph
 * Platform serve it): a thread the server opens per case, tagged with the run's key so that a search
 * finds it, one run waited for, the thread deleted.
 */
import { defineProtocol } from "../Protocol.js"

/** A LangGraph Server. */
export const langGraph = defineProtocol({
  name: "langgraph",
  surface: {
    reads: ["endpoint", "assistantId", "request.input", "resume", "routes.delete"],
    requires: {}
  },
  conversation: { by: "server" },
  client: () => import("./Client.js").then((m) => m.client),
  wire: () => import("./Wire.js").then((m) => m.make),
  faults: { routes: ["ask", "conversation", "trace", "delete", "ratings"], ask: ["opened", "id"] },
  doc: {
    serves: "LangGraph Server / the Agent Protocol: `langgraph dev`, LangGraph Platform " +
      "([below](#langgraph-a-langgraph-server-the-agent-protocol))",
    conversation: "a thread the server opens",
    deletedBy: "`DELETE /threads/{thread_id}`",
    usage: "the `usage_metadata` of the turn's AI messages, summed ([below](#what-each-fact-is-read-from-1))"
  }
})
