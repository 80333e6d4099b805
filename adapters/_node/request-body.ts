/**
 * @module
 * Private to the Node adapter: a request body read from Node's `IncomingMessage`, whole into one
 * buffer (what the core reads of a body with a `Content-Length`) or as a web stream pulled from the
 * socket, and the streams that tell when they are first read (the Fetch API's "disturbed": a request
 * whose body stream was read from or cancelled has a used body).
 */
import type { Buffer } from "node:buffer";
import type { IncomingMessage } from "node:http";

/** A request body's stream, as a `Request`'s `body` is typed. */
export type BodyStream = ReadableStream<Uint8Array<ArrayBuffer>>;

/**
 * Whether the request has a body: one it declares with `Content-Length` or chunked, and a method that
 * may carry one. A `GET` or `HEAD` has none, whatever it sends, as on Bun and Deno: the Fetch API
 * makes no such request with a body.
 */
export function hasBody(incoming: IncomingMessage): boolean {
  if (/^(?:GET|HEAD)$/i.test(incoming.method ?? "GET")) return false;
  return incoming.headers["transfer-encoding"] !== undefined || Number(incoming.headers["content-length"] ?? 0) > 0;
}

/**
 * The whole request body, read straight from Node's stream into one buffer of its own (not
 * `Buffer.concat` and a slice of the pool: that was 3.7% of a create's samples on Node 20).
 *
 * Read in paused mode (`_takeArrived` at each `readable`), not flowing: no `resume`, `data` and `end`
 * with their turns of the event loop between the body's arrival and the answer (measured in
 * bench/RESULTS.md, issue 53, third round). A body that has all arrived is taken at once.
 */
export function readWhole(incoming: IncomingMessage): Promise<ArrayBuffer> {
  const chunks: Buffer[] = [];
  if (_takeArrived(incoming, chunks)) return Promise.resolve(joined(chunks));
  return new Promise((resolve, reject) => {
    incoming.on("readable", () => {
      if (_takeArrived(incoming, chunks)) resolve(joined(chunks));
    });
    incoming.on("error", reject);
  });
}

/** Adds what has arrived of the body to `chunks`; whether that was the rest of it (Node found the request complete). */
function _takeArrived(incoming: IncomingMessage, chunks: Buffer[]): boolean {
  for (let chunk: Buffer | null; (chunk = incoming.read() as Buffer | null) !== null;) chunks.push(chunk);
  return incoming.complete;
}

/** The chunks as one `ArrayBuffer`: the one chunk's own when it fills it (Node copies each body chunk into a buffer of its own), else a copy. */
function joined(chunks: readonly Buffer[]): ArrayBuffer {
  const first = chunks[0];
  if (chunks.length === 1 && first!.byteOffset === 0 && first!.byteLength === first!.buffer.byteLength) return first!.buffer as ArrayBuffer;
  const whole = new Uint8Array(chunks.reduce((size, chunk) => size + chunk.byteLength, 0));
  let offset = 0;
  for (const chunk of chunks) {
    whole.set(chunk, offset);
    offset += chunk.byteLength;
  }
  return whole.buffer;
}

/**
 * The request body as a web stream that reads from the socket only when pulled, so a reader that
 * stops early (the size limit) leaves the rest unread instead of buffered. Cancelled, it lets go of
 * the request, whose rest the bridge then drops before closing the connection (`dropRest`). `disturb`
 * is called when it is first read from or cancelled: it is pulled only for a read (it keeps no chunk
 * ahead).
 */
export function incomingStream(incoming: IncomingMessage, disturb: () => void = () => {}): BodyStream {
  let letGo = () => {};
  return new ReadableStream({
    start(controller) {
      const onData = (chunk: Buffer) => {
        controller.enqueue(new Uint8Array(chunk.buffer as ArrayBuffer, chunk.byteOffset, chunk.byteLength));
        if ((controller.desiredSize ?? 0) <= 0) incoming.pause();
      };
      const onEnd = () => controller.close();
      const onError = (error: Error) => controller.error(error);
      incoming.pause();
      incoming.on("data", onData).on("end", onEnd).on("error", onError);
      letGo = () => incoming.off("data", onData).off("end", onEnd).off("error", onError);
    },
    pull() {
      disturb();
      incoming.resume();
    },
    cancel() {
      disturb();
      incoming.pause();
      letGo();
    },
  }, { highWaterMark: 0 });
}

/**
 * Lets go of any reader of what is left of a request body and reads the rest to nowhere, as Node does
 * itself with a body nobody read once the answer is out (`IncomingMessage#_dump`).
 */
export function discardRest(incoming: IncomingMessage): void {
  incoming.removeAllListeners("data");
  incoming.resume();
}

/** Discards what is left of a request body (`discardRest`), resolving once it ended, the client went away, or `ms` passed. */
export function dropRest(incoming: IncomingMessage, ms: number): Promise<void> {
  return new Promise((done) => {
    const stop = () => {
      clearTimeout(timer);
      incoming.off("end", stop).off("close", stop).off("error", stop);
      done();
    };
    const timer = setTimeout(stop, ms);
    incoming.on("end", stop).on("close", stop).on("error", stop);
    discardRest(incoming);
  });
}

/** `stream` read through a stream of its own that calls `disturb` when first read from or cancelled (a tee's branch, whose reads cannot be watched otherwise). */
export function watchedStream(stream: BodyStream, disturb: () => void): BodyStream {
  const reader = stream.getReader();
  return new ReadableStream({
    async pull(controller) {
      disturb();
      const { done, value } = await reader.read();
      if (done) controller.close();
      else controller.enqueue(value);
    },
    cancel(reason) {
      disturb();
      return reader.cancel(reason);
    },
  }, { highWaterMark: 0 });
}

/** The stream of a body that was read whole without one: ended, and locked as a real `Request` leaves it after `arrayBuffer()`. */
export function spentStream(): BodyStream {
  const stream: BodyStream = new ReadableStream({ start: (controller) => controller.close() });
  void stream.getReader().read();
  return stream;
}
