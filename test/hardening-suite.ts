/**
 * @module
 * What one client must not be able to do to the standalone server: run it out of file
 * descriptors, hold connections open without end, or lose answers when it stops under load. Run
 * for every runtime by `http.test.ts`.
 */
import { describe, expect, test } from "bun:test";
import type { Socket } from "node:net";
import type { Pet } from "../src/mod.ts";
import type { Runtime, ServerProcess } from "./server-process.ts";
import { openJsonFileSnapshot } from "../adapters/json-file-store/mod.ts";
import { waitFor } from "./checks.ts";
import { keptAliveCreates } from "./kept-alive-load.ts";
import { openSocket, rawExchange } from "./raw-http.ts";
import { startServer } from "./server-process.ts";
import { tempDataFile } from "./temp.ts";

const KEY = "hardening-key";
const AUTH = { authorization: `Bearer ${KEY}` };
const JSON_AUTH = { ...AUTH, "content-type": "application/json" };

/**
 * How long each runtime takes to cut a connection that is slow with its headers or idle after an
 * answer, with HEADER_TIMEOUT=1 and IDLE_TIMEOUT=1 (`undefined`: never; docs/running.md, "Slow
 * clients", says why).
 * Bun checks its timers on a 4-second tick, and keeps a fixed 10 s before the first request; it is
 * given whole ticks past the idle timeout (4 to 8 s for IDLE_TIMEOUT=1), never to cut sooner.
 */
const CUT_WITHIN_SECONDS: Record<Runtime, { readonly header: number | undefined; readonly idle: number | undefined; readonly stalledBody: number | undefined }> = {
  bun: { header: 15, idle: 10, stalledBody: 10 },
  deno: { header: 3, idle: 3, stalledBody: 5 },
  // Deno.serve 2.9 has no header or idle timeout, and nothing else sees a connection before its headers;
  // after the adapter's 408 it keeps a connection whose body stalls until the client closes it.
  "deno-serve": { header: undefined, idle: undefined, stalledBody: undefined },
  node: { header: 3, idle: 3, stalledBody: 5 },
};

/** Runtimes whose server drops the `Content-Length` the service sets on a 304 (RFC 9110 lets a 304 omit it; docs/decisions.md, "Conditional reads"). */
const DROPS_304_LENGTH: ReadonlySet<Runtime> = new Set(["deno-serve"]);

/**
 * Runtimes that announce `Keep-Alive` on an HTTP/1.0 answer naming its `Host`, though they close its
 * connection: Bun tells a handler nothing of the HTTP version (docs/decisions.md, "Hostile input").
 */
const KEEP_ALIVE_ON_HTTP_1_0_WITH_HOST: ReadonlySet<Runtime> = new Set(["bun"]);

/** Runtimes whose server reads the rest of a request body after the service answered 413 with `Connection: close`. */
const READS_ON_AFTER_413: ReadonlySet<Runtime> = new Set(["deno-serve"]);

/**
 * Posts `bytes` of a create body, chunked (then its last chunk, with `last`; else it never ends) or
 * with a `Content-Length` (`framing: "length"`), and waits for the server to close the connection, up
 * to 3 s after the client is done: the first answer's status (`undefined` when none came, a reset
 * having taken it), and whether it closed. With `readLate` the client reads nothing until it has sent
 * its whole upload, as many clients do.
 */
