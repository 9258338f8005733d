/**
 * Serving a test app on loopback: a port of its own, and a close that ends every connection still
 * open (a held or endless answer would otherwise keep the server from closing).
 */
import type { Server } from "node:http"
import type { AddressInfo, Socket } from "node:net"

/** A server listening on 127.0.0.1: its URL, and how to close it with every connection it holds. */
export interface Listening {
  readonly url: string
  readonly close: () => Promise<void>
}

/** Listens on 127.0.0.1 at a free port, tracking every connection so that `close` can end them. */
export const listenOnLoopback = async (server: Server): Promise<Listening> => {
  const sockets = new Set<Socket>()
  server.on("connection", (socket) => {
    sockets.add(socket)
    socket.on("close", () => sockets.delete(socket))
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
