/**
 * @module
 * Finding a request's API key, in-process, on Bun, Deno and Node (issue 50): the ways to a synchronous
 * SHA-256 of a 43-character token (the one written out in `src/api-keys/_sha256.ts`, `crypto.subtle`,
 * which is asynchronous, and the runtimes' own, which an adapter would have to hand the core), then the
 * ring's lookup with 1 and with 100,000 keys, against comparing the token with every key in constant
 * time as the core did before. Prints nanoseconds per operation, the median of 5 rounds.
 *
 *   bun bench/key-lookup.ts            (runs itself on each runtime: Bun, Deno, and `node` on the PATH)
 */
import { createHash, randomBytes } from "node:crypto";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { createKeyRing } from "../src/mod.ts";
import { sha256, sha256Scratch } from "../src/api-keys/_sha256.ts";

const ROUNDS = 5;
const TOKENS = Array.from({ length: 1024 }, () => randomBytes(32).toString("base64url"));
const HEADERS = TOKENS.map((token) => `Bearer ${token}`);

/** The median nanoseconds per call of `work` over `count` calls, once warmed. */
function perCall(count: number, work: (i: number) => number): number {
  let sink = 0;
  for (let i = 0; i < count; i++) sink ^= work(i);
  const rounds: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    const started = performance.now();
    for (let i = 0; i < count; i++) sink ^= work(i);
    rounds.push(((performance.now() - started) * 1e6) / count);
  }
  if (sink === 0.5) console.log(sink);
  return rounds.sort((a, b) => a - b)[ROUNDS >> 1]!;
}

/** The same for an asynchronous `work`, awaited one call at a time, as a request would. */
async function perAwaitedCall(count: number, work: (i: number) => Promise<number>): Promise<number> {
  const rounds: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const started = performance.now();
    for (let i = 0; i < count; i++) await work(i);
    if (round > 0) rounds.push(((performance.now() - started) * 1e6) / count);
  }
  return rounds.sort((a, b) => a - b)[ROUNDS >> 1]!;
}

/** The core's check before issue 50: the bearer token read with a regular expression, then compared with every key over the key's whole length. */
function everyKeyChecker(keys: readonly string[]): (authorization: string | null) => boolean {
  const bearer = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;
  return (authorization) => {
    const token = authorization === null ? undefined : bearer.exec(authorization)?.[1];
    if (token === undefined) return false;
    let matched = false;
    for (const key of keys) {
      let difference = token.length ^ key.length;
      for (let i = 0; i < key.length; i++) difference |= key.charCodeAt(i) ^ (token.charCodeAt(i) | 0);
      matched = difference === 0 || matched;
    }
    return matched;
  };
}

/** The median nanoseconds per request of `check`, each round on requests never seen (made beforehand, a round at a time). */
function perRequest(count: number, tokens: number, check: (request: Request) => boolean): number {
  const rounds: number[] = [];
  for (let round = 0; round <= ROUNDS; round++) {
    const requests = Array.from({ length: count }, (_, i) => new Request("http://x/v1/pets", { headers: { authorization: HEADERS[i % tokens]! } }));
    let valid = 0;
    const started = performance.now();
    for (const request of requests) valid += check(request) ? 1 : 0;
    if (valid !== count) throw new Error(`only ${valid} of ${count} requests carried a valid key`);
    if (round > 0) rounds.push(((performance.now() - started) * 1e6) / count);
  }
  return rounds.sort((a, b) => a - b)[ROUNDS >> 1]!;
}