function chunkedUpload(base: string, bytes: number, last: boolean, readLate = false, framing: "chunked" | "length" = "chunked"): Promise<{ status: number | undefined; closed: boolean }> {
  const length = framing === "chunked" ? "Transfer-Encoding: chunked" : `Content-Length: ${bytes}`;
  const head = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\n${length}\r\n\r\n`;
  const data = "a".repeat(0x10000);
  const chunk = framing === "chunked" ? `10000\r\n${data}\r\n` : data;
  return new Promise((resolve) => {
    const socket = openSocket(base);
    let text = "";
    let sent = 0;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const finish = (closed: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve({ status: Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? Number.NaN) || undefined, closed });
    };
    const send = () => {
      while (sent < bytes) {
        sent += 0x10000;
        if (!socket.write(chunk)) return void socket.once("drain", send);
      }
      if (last && framing === "chunked") socket.write("0\r\n\r\n");
      if (readLate) read();
      timer = setTimeout(finish, 3000, false);
    };
    const read = () => socket.on("data", (data: Buffer) => (text += data.toString("latin1")));
    if (!readLate) read();
    socket.on("close", () => finish(true));
    socket.on("error", () => finish(true));
    socket.on("connect", () => (socket.write(head), send()));
  });
}

/** The statuses the access log gives the requests `methodAndPath` (as logged in text), once `count` lines are out (waited for up to 5 s). */
async function loggedStatuses(server: ServerProcess, methodAndPath: string, count: number): Promise<number[]> {
  const line = new RegExp(`^\\S+ \\S+ ${methodAndPath} (\\d{3}) `, "gm");
  const statuses = () => [...server.stdout().matchAll(line)].map((match) => Number(match[1]));
  for (let waited = 0; waited < 5000 && statuses().length < count; waited += 20) await Bun.sleep(20);
  return statuses();
}

/** A raw connection: whether it opened, what it received so far, and whether it closed. */
function rawConnection(base: string): { readonly socket: Socket; readonly connected: Promise<boolean>; text(): string; closed(): boolean } {
  const socket = openSocket(base);
  let text = "";
  let closed = false;
  const connected = new Promise<boolean>((resolve) => {
    socket.once("connect", () => resolve(true));
    socket.once("error", () => resolve(false));
  });
  socket.on("data", (chunk: Buffer) => (text += chunk.toString("latin1")));
  socket.on("error", () => {});
  socket.on("close", () => (closed = true));
  return { socket, connected, text: () => text, closed: () => closed };
}

/** The whole answers in what a connection received, each with its status and whether it closes the connection. */
function answers(text: string): { status: number; closes: boolean }[] {
  const found: { status: number; closes: boolean }[] = [];
  for (let rest = text; ; ) {
    const headEnd = rest.indexOf("\r\n\r\n");
    if (headEnd === -1) return found;
    const head = rest.slice(0, headEnd);
    const end = headEnd + 4 + Number(/\r\ncontent-length: *(\d+)/i.exec(head)?.[1] ?? 0);
    if (rest.length < end) return found;
    found.push({ status: Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1] ?? 0), closes: /\r\nconnection: *close(\r\n|$)/i.test(head) });
    rest = rest.slice(end);
  }
}

/** Waits until `condition` holds, up to 10 s, looking often: the stall test has a quarter second to act in. */
function until(what: string, condition: () => boolean): Promise<true> {
  return waitFor(what, () => condition() || undefined, 10_000, 10);
}

/** The ids of the pets in a stopped server's data file, in order. */
async function storedIds(dataFile: string): Promise<number[]> {
  const snapshot = await openJsonFileSnapshot(dataFile);
  const ids: number[] = [];
  try {
    for await (const { pet } of snapshot.exportPets()) ids.push(pet.id);
  } finally {
    await snapshot.close();
  }
  return ids.toSorted((a, b) => a - b);
}

/** Registers the hardening tests for one runtime. */
export function hardeningSuite(runtime: Runtime): void {
  describe(`hardening on ${runtime}`, () => {
    test("more connections than file descriptors do not stop the server; it accepts new connections again once they close", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY }, { maxOpenFiles: 256 });
      const sockets: Socket[] = [];
      try {
        const created = await fetch(`${server.url}/pets`, { method: "POST", headers: JSON_AUTH, body: '{"name":"Kept","categoryId":1}' });
        expect(created.status).toBe(201);
        for (let i = 0; i < 400; i++) {
          const socket = openSocket(server.url);
          socket.on("error", () => {});
          // Part of a request line: the server must hold the connection and wait for the rest.
          socket.on("connect", () => socket.write("GET /v1/pe"));
          sockets.push(socket);
        }
        await Bun.sleep(2000);
        for (const socket of sockets) socket.destroy();
        // Each attempt on a new connection (not one `fetch` kept from before the flood).
        const request = `GET /v1/pets/1 HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`;
        const answer = await eventually(async () => {
          const result = await rawExchange(server.url, [request], { timeoutMs: 2000 });
          if (result.status !== 200) throw new Error(`no answer on a new connection: ${JSON.stringify(result.text.slice(0, 100))}`);
          return result;
        }, 10_000);
        expect((JSON.parse(answer.body) as Pet).name).toBe("Kept");
      } finally {
        for (const socket of sockets) socket.destroy();
        await server.stop("SIGKILL");
      }
    }, 30_000);

    describe("with HEADER_TIMEOUT=1, BODY_TIMEOUT=2 and IDLE_TIMEOUT=1", () => {
      const timeouts = { STORE: "memory", API_KEYS: KEY, HEADER_TIMEOUT: "1", BODY_TIMEOUT: "2", IDLE_TIMEOUT: "1" };
      const { header, idle, stalledBody } = CUT_WITHIN_SECONDS[runtime];
      const described = (seconds: number | undefined) => (seconds === undefined ? "kept open (the runtime has no such timeout)" : `closed within ${seconds} s`);

      test(`a connection that sends nothing is ${described(header)}`, async () => {
        const server = await startServer(runtime, timeouts);
        try {
          const result = await rawExchange(server.url, [], { timeoutMs: (header ?? 4) * 1000 });
          expect(result.closed).toBe(header !== undefined);
        } finally {
          await server.stop("SIGKILL");
        }
      }, 30_000);

      test(`headers sent a byte at a time are ${described(header)}, unanswered or with 408`, async () => {
        const server = await startServer(runtime, timeouts);
        try {
          const request = `GET /v1/pets HTTP/1.1\r\nHost: x\r\nX-Slow: ${"a".repeat(200)}\r\n\r\n`;
          const result = await rawExchange(server.url, [...request], { gapMs: 50, timeoutMs: (header ?? 4) * 1000 });
          // node:http answers 408 request_timeout before closing.
          expect(result.closed && (result.status === undefined || result.status === 408)).toBe(header !== undefined);
        } finally {
          await server.stop("SIGKILL");
        }
      }, 30_000);

      test("a body that trickles in is answered 408 or cut off, and nothing is stored", async () => {
        const server = await startServer(runtime, timeouts);
        try {
          const head = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: 60\r\n\r\n`;
          const result = await rawExchange(server.url, [head, ...'{"name":"Slow","categoryId":1}'], { gapMs: 200, timeoutMs: Math.max(6, stalledBody ?? 0) * 1000 });
          // Deno answers 408 but, with no handle on the connection, cannot close it under a client still sending.
          expect(result.status === 408 || (result.closed && result.status === undefined)).toBe(true);
          expect(await (await fetch(`${server.url}/pets`, { headers: AUTH })).json()).toEqual([]);
        } finally {
          await server.stop("SIGKILL");
        }
      }, 20_000);

      test(`a chunked body that stalls is answered 408 or cut off, and its connection ${described(stalledBody)}`, async () => {
        const server = await startServer(runtime, timeouts);
        try {
          const head = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;
          const result = await rawExchange(server.url, [head, '5\r\n{"nam\r\n'], { timeoutMs: (stalledBody ?? 6) * 1000 });
          expect(result.status === 408 || result.status === undefined).toBe(true);
          expect(result.closed).toBe(stalledBody !== undefined);
        } finally {
          await server.stop("SIGKILL");
        }
      }, 20_000);

      test(`an idle keep-alive connection is ${described(idle)} after its answer`, async () => {
        const server = await startServer(runtime, timeouts);
        try {
          const request = `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`;
          const result = await rawExchange(server.url, [request], { timeoutMs: (idle ?? 4) * 1000 });
          expect(result.status).toBe(200);
          expect(result.closed).toBe(idle !== undefined);
        } finally {
          await server.stop("SIGKILL");
        }
      }, 20_000);
    });

    test("a body led by a UTF-8 byte order mark creates the pet, and a #fragment in the request target is ignored (docs/decisions.md)", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY });
      try {
        const body = '\uFEFF{"name":"Bom","categoryId":1}';
        const created = await rawExchange(server.url, [`POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n`, Buffer.from(body)]);
        expect({ status: created.status, pet: JSON.parse(created.body) as unknown }).toEqual({ status: 201, pet: { id: 1, name: "Bom", categoryId: 1 } });
        const answers = [];
        for (const target of ["/v1/pets/1#x", "/v1/pets?limit=101#x", "/v1/pets/#1"]) {
          const result = await rawExchange(server.url, [`GET ${target} HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nConnection: close\r\n\r\n`]);
          answers.push(result.status);
        }
        expect(answers).toEqual([200, 400, 404]);
      } finally {
        await server.stop("SIGKILL");
      }
    });

    test(`an HTTP/1.0 request without Connection: keep-alive is answered, then its connection closed; the answer carries no Keep-Alive field${KEEP_ALIVE_ON_HTTP_1_0_WITH_HOST.has(runtime) ? " when it sent no Host (with Host it does: docs/decisions.md)" : ""}`, async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY, IDLE_TIMEOUT: "2" });
      try {
        const answers = [];
        for (const host of ["", "Host: x\r\n"]) {
          const result = await rawExchange(server.url, [`GET /v1/pets HTTP/1.0\r\n${host}Authorization: Bearer ${KEY}\r\n\r\n`], { timeoutMs: 1500 });
          answers.push({ status: result.status, closed: result.closed, keepAlive: /\r\nkeep-alive:/i.test(result.text) });
        }
        expect(answers).toEqual([
          { status: 200, closed: true, keepAlive: false },
          { status: 200, closed: true, keepAlive: KEEP_ALIVE_ON_HTTP_1_0_WITH_HOST.has(runtime) },
        ]);
      } finally {
        await server.stop("SIGKILL");
      }
    });

    // Deno.serve has no idle timeout, so it has nothing to announce.
    if (runtime !== "deno-serve") {
      test("answers on a connection kept open carry Keep-Alive: timeout=<IDLE_TIMEOUT>; an answer that closes its connection does not", async () => {
        const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY, IDLE_TIMEOUT: "2" });
        try {
          const request = (extra: string) => `GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n${extra}\r\n`;
          const kept = await rawExchange(server.url, [request("")], { timeoutMs: 500 });
          const closed = await rawExchange(server.url, [request("Connection: close\r\n")], { timeoutMs: 500 });
          expect(kept.text).toMatch(/\r\nkeep-alive: timeout=2\r\n/i);
          expect(closed.text).not.toMatch(/\r\nkeep-alive:/i);
        } finally {
          await server.stop("SIGKILL");
        }
      });

      test("an idle kept-alive connection stays open at least the Keep-Alive timeout its answer announced, wherever in the runtime's timer tick it fell idle", async () => {
        const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY, IDLE_TIMEOUT: "2" });
        try {
          // One connection every 0.8 s: five across Bun's 4 s timer tick.
          const kept = await Promise.all([0, 800, 1600, 2400, 3200].map(async (after) => {
            await Bun.sleep(after);
            const result = await rawExchange(server.url, [`GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`], { timeoutMs: 15_000 });
            const announced = Number(/\r\nkeep-alive: timeout=(\d+)/i.exec(result.text)?.[1] ?? Number.NaN);
            return { closed: result.closed, keptAtLeastAnnounced: result.closedAfterMs >= announced * 1000 };
          }));
          expect(kept).toEqual(Array(5).fill({ closed: true, keptAtLeastAnnounced: true }));
        } finally {
          await server.stop("SIGKILL");
        }
      }, 30_000);

      // Reported on Bun alone (Node's and Deno's node:http servers sent the field already).
      if (runtime === "bun") {
        test("a Node client sending requests across the idle timeout on kept-alive sockets meets no socket hang up", async () => {
          const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY, IDLE_TIMEOUT: "2" });
          try {
            // Each request waits about the idle timeout after the last, on the sockets of the last. The
            // agent is made as Node's global one (with a timeout: without one Node ignores the hint).
            const script = `
              import http from "node:http";
              const agent = new http.Agent({ keepAlive: true, maxSockets: 4, timeout: 5000 });
              const get = () => new Promise((resolve, reject) => http.get(process.argv[1], { agent, headers: { authorization: "Bearer ${KEY}" } }, (res) => { res.resume(); res.on("end", () => resolve(res.statusCode)); }).on("error", reject));
              const statuses = [];
              for (const wait of [0, 1950, 2000, 2050, 2100, 2150]) {
                await new Promise((resume) => setTimeout(resume, wait));
                statuses.push(await Promise.all([get(), get(), get()]).then((all) => all.join(","), (error) => error.message));
              }
              console.log(statuses.join(" "));`;
            const node = Bun.spawn(["node", "--input-type=module", "-e", script, `${server.url}/pets`], { stdout: "pipe", stderr: "pipe" });
            expect((await new Response(node.stdout).text()).trim()).toBe(Array(6).fill("200,200,200").join(" "));
          } finally {
            await server.stop("SIGKILL");
          }
        }, 30_000);
      }
    }

    test(`a chunked body that never ends is answered 413 and ${READS_ON_AFTER_413.has(runtime) ? "read on by the server (docs/decisions.md)" : "its connection closed"}`, async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY });
      try {
        const result = await chunkedUpload(server.url, 8 * 2 ** 20, false);
        expect(result.status).toBe(413);
        expect(result.closed).toBe(!READS_ON_AFTER_413.has(runtime));
      } finally {
        await server.stop("SIGKILL");
      }
    }, 20_000);

    test("twenty clients at once, each uploading 8 MiB in chunks (far over the limit): every one reads its 413", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY });
      try {
        const results = await Promise.all(Array.from({ length: 20 }, () => chunkedUpload(server.url, 8 * 2 ** 20, true)));
        // What a client read: its 413, or nothing where a reset took it.
        expect(results.map((result) => result.status ?? "reset")).toEqual(Array(20).fill(413));
        expect(await loggedStatuses(server, "POST /v1/pets", 20)).toEqual(Array(20).fill(413));
      } finally {
        await server.stop("SIGKILL");
      }
    }, 30_000);

    for (const framing of ["chunked", "length"] as const) {
      test(`a client reading nothing until it has sent its whole 8 MiB upload ${framing === "chunked" ? "in chunks" : "with a Content-Length"} (far over the limit) reads its 413`, async () => {
        const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY });
        try {
          const result = await chunkedUpload(server.url, 8 * 2 ** 20, true, true, framing);
          expect(result.status ?? "reset").toBe(413);
          expect(await loggedStatuses(server, "POST /v1/pets", 1)).toEqual([413]);
        } finally {
          await server.stop("SIGKILL");
        }
      }, 20_000);
    }

    test("twenty clients at once, each uploading 8 MiB with a Content-Length (far over the limit): every one reads its 413", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY });
      try {
        const body = "a".repeat(8 * 2 ** 20);
        const head = `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`;
        const results = await Promise.all(Array.from({ length: 20 }, () => rawExchange(server.url, [head + body], { untilAnswered: true, timeoutMs: 10_000 })));
        expect(results.map((result) => result.status)).toEqual(Array(20).fill(413));
      } finally {
        await server.stop("SIGKILL");
      }
    }, 30_000);

    test(`a 304 ${DROPS_304_LENGTH.has(runtime) ? "loses" : "keeps"} the 200's Content-Length`, async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY });
      try {
        await fetch(`${server.url}/pets`, { method: "POST", headers: JSON_AUTH, body: '{"name":"Rex","categoryId":1}' });
        const first = await fetch(`${server.url}/pets/1`, { headers: AUTH });
        const length = String((await first.arrayBuffer()).byteLength);
        const again = await fetch(`${server.url}/pets/1`, { headers: { ...AUTH, "if-none-match": first.headers.get("etag")! } });
        expect(again.status).toBe(304);
        expect(again.headers.get("content-length")).toBe(DROPS_304_LENGTH.has(runtime) ? null : length);
      } finally {
        await server.stop("SIGKILL");
      }
    }, 20_000);

    test("with PUBLIC_URL, Location and Link name it whatever Host the client sent", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY, PUBLIC_URL: "https://pets.example/api" });
      try {
        const created = await fetch(`${server.url}/pets`, { method: "POST", headers: { ...JSON_AUTH, host: "evil.example" }, body: '{"name":"Rex","categoryId":1}' });
        expect(created.headers.get("location")).toBe("https://pets.example/api/v1/pets/1");
      } finally {
        await server.stop("SIGKILL");
      }
    }, 20_000);

    test("with TRUST_PROXY=x-forwarded, Location follows X-Forwarded-Proto and X-Forwarded-Host", async () => {
      const server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY, TRUST_PROXY: "x-forwarded" });
      try {
        const headers = { ...JSON_AUTH, "x-forwarded-proto": "https", "x-forwarded-host": "pets.example" };
        const created = await fetch(`${server.url}/pets`, { method: "POST", headers, body: '{"name":"Rex","categoryId":1}' });
        expect(created.headers.get("location")).toBe("https://pets.example/v1/pets/1");
      } finally {
        await server.stop("SIGKILL");
      }
    }, 20_000);

    test("SIGTERM under the load of 100 keep-alive clients, three times: every request is answered or refused, the store closes, exit 0", async () => {
      for (let round = 0; round < 3; round++) {
        const dataFile = tempDataFile();
        await using server = await startServer(runtime, { STORE: "file", DATA_FILE: dataFile, API_KEYS: KEY });
        const { outcomes, acknowledged, stopped } = await stopUnderLoad(server, 100);
        expect(stopped.code).toBe(0);
        // Before the 10 s grace (past it, the exit code is 1), with room for a busy machine.
        expect(stopped.afterMs).toBeLessThan(9000);
        expect(server.output()).toContain("stopped");
        // An answer, a 503 on a connection already open, or a refused new connection: never a reset.
        expect([...outcomes.keys()].filter((outcome) => !["201", "503", "ConnectionRefused", "ECONNREFUSED"].includes(outcome))).toEqual([]);
        const restarted = await startServer(runtime, { STORE: "file", DATA_FILE: dataFile, API_KEYS: KEY });
        try {
          for (const id of acknowledged.slice(-20)) expect((await fetch(`${restarted.url}/pets/${id}`, { headers: AUTH })).status).toBe(200);
        } finally {
          await restarted.stop("SIGKILL");
        }
      }
    }, 60_000);

    test("a server stalled in its graceful stop for longer than its quiet time (SIGSTOP, as a busy machine deschedules it) reads what came in the stall before it stops listening: a request sent then on a kept-alive connection or a new one is answered 503", async () => {
      const create = (name: string) => {
        const body = `{"name":"${name}","categoryId":1}`;
        return `POST /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`;
      };
      // A stop that ends before the stall begins (a slow test on a busy machine) shows nothing: it is tried again.
      for (let attempt = 1; ; attempt++) {
        await using server = await startServer(runtime, { STORE: "memory", API_KEYS: KEY, LOG: "off" });
        // A create whose body has not come: in flight when the stop begins, it keeps the server listening.
        const slow = rawConnection(server.url);
        const slowCreate = create("Slow");
        await slow.connected;
        slow.socket.write(slowCreate.slice(0, -5));
        const kept = rawConnection(server.url);
        await kept.connected;
        kept.socket.write(`GET /v1/pets HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ${KEY}\r\n\r\n`);
        await until("the kept connection's first answer", () => answers(kept.text()).length === 1);
        server.signal("SIGTERM");
        await Bun.sleep(200);
        slow.socket.write(slowCreate.slice(-5));
        await until("the slow create's answer", () => answers(slow.text()).length === 1);
        // Answered with `Connection: close`: the stop had begun, and the server stops listening once it has heard nothing for its quiet time.
        const stopping = answers(slow.text())[0]!.closes;
        server.signal("SIGSTOP");
        const fresh = rawConnection(server.url);
        const listening = stopping && (await fresh.connected) && !kept.closed();
        if (listening) {
          kept.socket.write(create("Kept"));
          fresh.socket.write(create("Fresh"));
        }
        await Bun.sleep(600);
        server.signal("SIGCONT");
        expect(await server.exited).toBe(0);
        if (!listening && attempt < 3) continue;
        await until("both connections closed", () => kept.closed() && fresh.closed());
        expect({ kept: answers(kept.text()).map((answer) => answer.status), fresh: answers(fresh.text()).map((answer) => answer.status) }).toEqual({ kept: [200, 503], fresh: [503] });
        return;
      }
    }, 60_000);

    test("SIGTERM under keep-alive create load, each client reconnecting at once after every Connection: close until refused, twice: every answer is 201 or 503, exit 0, and the pets stored are exactly those acknowledged", async () => {
      for (let round = 0; round < 2; round++) {
        const dataFile = tempDataFile();
        await using server = await startServer(runtime, { STORE: "file", DATA_FILE: dataFile, API_KEYS: KEY, LOG: "off" });
        const load = keptAliveCreates(server.url, 100, KEY);
        // Under way: about three creates per client answered on its kept-alive connection.
        for (const started = Date.now(); load.answers() < 300 && Date.now() - started < 15_000; ) await Bun.sleep(10);
        const code = await server.stop("SIGTERM");
        await load.done;
        const { answered, refused, lost, acknowledged } = load.tally;
        // A request lost to a reset is not counted: a client stalled past the quiet time on a busy machine
        // sends on a connection the server is closing (RFC 9112 §9.6), and the server never read it. One the
        // server read and stored unanswered would be stored and not acknowledged; one it read in a stall is
        // the test above's.
        expect({ code, statuses: [...answered.keys()].sort(), everyClientEnded: refused + lost }).toEqual({ code: 0, statuses: [201, 503], everyClientEnded: 100 });
        expect(await storedIds(dataFile)).toEqual(acknowledged.toSorted((a, b) => a - b));
      }
    }, 60_000);
  });
}

