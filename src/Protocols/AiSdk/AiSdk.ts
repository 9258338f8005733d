/**
 * The AI SDK's UI message stream (`"protocol": "ai-sdk"`): what a `useChat` app's chat route answers. The
 * run names the chat; the app's delete route, which the surface must give, deletes it.
 */
import { defineProtocol } from "../Protocol.js"

/** The AI SDK's UI message stream. */
export const aiSdk = defineProtocol({
  name: "ai-sdk",
  surface: {
    reads: ["endpoint", "request.body", "routes.delete"],
    requires: {
      endpoint: true,
      "routes.delete": "must say how its chats are deleted, as a route such as " +
        `"/api/chat?id={conversationId}", or null when the app keeps none`
    }
  },
  conversation: { by: "suite", what: "chat id" },
  client: () => import("./Client.js").then((m) => m.client),
  wire: () => import("./Wire.js").then((m) => m.make),
  faults: { routes: ["ask", "delete", "ratings"], ask: ["opened", "reused-id", "no-result"] },
  doc: {
    serves: "the AI SDK's UI message stream: what a `useChat` app's chat route answers (AI SDK 5, 6, 7) " +
      "([below](#ai-sdk-the-ai-sdks-ui-message-stream))",
    conversation: "a chat id the suite generates",
    deletedBy: "`routes.delete`, or `null` when the app keeps none",
    usage: "nothing: no chunk of the UI message stream carries token counts ([below](#what-this-protocol-cannot-tell))"
  }
})
