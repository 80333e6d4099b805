/**
 * @module
 * Raw HTTP/1.1 over a socket, for what `fetch` cannot send: malformed requests, slow and idle
 * connections, exact bytes.
 */
import { connect } from "node:net";
import type { Socket } from "node:net";

/** What one connection saw: every byte the server sent, and whether the server closed it in time. */
export interface RawResult {
  /** Everything received, as latin1 text. */
  readonly text: string;
  /** The status of the first answer, or `undefined` when none came. */
  readonly status: number | undefined;
  /** The body of the first answer (up to the end of what arrived). */
  readonly body: string;
  /** Whether the server closed (or reset) the connection before the timeout. */
  readonly closed: boolean;
  /** When it closed, in ms after the connection opened. */
  readonly closedAfterMs: number;
}

/** Opens a connection to a base URL's host and port. */
export function openSocket(base: string): Socket {
  const url = new URL(base);
  return connect(Number(url.port), url.hostname);
}

/**
 * Sends the chunks, one every `gapMs` (all at once when 0), and collects what comes back until
 * the server closes the connection or `timeoutMs` passes, or, with `untilAnswered`, until the first
 * answer is whole (as its `Content-Length` says).
 */
export function rawExchange(base: string, chunks: readonly (string | Uint8Array)[], options: { gapMs?: number; timeoutMs?: number; untilAnswered?: boolean } = {}): Promise<RawResult> {
  const { gapMs = 0, timeoutMs = 3000, untilAnswered = false } = options;
  return new Promise((resolve) => {
    const socket = openSocket(base);
    const opened = Date.now();
    const received: Buffer[] = [];
    let done = false;
    const finish = (closed: boolean) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      const text = Buffer.concat(received).toString("latin1");
      const status = /^HTTP\/1\.[01] (\d{3})/.exec(text)?.[1];
      const headerEnd = text.indexOf("\r\n\r\n");
      resolve({ text, status: status === undefined ? undefined : Number(status), body: headerEnd === -1 ? "" : text.slice(headerEnd + 4), closed, closedAfterMs: Date.now() - opened });
    };
    const timer = setTimeout(() => finish(false), timeoutMs);
    socket.on("data", (chunk: Buffer) => {
      received.push(chunk);
      if (untilAnswered && answeredWhole(Buffer.concat(received).toString("latin1"))) finish(false);
    });
    socket.on("close", () => finish(true));
    socket.on("error", () => finish(true));
    socket.on("connect", async () => {
      for (const chunk of chunks) {
        if (done || socket.destroyed) return;
        socket.write(chunk);
        if (gapMs > 0) await Bun.sleep(gapMs);
      }
    });
  });
}

/** Whether `text` holds a whole answer: its head, and its body to the last chunk or as many bytes as its `Content-Length` says. */
function answeredWhole(text: string): boolean {
  const headerEnd = text.indexOf("\r\n\r\n");
  if (headerEnd === -1) return false;
  const head = text.slice(0, headerEnd);
  if (/\r\ntransfer-encoding: *chunked/i.test(head)) return text.endsWith("\r\n0\r\n\r\n") || text.slice(headerEnd + 4).startsWith("0\r\n\r\n");
  const length = Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
  return text.length >= headerEnd + 4 + length;
}

/** The body of an answer sent in chunks, joined (what a client reads). */
export function unchunked(body: string): string {
  let joined = "";
  for (let at = 0; ; ) {
    const lineEnd = body.indexOf("\r\n", at);
    const size = Number.parseInt(body.slice(at, lineEnd), 16);
    if (lineEnd === -1 || !(size > 0)) return joined;
    joined += body.slice(lineEnd + 2, lineEnd + 2 + size);
    at = lineEnd + 2 + size + 2;
  }
}
