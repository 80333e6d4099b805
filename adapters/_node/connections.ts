/**
 * @module
 * Private: the connections of a `node:http` server, told apart by whether a request on them is being
 * answered. `server.close()` closes only those Node sees as idle, and Node sees a connection as busy
 * from its first byte: one that sent half a request line and stopped would hold the stop until the
 * header timeout. Here a connection is answering from its request's headers to the end of its
 * answer, which is what a graceful stop must wait for, and nothing else.
 */
import type { Server as HttpServer } from "node:http";
import type { Socket } from "node:net";

/** What a stop may close, and how the server says which connections are answering. */
export interface Connections {
  /** Marks `socket` as answering until `answered` settles (the answer handed to Node); `undefined`: it was handed over already. */
  answering(socket: Socket, answered: Promise<void> | undefined): void;
  /** Closes every connection no request is being answered on, and each of the others once its answer is sent. */
  closeUnanswering(): void;
  /** Closes every connection, answered or not (for requests still in flight at the stop's limit). */
  closeAll(): void;
}

/**
 * Starts telling a server's connections apart; call before it listens. A request is marked by the
 * server's own request listener through `answering`, not by a second listener and a `close` listener
 * per answer: those cost a Node list request about 5% (bench/RESULTS.md, issue 35).
 */
export function trackConnections(server: HttpServer): Connections {
  const open = new Set<Socket>();
  const busy = new Set<Socket>();
  let stopping = false;
  server.on("connection", (socket: Socket) => {
    open.add(socket);
    socket.once("close", () => (open.delete(socket), busy.delete(socket)));
  });
  const answeredOn = (socket: Socket) => {
    busy.delete(socket);
    // An answer begun before the stop carries no `Connection: close`: Node would keep its connection.
    if (stopping) socket.end();
  };
  return {
    answering: (socket, answered) => {
      if (answered === undefined) return answeredOn(socket);
      busy.add(socket);
      // `then` rather than `finally`, which makes two more promises an answer; fulfilled or rejected,
      // the mark is cleared by `answeredOn`, as for an answer sent now (above): one place clears it.
      void answered.then(() => answeredOn(socket), (error: unknown) => {
        answeredOn(socket);
        throw error;
      });
    },
    closeUnanswering: () => {
      stopping = true;
      for (const socket of open) if (!busy.has(socket)) socket.destroy();
    },
    closeAll: () => {
      stopping = true;
      for (const socket of open) socket.destroy();
    },
  };
}
