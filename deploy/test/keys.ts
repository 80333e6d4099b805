/**
 * @module
 * docs/operating.md's "API keys" in a container and in the compose stack, run as printed with Docker
 * (issue 50): the key file given to one container as a bind mount and to the stack's instances as a
 * Compose secret, a read-only key added while they serve and then revoked, and in the stack the
 * clients' key rotated with an overlap, each time read again on `docker kill -s HUP` (`docker compose
 * kill -s HUP`), with no restart. `run.ts` calls these two steps
 * after its own container and stack checks; `removeKeyFiles` removes what the page's commands made.
 */
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { waitFor } from "../../test/checks.ts";
import type { Engine } from "./engine.ts";
import { blocks, ROOT, runPrinted } from "./page.ts";

/** The files the page's commands make under deploy/. */
const MADE = ["deploy/api-keys", "deploy/api-keys.new", "deploy/reports.key", "deploy/dashboard.key", "deploy/clients-2.key"];
/** The key the page's commands give the shop's (and the stack's clients') key. */
const KEY = "change-me";

type Check = (name: string, body: () => Promise<void> | void) => Promise<void>;

/** The `sh` blocks under `heading` of docs/operating.md, up to the next heading. */
function operatingBlocks(heading: string): string[] {
  const page = readFileSync(join(ROOT, "docs", "operating.md"), "utf8");
  const start = page.indexOf(`\n### ${heading}\n`);
  if (start < 0) throw new Error(`docs/operating.md has no heading "${heading}"`);
  const rest = page.slice(start + heading.length + 6);
  return blocks(rest.slice(0, rest.search(/^#+ /m)));
}

/** The status of a request to `url` with `key`, retried until it is `status` (a reload has landed), at most 20 s. */
async function answers(url: string, key: string, status: number, init: RequestInit = {}): Promise<void> {
  await waitFor(`${init.method ?? "GET"} ${url} with ${key === KEY ? "the first key" : "a key the page made"} to answer ${status}`, async () => {
    const answer = await fetch(url, { ...init, headers: { authorization: `Bearer ${key}`, "content-type": "application/json" } }).catch(() => undefined);
    return answer?.status === status ? true : undefined;
  }, 20_000);
}

/** The read-only key a part of the page made, from the file it wrote. */
const keyIn = (file: string) => readFileSync(join(ROOT, "deploy", file), "utf8").trim();
const CREATE = { method: "POST", body: '{"name":"Rex","categoryId":1}' };

/** The container part: the key file as a bind mount, a read-only key added and revoked by `docker kill -s HUP`. */
export async function containerKeys(docker: Engine, check: Check): Promise<void> {
  const [start, add, revoke, remove] = operatingBlocks("In a container");
  const base = "http://127.0.0.1:8080/v1";
  try {
    await check("docker: docs/operating.md's key file in a container, as printed: a bind mount of the image's user's file, API_KEYS_FILE", async () => {
      runPrinted(start!, docker.env);
      await answers(`${base}/pets`, KEY, 200);
    });
    await check("docker: a read-only key added while it serves works after docker kill -s HUP, and is refused a create", async () => {
      runPrinted(add!, docker.env);
      await answers(`${base}/pets`, keyIn("reports.key"), 200);
      await answers(`${base}/pets`, keyIn("reports.key"), 403, CREATE);
    });
    await check("docker: the key revoked by rewriting the file in place and docker kill -s HUP: 401, the shop's key still 200, the names in its log", async () => {
      runPrinted(revoke!, docker.env);
      await answers(`${base}/pets`, keyIn("reports.key"), 401);
      await answers(`${base}/pets`, KEY, 200);
      const logs = docker.logs("pets");
      for (const line of [/ 200 \d+ [\d.]+ms keyName=reports$/m, / 403 \d+ [\d.]+ms keyName=reports$/m, /^reloaded API_KEYS_FILE "\/run\/secrets\/api_keys": 0 added, 1 removed, 1 kept/m]) {
        if (!line.test(logs)) throw new Error(`no line matching ${line} in the container's log:\n${logs}`);
      }
    });
  } finally {
    runPrinted(remove!, docker.env);
  }
}

/** The stack part: the Compose secret read again on both instances by one `kill -s HUP`. */
export async function stackKeys(docker: Engine, compose: string, check: Check): Promise<void> {
  const [add, rotate, revoke] = operatingBlocks("In the compose stack").map((block) => block.replaceAll("docker compose ", `${compose} `));
  const storeLog = () => runPrinted(`${compose} -p animal-store -f deploy/compose.yaml logs store-1`, docker.env);
  const instances = ["http://127.0.0.1:8081/v1", "http://127.0.0.1:8082/v1"];
  await check(`docker: docs/operating.md's compose key steps, as printed (${compose}): a read-only key in the Compose secret works on both instances after one kill -s HUP`, async () => {
    runPrinted(add!, docker.env);
    for (const base of instances) {
      await answers(`${base}/pets`, keyIn("dashboard.key"), 200);
      await answers(`${base}/pets`, keyIn("dashboard.key"), 403, CREATE);
    }
    const logs = storeLog();
    if (!logs.includes('reloaded API_KEYS_FILE "/run/secrets/api_keys": 1 added, 0 removed, 1 kept (0 of them changed)')) throw new Error(`store-1 printed no reload line:\n${logs}`);
  });
  await check("docker: the clients' key rotated with an overlap in the Compose secret, in place, and one kill -s HUP: the old and the new key both work on both instances, named in the log", async () => {
    runPrinted(rotate!, docker.env);
    for (const base of instances) {
      await answers(`${base}/pets`, keyIn("clients-2.key"), 200);
      await answers(`${base}/pets`, KEY, 200);
    }
    const logs = storeLog();
    for (const line of [/reloaded API_KEYS_FILE "\/run\/secrets\/api_keys": 1 added, 0 removed, 2 kept \(1 of them changed\)$/m, / 200 \d+ [\d.]+ms keyName=clients-2$/m, / 200 \d+ [\d.]+ms keyName=clients$/m]) {
      if (!line.test(logs)) throw new Error(`no line matching ${line} in store-1's log:\n${logs}`);
    }
  });
  await check("docker: revoked in the Compose secret, in place, and one kill -s HUP: 401 on both instances, the clients' keys still 200", async () => {
    runPrinted(revoke!, docker.env);
    for (const base of instances) {
      await answers(`${base}/pets`, keyIn("dashboard.key"), 401);
      await answers(`${base}/pets`, KEY, 200);
      await answers(`${base}/pets`, keyIn("clients-2.key"), 200);
    }
    if (!/reloaded API_KEYS_FILE "\/run\/secrets\/api_keys": 0 added, 1 removed, 2 kept \(0 of them changed\)$/m.test(storeLog())) throw new Error(`store-1 printed no reload line for the revocation:\n${storeLog()}`);
  });
}

/** Removes what the page's commands made under deploy/. */
export function removeKeyFiles(): void {
  for (const path of MADE) rmSync(join(ROOT, path), { force: true });
}
