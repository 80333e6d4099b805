/**
 * @module
 * Private: the connections of a `node:http` server, told apart by whether a request on them is being
 * answered. `server.close()` closes only those Node sees as idle, and Node sees a connection as busy
 * from its first byte: one that sent half a request line and stopped would hold the stop until the
 * header timeout. Here a connection is answering from its request's headers to the end of its
 * answer, which is what a graceful stop must wait for, and nothing else.
 */
import type { IncomingMessage, Server as HttpServer, ServerResponse } from "node:http";
import type { Socket } from "node:net";

/** What a stop may close. */
export interface Connections {
  /** Closes every connection no request is being answered on, and each of the others once its answer is sent. */
  closeUnanswering(): void;
  /** Closes every connection, answered or not (for requests still in flight at the stop's limit). */
  closeAll(): void;
}

/** Starts telling a server's connections apart; call before it listens. */
export function trackConnections(server: HttpServer): Connections {
  const open = new Set<Socket>();
  const answering = new Set<Socket>();
  let stopping = false;
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => (open.delete(socket), answering.delete(socket)));
  });
  server.on("request", (incoming: IncomingMessage, outgoing: ServerResponse) => {
    const socket = incoming.socket;
    answering.add(socket);
    outgoing.once("close", () => {
      answering.delete(socket);
      // An answer begun before the stop carries no `Connection: close`: Node would keep its connection.
      if (stopping) socket.end();
    });
  });
  return {
    closeUnanswering: () => {
      stopping = true;
      for (const socket of open) if (!answering.has(socket)) socket.destroy();
    },
    closeAll: () => {
      stopping = true;
      for (const socket of open) socket.destroy();
    },
  };
}
