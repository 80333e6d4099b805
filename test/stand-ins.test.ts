import { expect, test } from "bun:test";
import { join } from "node:path";
import { useEveryMember } from "./fixtures/headers-members.ts";
import { FETCH_DEFAULTS, useEveryMember as useEveryRequestMember, useRequest } from "./fixtures/request-members.ts";
import { StandInAnswer, standInRequest } from "./fixtures/node-stand-ins.ts";
import { FastResponse } from "../adapters/node.ts";

/** The in-process suites that go through `helpers.ts`, and so through the stand-ins when asked to. */
const SUITES = ["auth", "create-pet", "get-pet", "list-pets", "routing", "etag", "idempotency", "public-origin", "route-headers", "access-log", "health"];

test("the in-process suites pass with Node's stand-ins alone: the lazy request in, FastResponse out", () => {
  const run = Bun.spawnSync([process.execPath, "test", "--preload", "./test/fixtures/node-stand-ins.ts", ...SUITES.map((name) => `test/${name}.test.ts`)], {
    cwd: join(import.meta.dir, ".."),
    env: { ...process.env, STAND_INS: "node" },
    stdout: "pipe",
    stderr: "pipe",
  });
  const output = run.stdout.toString() + run.stderr.toString();
  const failures = output.split("\n").filter((line) => line.startsWith("(fail)"));
  expect(failures).toEqual([]);
  expect(output).toMatch(/\n\s*0 fail\n/);
  expect(run.exitCode).toBe(0);
}, 120_000);

test("the lazy request's headers answer every Headers member as a real Headers of the same lines does", async () => {
  const lines: [string, string][] = [["Accept", "*/*"], ["X-Multi", "a"], ["x-multi", "b"], ["Set-Cookie", "s=1"], ["Set-Cookie", "t=2"], ["X-Gone", "1"]];
  const request = await standInRequest("http://pets.test/v1/pets", { headers: lines });
  const real = new Headers(lines);
  real.set("host", "pets.test");
  expect(useEveryMember(request.headers)).toEqual(useEveryMember(real));
});

test("the lazy request's headers given to a FastResponse as its headers are its headers, as a real Headers would be", async () => {
  const request = await standInRequest("http://pets.test/v1/pets", { headers: [["X-Echo", "a"]] });
  const answer = new FastResponse("echoed", { headers: request.headers });
  expect([answer.headers.get("x-echo"), answer.toNodeParts()?.headers["x-echo"]]).toEqual(["a", "a"]);
});

/** A create's body, with a `Content-Length` or as a stream (chunked). */
const CREATE = '{"name":"Rex","categoryId":1}';
const createInit = (framing: string): RequestInit => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: framing === "chunked" ? new Blob([CREATE]).stream() : CREATE,
});

/** The app's part: reads the body whole, as the core does, answering 400 when it cannot. */
const readAndCreate = (request: Request) => request.arrayBuffer().then(() => new Response(null, { status: 201 }), () => new Response(null, { status: 400 }));

test.each(["Content-Length", "chunked"])("the lazy request's members give what a real Request's do: the body read each way on clones, read once, a clone kept before still readable (%s)", async (framing) => {
  const lazy = await standInRequest("http://pets.test/v1/pets", createInit(framing));
  const { fixed, ...used } = await useEveryRequestMember(lazy, readAndCreate);
  const { fixed: _, ...real } = await useEveryRequestMember(new Request("http://pets.test/v1/pets", createInit(framing)), readAndCreate);
  expect(fixed).toEqual(FETCH_DEFAULTS);
  // A blob's type is the runtime's (Bun's request gives none, its response the type with a charset), and
  // so are the members a runtime adds (Bun's textStream): test/request-members.test.ts holds both where
  // the lazy request runs, on Node and Deno.
  const runtimeFree = (use: Record<string, unknown>) => ({ ...use, before: { ...(use["before"] as object), missing: undefined }, read: { ...(use["read"] as object), blob: undefined } });
  expect(runtimeFree(used)).toEqual(runtimeFree(real));
});

test.each(["Content-Length", "chunked"])("the lazy request's body partly read through its stream is used, as a real Request's is (%s)", async (framing) => {
  const init = () => ({ ...createInit(framing), headers: { "content-type": "application/json", "x-use": "part" } });
  const { fixed, ...used } = await useRequest(await standInRequest("http://pets.test/v1/pets", init()), readAndCreate);
  const { fixed: _, ...real } = await useRequest(new Request("http://pets.test/v1/pets", init()), readAndCreate);
  expect(used).toEqual(real);
  expect(used).toMatchObject({ bodyUsed: true, text: { threw: "TypeError" }, clone: { threw: "TypeError" } });
});

test("the lazy request's signal aborts when the connection closes before the answer was sent, also when first asked after, and not once it was sent", async () => {
  const signalAfter = async (answered: boolean, askFirst: boolean) => {
    const answer = new StandInAnswer();
    const request = await standInRequest("http://pets.test/v1/pets", {}, answer);
    const early = askFirst ? request.signal : undefined;
    answer.close(answered);
    return [early?.aborted ?? "not asked", request.signal.aborted, (request.signal.reason as Error | undefined)?.name ?? null];
  };
  expect(await signalAfter(false, true)).toEqual([true, true, "AbortError"]);
  expect(await signalAfter(false, false)).toEqual(["not asked", true, "AbortError"]);
  expect(await signalAfter(true, true)).toEqual([false, false, null]);
});

test("the lazy request of a GET or HEAD has no body, whatever it sends, as Bun's and Deno's have none", async () => {
  for (const method of ["GET", "HEAD"]) {
    const request = await standInRequest("http://pets.test/v1/pets", { method, headers: { "content-length": "3" }, body: "abc" });
    expect([request.body, await request.text(), request.bodyUsed]).toEqual([null, "", false]);
  }
});

test("a clone of the lazy request of a TRACE, a method Node's Request refuses, is a TRACE with the body sent, and so is its clone", async () => {
  const request = await standInRequest("http://pets.test/v1/pets", { method: "TRACE", body: "abc" });
  const copy = request.clone();
  const again = copy.clone();
  expect([copy instanceof Request, copy.method, again.method, copy.headers.get("content-length")]).toEqual([true, "TRACE", "TRACE", "3"]);
  expect([await again.text(), await copy.text(), await request.text()]).toEqual(["abc", "abc", "abc"]);
});
