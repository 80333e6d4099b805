/**
 * @module
 * Every nginx configuration the docs print, run as printed with Debian's nginx (`nginx-light`, which
 * `.ci/run` installs) in front of real servers, only its loopback addresses moved to free ports: a
 * client forging every forwarding header with every request neither escapes the rate limit nor
 * moves a link. The servers get the `TRUST_PROXY` the configuration's comment names and the
 * `PUBLIC_URL` the page sets.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import type { Subprocess } from "bun";
import type { ServerProcess } from "./server-process.ts";
import { captureOutput } from "./output.ts";
import { startServer } from "./server-process.ts";
import { tempFolder } from "./temp.ts";

const NGINX = "/usr/sbin/nginx";
const KEY = "proxy-snippet-key";

/** Each ```nginx block of a page under docs/, with the TRUST_PROXY its comment names and the page's PUBLIC_URL. */
interface Snippet {
  readonly page: string;
  readonly config: string;
  readonly env: Readonly<Record<string, string>>;
}

const SNIPPETS: readonly Snippet[] = readdirSync("docs").filter((name) => name.endsWith(".md")).sort().flatMap((name) => {
  const page = `docs/${name}`;
  const text = readFileSync(page, "utf8");
  const publicUrl = /\bPUBLIC_URL=([^\s`]+)/.exec(text)?.[1];
  return [...text.matchAll(/```nginx\n([\s\S]*?)```/g)].map((match) => {
    const trustProxy = /\bTRUST_PROXY=([a-z-]+)/.exec(match[1]!)?.[1];
    const env = { ...(trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy }), ...(publicUrl === undefined ? {} : { PUBLIC_URL: publicUrl }) };
    return { page, config: match[1]!, env };
  });
});

/** A port free a moment ago. */
function freePort(): number {
  const listener = Bun.listen({ hostname: "127.0.0.1", port: 0, socket: { data() {} } });
  const { port } = listener;
  listener.stop(true);
  return port;
}

/** The snippet inside the least nginx needs to run it as this user, from `folder`. */
function wholeConfig(snippet: string, folder: string): string {
  const paths = ["client_body", "proxy", "fastcgi", "uwsgi", "scgi"].map((kind) => `  ${kind}_temp_path ${folder}/${kind};`);
  return [
    "daemon off;",
    "master_process off;",
    `pid ${folder}/nginx.pid;`,
    "events { worker_connections 64; }",
    "http {",
    "  access_log off;",
    ...paths,
    snippet,
    "}",
  ].join("\n");
}

const nginxes = new Set<Subprocess>();
afterAll(() => {
  for (const nginx of nginxes) nginx.kill("SIGKILL");
});

/** Runs nginx with `config` until its listener answers; `undefined` if it could not bind (a port taken meanwhile). */
async function startNginx(config: string, port: number): Promise<Subprocess | undefined> {
  const folder = resolve(tempFolder());
  writeFileSync(join(folder, "nginx.conf"), wholeConfig(config, folder));
  const nginx = Bun.spawn([NGINX, "-p", folder, "-c", join(folder, "nginx.conf"), "-e", "stderr"], { stdout: "pipe", stderr: "pipe" });
  nginxes.add(nginx);
  const output = captureOutput(nginx);
  const deadline = Date.now() + 10_000;
  for (;;) {
    if (nginx.exitCode !== null) {
      if (output().includes("Address already in use")) return undefined;
      throw new Error(`nginx exited ${nginx.exitCode}:\n${output()}`);
    }
    const answered = await fetch(`http://127.0.0.1:${port}/health`).then((response) => response.status, () => undefined);
    if (answered !== undefined) return nginx;
    if (Date.now() > deadline) throw new Error(`nginx did not answer on ${port} in 10 s:\n${output()}`);
    await Bun.sleep(50);
  }
}

/** A loopback address as a client might forge it. */
function randomAddress(): string {
  return `198.51.${Math.floor(Math.random() * 256)}.${1 + Math.floor(Math.random() * 254)}`;
}

describe("the docs' nginx configurations, run with real nginx", () => {
  test("the pages that print an nginx configuration are the ones tested here", () => {
    expect(SNIPPETS.map((snippet) => [snippet.page, snippet.env["TRUST_PROXY"]])).toEqual([["docs/operating.md", "x-forwarded"], ["docs/operating.md", "forwarded"], ["docs/stores.md", "x-forwarded"]]);
  });

  test.each(SNIPPETS.map((snippet) => [snippet.page, snippet.env["TRUST_PROXY"], snippet] as const))("%s, TRUST_PROXY=%s: forged forwarding headers move neither the rate-limit address nor a link", async (_page, _trusted, snippet) => {
    if (!existsSync(NGINX)) throw new Error(`nginx is not installed (${NGINX}): the docs' nginx configurations run with Debian's nginx-light; install it with: apt-get install nginx-light`);
    expect(snippet.env["TRUST_PROXY"]).toBeDefined();
    const printed = [...new Set([...snippet.config.matchAll(/127\.0\.0\.1:(\d+)/g)].map((match) => match[1]!))];
    const listen = /listen 127\.0\.0\.1:(\d+);/.exec(snippet.config)?.[1];
    const upstreams = printed.filter((port) => port !== listen);
    expect({ listen: listen !== undefined, upstreams: upstreams.length > 0 }).toEqual({ listen: true, upstreams: true });
    const servers: ServerProcess[] = [];
    let nginx: Subprocess | undefined;
    try {
      const moved = new Map<string, string>();
      for (const port of upstreams) {
        const server = await startServer("bun", { STORE: "memory", API_KEYS: KEY, RATE_LIMIT: "2/h", LOG: "off", ...snippet.env });
        servers.push(server);
        moved.set(port, new URL(server.url).port);
      }
      let proxyPort = 0;
      for (let attempt = 0; nginx === undefined && attempt < 5; attempt++) {
        proxyPort = freePort();
        moved.set(listen!, String(proxyPort));
        const config = snippet.config.replace(/127\.0\.0\.1:(\d+)/g, (_all, port: string) => `127.0.0.1:${moved.get(port)}`);
        nginx = await startNginx(config, proxyPort);
      }
      const base = `http://127.0.0.1:${proxyPort}/v1`;
      const statuses: number[] = [];
      for (let i = 0; i < 40; i++) {
        // nginx copies Host into what it forwards: this one would add a pair to a Forwarded element, quoted or not.
        const forged = { forwarded: `for=${randomAddress()};host=evil.example;proto=https`, "x-forwarded-for": randomAddress(), "x-forwarded-host": "evil.example", "x-forwarded-proto": "https", host: `a.example";for=${randomAddress()};x="` };
        statuses.push((await fetch(`${base}/pets`, { headers: forged })).status);
      }
      // Each instance lets one address 2 requests an hour: after at most 2 per instance, 429. Before
      // that, 401 (no key), or 400 where the proxy passes the forged Host on as Host (`Host $host`).
      const allowed = 2 * servers.length;
      const firstRefused = statuses.indexOf(429);
      const notAsCounted = [...statuses.slice(0, firstRefused).filter((status) => status !== 401 && status !== 400), ...statuses.slice(firstRefused).filter((status) => status !== 429)];
      expect({ firstRefused, notAsCounted }).toEqual({ firstRefused: allowed, notAsCounted: [] });

      const created = await fetch(`${base}/pets`, {
        method: "POST",
        headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json", forwarded: "host=evil.example;proto=https", "x-forwarded-host": "evil.example", "x-forwarded-proto": "https" },
        body: '{"name":"Rex","categoryId":1}',
      });
      const location = created.headers.get("location") ?? "none";
      // Links start where the page's PUBLIC_URL says (as printed), else at the proxy's address.
      const expected = snippet.env["PUBLIC_URL"] === undefined ? `${base}/pets/` : `${snippet.env["PUBLIC_URL"]}/v1/pets/`;
      expect({ status: created.status, location: location.slice(0, expected.length) }).toEqual({ status: 201, location: expected });
    } finally {
      nginx?.kill("SIGTERM");
      await nginx?.exited;
      await Promise.all(servers.map((server) => server.stop("SIGKILL")));
    }
  }, 60_000);
});
