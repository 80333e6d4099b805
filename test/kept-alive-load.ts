/**
 * @module
 * Clients creating pets on kept-alive connections, written on raw sockets so that every way a request
 * can end is seen as it happened: answered, refused, or reset under it (`fetch` may retry or hide it).
 */
import { connect } from "node:net";

/** How the requests of a load ended, and the pets it created. */
export interface LoadTally {
  /** Answers by status (`201`, `503`, …). */
  readonly answered: Map<number, number>;
  /** Connections refused: nothing was sent on them. */
  refused: number;
  /**
   * Requests sent and never answered, their connection reset or closed under them (`ECONNRESET`,
   * `EPIPE`, or an end before the answer): their clients cannot tell whether the create was applied.
   */
  lost: number;
  /** The ids of the pets answered 201. */
  readonly acknowledged: number[];
}

/** A running load: its tally so far, how many answers came, and its end (every client refused or lost). */
export interface KeptAliveLoad {
  readonly tally: LoadTally;
  answers(): number;
  readonly done: Promise<void>;
}

/**
 * Starts `clients` clients creating pets at `base` (a `…/v1` URL), each on a kept-alive connection,
 * one request after the other. After an answer with `Connection: close` a client opens a new
 * connection at once and goes on, as the server's 503 asks ("retry on a new connection"); it ends
 * when its connection is refused (the server stopped) or a request of its own is lost.
 */
export function keptAliveCreates(base: string, clients: number, apiKey: string): KeptAliveLoad {
  const tally: LoadTally = { answered: new Map(), refused: 0, lost: 0, acknowledged: [] };
  let answers = 0;
  const url = new URL(base);
  const request = (n: number, i: number) => {
    const body = `{"name":"k${n}-${i}","categoryId":${n + 1}}`;
    return `POST ${url.pathname}/pets HTTP/1.1\r\nHost: ${url.host}\r\nAuthorization: Bearer ${apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
  };
  /** One connection of client `n`: resolves `true` to go on with a new one, `false` when the client is done. */
  const connection = (n: number, sent: { count: number }) =>
    new Promise<boolean>((resolve) => {
      const socket = connect(Number(url.port), url.hostname);
      let received = Buffer.alloc(0);
      let waiting = false;
      let ended = false;
      const end = (goOn: boolean) => {
        ended = true;
        socket.destroy();
        resolve(goOn);
      };
      const send = () => ((waiting = true), socket.write(request(n, sent.count++)));
      socket.on("connect", send);
      socket.on("data", (chunk: Buffer) => {
        received = Buffer.concat([received, chunk]);
        for (let answer = wholeAnswer(received); answer !== undefined; answer = wholeAnswer(received)) {
          received = received.subarray(answer.length);
          waiting = false;
          answers++;
          tally.answered.set(answer.status, (tally.answered.get(answer.status) ?? 0) + 1);
          if (answer.status === 201) tally.acknowledged.push((JSON.parse(answer.body) as { id: number }).id);
          if (answer.closes) return end(true);
          send();
        }
      });
      socket.on("error", (error: NodeJS.ErrnoException) => {
        if (ended) return;
        if (error.code === "ECONNREFUSED") return (tally.refused++, end(false));
        if (waiting) tally.lost++;
        end(!waiting);
      });
      // Closed between requests the client simply opens a new connection; closed under one, the request is lost.
      socket.on("close", () => {
        if (ended) return;
        if (waiting) tally.lost++;
        end(!waiting);
      });
    });
  const client = async (n: number) => {
    const sent = { count: 0 };
    while (await connection(n, sent));
  };
  const done = Promise.all(Array.from({ length: clients }, (_, n) => client(n))).then(() => {});
  return { tally, answers: () => answers, done };
}

/** The first whole answer in `bytes` (its head, and its body to its `Content-Length`), or `undefined` until it has arrived. */
function wholeAnswer(bytes: Buffer): { status: number; body: string; closes: boolean; length: number } | undefined {
  const headEnd = bytes.indexOf("\r\n\r\n");
  if (headEnd === -1) return undefined;
  const head = bytes.subarray(0, headEnd).toString("latin1");
  const length = headEnd + 4 + Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
  if (bytes.length < length) return undefined;
  return {
    status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0),
    body: bytes.subarray(headEnd + 4, length).toString("utf8"),
    closes: /\r\nconnection: *close\r\n/i.test(`${head}\r\n`),
    length,
  };
}