/** What clients saw when the server was stopped under their load. */
interface LoadOutcome {
  /** How many requests ended each way: a status, or the error code of a request that got no answer. */
  readonly outcomes: Map<string, number>;
  /** The ids of the pets answered 201. */
  readonly acknowledged: number[];
  /** The server's exit code, and how long after SIGTERM it exited. */
  readonly stopped: { readonly code: number; readonly afterMs: number };
}

/**
 * Runs `clients` keep-alive clients creating pets, each until the server turns it away (as a client
 * that retries later would), and sends SIGTERM 0.7 s in.
 */
async function stopUnderLoad(server: ServerProcess, clients: number): Promise<LoadOutcome> {
  const acknowledged: number[] = [];
  const outcomes = new Map<string, number>();
  const count = (outcome: string) => outcomes.set(outcome, (outcomes.get(outcome) ?? 0) + 1);
  const client = async (n: number) => {
    for (let i = 0; ; i++) {
      try {
        const response = await fetch(`${server.url}/pets`, { method: "POST", headers: JSON_AUTH, body: `{"name":"c${n}-${i}","categoryId":${n}}` });
        count(String(response.status));
        if (response.status !== 201) return void (await response.arrayBuffer());
        acknowledged.push(((await response.json()) as Pet).id);
      } catch (error) {
        return void count((error as { code?: string }).code ?? String(error));
      }
    }
  };
  const running = Array.from({ length: clients }, (_, n) => client(n));
  await Bun.sleep(700);
  const started = Date.now();
  const code = await server.stop("SIGTERM");
  const afterMs = Date.now() - started;
  await Promise.all(running);
  return { outcomes, acknowledged, stopped: { code, afterMs } };
}

/** The value `attempt` gives once it stops throwing, trying until `timeoutMs` has passed. */
async function eventually<T>(attempt: () => Promise<T>, timeoutMs: number): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      return await attempt();
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await Bun.sleep(200);
    }
  }
}