async function measure(): Promise<Record<string, number>> {
  const scratch = sha256Scratch();
  const results: Record<string, number> = {};
  results["SHA-256 written out (src/api-keys/_sha256.ts)"] = perCall(500_000, (i) => (sha256(HEADERS[i & 1023]!, 7, HEADERS[i & 1023]!.length, scratch), scratch.digest[0]!));
  const encoder = new TextEncoder();
  results["crypto.subtle.digest, awaited"] = await perAwaitedCall(20_000, async (i) => new Uint8Array(await crypto.subtle.digest("SHA-256", encoder.encode(TOKENS[i & 1023]!)))[0]!);
  results["node:crypto createHash"] = perCall(200_000, (i) => createHash("sha256").update(TOKENS[i & 1023]!).digest()[0]!);
  const bun = (globalThis as { Bun?: { SHA256: { hash(text: string): Uint8Array } } }).Bun;
  if (bun !== undefined) results["Bun.SHA256.hash"] = perCall(500_000, (i) => bun.SHA256.hash(HEADERS[i & 1023]!.slice(7))[0]!);
  // The default configuration's one key, given as itself: compared with the token, not hashed (`COMPARED_AT_MOST`).
  const plainRing = createKeyRing([TOKENS[0]!]);
  results["the key ring (now), 1 key given as itself (API_KEYS): keyOf(request)"] = perRequest(50_000, 1, (request) => plainRing.keyOf(request).outcome === "valid");
  for (const size of [1, 100_000]) {
    // Keys given as their SHA-256, as a key file holds them. The first keys are the tokens sent, so
    // every request carries a valid one; the rest are other keys.
    const tokens = Math.min(size, 1024);
    const ring = createKeyRing(Array.from({ length: size }, (_, i) => ({ name: `client-${i}`, key: `sha256:${createHash("sha256").update(i < 1024 ? TOKENS[i]! : `other-${i}`).digest("hex")}` })));
    const keys = `${size.toLocaleString("en-US")} key${size === 1 ? "" : "s"}`;
    results[`the key ring (now), ${keys} given as ${size === 1 ? "its hash" : "hashes"} (API_KEYS_FILE): keyOf(request)`] = perRequest(50_000, tokens, (request) => ring.keyOf(request).outcome === "valid");
    const check = everyKeyChecker(Array.from({ length: size }, (_, i) => (i < 1024 ? TOKENS[i]! : `other-key-${i}`)));
    results[`every key compared (before), ${keys}`] = perRequest(size === 1 ? 50_000 : 100, tokens, (request) => check(request.headers.get("authorization")));
  }
  return results;
}

if (process.env["KEY_LOOKUP_CHILD"] === "1") {
  console.log(JSON.stringify(await measure()));
} else {
  const bin = join(import.meta.dir, "..", "node_modules", ".bin");
  const runtimes: [string, string[]][] = [
    ["Bun", [join(bin, "bun"), import.meta.path]],
    ["Deno", [join(bin, "deno"), "run", "--allow-env", "--allow-read", import.meta.path]],
    // Through the loader `npm run start:node` uses, so Node runs the sources as users run them.
    ["Node", ["node", "--import", pathToFileURL(join(import.meta.dir, "..", "adapters", "server", "_ts-loader.mjs")).href, import.meta.path]],
  ];
  const versions: string[] = [];
  const table = new Map<string, string[]>();
  for (const [name, argv] of runtimes) {
    const run = Bun.spawnSync(argv, { env: { ...process.env, KEY_LOOKUP_CHILD: "1" }, stdout: "pipe", stderr: "inherit" });
    const version = Bun.spawnSync(name === "Node" ? ["node", "--version"] : [argv[0]!, "--version"]).stdout.toString().split("\n")[0]!.trim();
    versions.push(`${name} ${version}`);
    for (const [label, ns] of Object.entries(JSON.parse(run.stdout.toString()) as Record<string, number>)) {
      table.set(label, [...(table.get(label) ?? []), ns >= 100_000 ? `${(ns / 1e6).toFixed(2)} ms` : `${Math.round(ns)} ns`]);
    }
  }
  console.log(`${versions.join(", ")}; median of ${ROUNDS} rounds, per call`);
  console.log("| | Bun | Deno | Node |\n|---|---|---|---|");
  for (const [label, cells] of table) console.log(`| ${label} | ${[...cells, "–", "–", "–"].slice(0, 3).join(" | ")} |`);
}
