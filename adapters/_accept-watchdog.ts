/**
 * @module
 * Private: a watchdog for a `node:http` server whose accept loop can stop for good. On Deno 2.9,
 * once accepting a connection fails for want of file descriptors (clients that open connections
 * and send nothing), the `node:http` server never accepts again, even after those clients are
 * gone: it emits no error, and new connections wait in the kernel's queue until they time out.
 * Bun and Node keep accepting; `Deno.serve` ends its server instead (see `deno.ts`).
 *
 * When no connection has been accepted for a while, the watchdog connects to the server itself;
 * if even that connection is not accepted within a second, it closes the listening socket and
 * listens again on the same address, which gives a working accept loop. Open connections are kept;
 * those still queued on the old listening socket are reset. A busy server is never probed: any
 * accepted connection shows the loop alive.
 */
import type { Server as HttpServer } from "node:http";
import type { AddressInfo, Socket } from "node:net";
import { connect, Server as NetServer } from "node:net";
import { clearInterval, clearTimeout, setInterval, setTimeout } from "node:timers";

/** How long without an accepted connection before the watchdog looks. */
const QUIET_MS = 2000;

/** How long the watchdog's own connection may wait to be accepted. */
const PROBE_WAIT_MS = 1000;

/** A running watchdog. */
export interface AcceptWatchdog {
  /** Stops watching (before the server is closed for good). */
  stop(): void;
}

/**
 * Watches a listening server's accept loop and listens again when it has stopped; each time, an
 * error saying so goes to `onError`.
 */
export function watchAccepts(server: HttpServer, onError: (error: unknown) => void): AcceptWatchdog {
  const { address, port } = server.address() as AddressInfo;
  let lastAccept = Date.now();
  let probe: { readonly socket: Socket; readonly verdict: ReturnType<typeof setTimeout> } | undefined;
  const accepted = () => (lastAccept = Date.now());
  server.on("connection", accepted);
  let relistening = false;
  const relisten = () => {
    relistening = true;
    const failed = (error: unknown) => ((relistening = false), onError(error));
    // The listening socket only: `http.Server#close` would also close idle keep-alive
    // connections, where a client's next request may be on its way.
    NetServer.prototype.close.call(server);
    server.once("error", failed);
    server.listen(port, address, () => ((relistening = false), server.off("error", failed)));
  };
  const look = () => {
    if (relistening) return;
    // A listen that failed (the port taken meanwhile) is tried again.
    if (!server.listening) return relisten();
    if (probe !== undefined || Date.now() - lastAccept < QUIET_MS) return;
    const sent = Date.now();
    const socket = connect(port, reachable(address));
    let failed = false;
    // Out of descriptors itself, say: nothing learned, look again later.
    socket.on("error", () => (failed = true));
    // Not accepted in time, or not even connected (a queue full of connections never accepted).
    const verdict = setTimeout(() => {
      socket.destroy();
      probe = undefined;
      if (failed || lastAccept >= sent) return;
      onError(new Error(`The server stopped accepting connections (Deno's node:http, after running out of file descriptors); listening again on port ${port}`));
      relisten();
    }, PROBE_WAIT_MS);
    probe = { socket, verdict };
  };
  const timer = setInterval(look, QUIET_MS / 2).unref();
  return {
    stop() {
      clearInterval(timer);
      server.off("connection", accepted);
      if (probe !== undefined) (clearTimeout(probe.verdict), probe.socket.destroy());
    },
  };
}

/** An address a client can connect to: the loopback one for a server listening on every address. */
function reachable(address: string): string {
  if (address === "0.0.0.0") return "127.0.0.1";
  if (address === "::") return "::1";
  return address;
}
