/**
 * @module
 * What the deploy test's parts share: the names the page's commands use, its checks and how long each
 * part took, and the few things a user does between blocks (a request, a look at a container).
 */
import { createServer } from "node:net";
import { waitFor } from "../../test/checks.ts";
import type { Checks } from "../../test/checks.ts";
import { SECRET_SETTINGS } from "../../adapters/server/settings.ts";
import type { Engine } from "./engine.ts";

/** What the page's commands name: the container, its volume, the image, the compose project and its volumes. */
export const PRINTED = {
  container: "pets",
  volume: "pets",
  image: "animal-store",
  project: "animal-store",
  pgdata: "animal-store_pgdata",
  backups: "animal-store_backups",
} as const;

/** The key the page's commands put in the key file they make, and the headers of a request with it. */
export const KEY = "change-me";
export const AUTH: Readonly<Record<string, string>> = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };

/** The password the page's commands, Docker's and podman's, give PostgreSQL, from a file. */
export const POSTGRES_PASSWORD = "change-me-too";

/** The settings that hold a secret, the server's and PostgreSQL's, which no container may be given in its environment. */
export const SECRET_VARIABLES: ReadonlySet<string> = new Set([...SECRET_SETTINGS, "POSTGRES_PASSWORD"]);

/**
 * Throws unless `container`'s environment (`inspect`'s `Config.Env`, which whoever may run the engine
 * reads) holds none of `secrets` and none of the settings that hold one: each came in as a file.
 */
export function expectNoSecretInEnv(tool: Engine, container: string, secrets: readonly string[]): void {
  const env = JSON.parse(tool.ok(["inspect", "--format", "{{json .Config.Env}}", container])) as string[];
  const named = env.filter((entry) => SECRET_VARIABLES.has(entry.slice(0, entry.indexOf("="))));
  const holding = env.filter((entry) => secrets.some((secret) => entry.includes(secret)));
  if (named.length > 0 || holding.length > 0) throw new Error(`${container}'s environment holds a secret: ${[...new Set([...named, ...holding])].join(", ")}`);
}

/** The compose stack's instances, by the host ports the page publishes. */
export const INSTANCES = ["http://127.0.0.1:8081", "http://127.0.0.1:8082"] as const;

/** The host ports the compose stack publishes. */
export const STACK_PORTS: readonly number[] = [8081, 8082, 9090];

/** The deploy test's checks, a check that records how long it took under a part's name, and those times. */
export interface Run extends Checks {
  timed(part: string, name: string, body: () => Promise<void> | void): Promise<void>;
  /** How long each part took, as `<part> <seconds> s`, in order. */
  readonly times: string[];
}

/** Throws naming `what` unless `actual` and `expected` are the same JSON. */
export function expect(what: string, actual: unknown, expected: unknown): void {
  if (JSON.stringify(actual) !== JSON.stringify(expected)) throw new Error(`${what}: expected ${JSON.stringify(expected)}, got ${JSON.stringify(actual)}`);
}

/** Every pet's name, in id order, walking the pages (`base` is `…/v1`). */
export async function petNames(base: string): Promise<string[]> {
  const names: string[] = [];
  for (let after = 0; ;) {
    const response = await fetch(`${base}/pets?limit=100&after=${after}`, { headers: AUTH });
    if (!response.ok) throw new Error(`GET ${base}/pets answered ${response.status}`);
    const page = (await response.json()) as { id: number; name: string }[];
    names.push(...page.map((pet) => pet.name));
    if (page.length < 100) return names;
    after = page.at(-1)!.id;
  }
}

/** Creates a pet named `name` through `base`; throws unless it is answered 201. */
export async function createPet(base: string, name: string): Promise<void> {
  const response = await fetch(`${base}/pets`, { method: "POST", headers: AUTH, body: JSON.stringify({ name, categoryId: 1 }) });
  if (response.status !== 201) throw new Error(`POST ${base}/pets answered ${response.status}: ${await response.text()}`);
}

/** Waits until `base` answers a list, at most 30 s. */
export function answering(base: string): Promise<unknown> {
  return waitFor(`${base} to answer`, async () => ((await fetch(`${base}/pets`, { headers: AUTH })).ok ? true : undefined), 30_000);
}

/**
 * The status a probe of an instance answers, or 0 when it does not answer within 8 s: past the 5 s a
 * PostgreSQL store waits for the database (a stopped container's name may take that long to fail).
 */
export async function probe(origin: string, path: string): Promise<number> {
  return await fetch(`${origin}${path}`, { signal: AbortSignal.timeout(8000) }).then((response) => response.status, () => 0);
}

function isFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const listener = createServer();
    listener.once("error", () => resolve(false));
    listener.listen(port, "0.0.0.0", () => listener.close(() => resolve(true)));
  });
}

/** Throws unless every one of `ports` is free on this machine. */
export async function expectFree(ports: readonly number[]): Promise<void> {
  const busy = (await Promise.all(ports.map(async (port) => ((await isFree(port)) ? undefined : port)))).filter((port) => port !== undefined);
  if (busy.length > 0) throw new Error(`the page's ports are in use on this machine: ${busy.join(", ")}`);
}

/** Fails unless none of the page's names is taken: the test removes only what it made. */
export function expectUnused(tool: Engine, containers: readonly string[], volumes: readonly string[]): void {
  const taken = [
    ...containers.filter((name) => tool.run(["container", "inspect", name]).code === 0),
    ...volumes.filter((name) => tool.run(["volume", "inspect", name]).code === 0),
  ];
  if (taken.length > 0) throw new Error(`${tool.name} already has ${taken.join(", ")}, not made by this run: remove them to run the deploy test`);
}

/** The stack's container of `service`: by the compose labels (Docker) or the printed names (podman). */
export function stackContainer(tool: Engine, service: string, project: string = PRINTED.project): string {
  if (tool.name === "podman") return `${project}-${service}`;
  const labels = [`com.docker.compose.project=${project}`, `com.docker.compose.service=${service}`, "com.docker.compose.oneoff=False"];
  const found = tool.ok(["ps", "--all", "--quiet", ...labels.flatMap((label) => ["--filter", `label=${label}`])]);
  if (found === "") throw new Error(`no container of the service ${service}`);
  return found.split("\n")[0]!;
}
