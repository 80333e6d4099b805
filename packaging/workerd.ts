/**
 * @module
 * Serves a bundled Worker script with Cloudflare's `workerd` (from npm, no account or network), with
 * no Node compatibility flag: the core needs web standards only.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import type { ApiKeyEntry } from "../src/mod.ts";
import type { Served } from "./processes.ts";
import { keyFileLine } from "../src/mod.ts";
import { freePort, startPolling } from "./processes.ts";

const WORKERD = join(import.meta.dir, "node_modules", ".bin", "workerd");

/** Serves `script` (an ES module in `folder`) on workerd, with `API_KEYS` bound to a key file's text of `apiKeys`. */
export async function startWorkerd(folder: string, script: string, apiKeys: readonly ApiKeyEntry[]): Promise<Served> {
  const port = await freePort();
  const config = join(folder, `workerd-${port}.capnp`);
  writeFileSync(config, `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [(name = "main", worker = (
    modules = [(name = "worker.js", esModule = embed "${script}")],
    compatibilityDate = "2026-01-01",
    bindings = [(name = "API_KEYS", text = ${JSON.stringify(apiKeys.map(keyFileLine).join("\n"))})],
  ))],
  sockets = [(name = "http", address = "127.0.0.1:${port}", http = (), service = "main")],
);
`);
  return startPolling([WORKERD, "serve", config], folder, `http://127.0.0.1:${port}/v1`);
}
