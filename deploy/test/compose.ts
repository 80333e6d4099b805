/**
 * @module
 * Runs a compose file's services with podman on the host's network, as the deploy test needs: in
 * the order `depends_on` gives, each started only once what it needs is healthy (`condition:
 * service_healthy`) or started. Debian's podman-compose (1.0.3) ignores those conditions and puts
 * containers on a bridge network, and `podman kube play` has no start order at all; this reads
 * the file itself for the keys it uses: image, command, environment (with `${VAR}`, `${VAR:-default}`
 * and `${VAR:?message}`), volumes, healthcheck, depends_on. Service names resolve to 127.0.0.1, and
 * `ports` are not needed there: each service listens on the host's ports itself.
 */
import { dirname, isAbsolute, resolve } from "node:path";
import { readFileSync } from "node:fs";
import { logs, podman, podmanOk, waitHealthy } from "./podman.ts";

interface Service {
  readonly image: string;
  readonly command?: readonly string[];
  readonly environment?: Readonly<Record<string, string>>;
  readonly volumes?: readonly string[];
  readonly healthcheck?: { readonly test: readonly string[]; readonly interval?: string; readonly timeout?: string; readonly retries?: number };
  readonly depends_on?: Readonly<Record<string, { readonly condition: "service_healthy" | "service_started" }>>;
}

interface ComposeFile {
  readonly name: string;
  readonly services: Readonly<Record<string, Service>>;
  readonly volumes?: Readonly<Record<string, unknown>>;
}

/** A running compose project. */
export interface Project {
  /** The container of each service, by service name. */
  readonly containers: ReadonlyMap<string, string>;
  /** The services in the order they were started. */
  readonly order: readonly string[];
  /** Stops the services in reverse order (their stop signal, then up to 10 s), returning each exit code. */
  down(): Record<string, number>;
  /** Removes the containers, running or not, and the file's named volumes. */
  remove(): void;
}

/** Replaces `${VAR}`, `${VAR:-default}` and `${VAR:?message}` from `env`, as compose does. */
export function interpolate(text: string, env: Readonly<Record<string, string | undefined>>): string {
  return text.replace(/\$\{(\w+)(?::([-?])([^}]*))?\}/g, (_, name: string, kind?: string, rest?: string) => {
    const value = env[name];
    if (value !== undefined && value !== "") return value;
    if (kind === "?") throw new Error(`${name}: ${rest}`);
    return kind === "-" ? rest ?? "" : "";
  });
}

/** Starts the file's services; `images` replaces image names (stand-ins), `env` feeds interpolation. */
export async function composeUp(file: string, env: Readonly<Record<string, string | undefined>>, images: Readonly<Record<string, string>>): Promise<Project> {
  const compose = Bun.YAML.parse(interpolate(readFileSync(file, "utf8"), env)) as ComposeFile;
  const names = Object.keys(compose.services);
  const containers = new Map(names.map((name) => [name, `${compose.name}-${name}`]));
  const volumes = Object.keys(compose.volumes ?? {}).map((volume) => `${compose.name}_${volume}`);
  const order = startOrder(compose.services);
  const project: Project = { containers, order, down: () => down(containers, order), remove: () => remove(containers, volumes) };
  try {
    for (const name of order) {
      const service = compose.services[name]!;
      for (const [needed, { condition }] of Object.entries(service.depends_on ?? {})) {
        if (condition === "service_healthy") await waitHealthy(containers.get(needed)!);
      }
      podmanOk(["run", "--detach", "--name", containers.get(name)!, "--network", "host", ...names.map((host) => `--add-host=${host}:127.0.0.1`), ...runOptions(service, compose.name, dirname(file)), images[service.image] ?? service.image, ...(service.command ?? [])]);
    }
  } catch (error) {
    const said = [...containers.values()].map((container) => `--- ${container}:\n${logs(container).trim()}`).join("\n");
    project.remove();
    throw new Error(`${error instanceof Error ? error.message : String(error)}\n${said}`);
  }
  return project;
}

/** The services ordered so that each comes after everything it depends on. */
function startOrder(services: Readonly<Record<string, Service>>): string[] {
  const order: string[] = [];
  const visit = (name: string, path: readonly string[]) => {
    if (order.includes(name)) return;
    if (path.includes(name)) throw new Error(`depends_on has a cycle: ${[...path, name].join(" -> ")}`);
    for (const needed of Object.keys(services[name]?.depends_on ?? {})) visit(needed, [...path, name]);
    order.push(name);
  };
  for (const name of Object.keys(services)) visit(name, []);
  return order;
}

/** `podman run` options for a service's environment, volumes and health check. */
function runOptions(service: Service, project: string, folder: string): string[] {
  const environment = Object.entries(service.environment ?? {}).map(([name, value]) => `--env=${name}=${value}`);
  const volumes = (service.volumes ?? []).map((volume) => {
    const [source = "", ...rest] = volume.split(":");
    const host = source.startsWith(".") || isAbsolute(source) ? resolve(folder, source) : `${project}_${source}`;
    return `--volume=${[host, ...rest].join(":")}`;
  });
  const check = service.healthcheck;
  const health = check === undefined ? [] : [
    `--health-cmd=${JSON.stringify(check.test.slice(1))}`,
    ...(check.interval === undefined ? [] : [`--health-interval=${check.interval}`]),
    ...(check.timeout === undefined ? [] : [`--health-timeout=${check.timeout}`]),
    ...(check.retries === undefined ? [] : [`--health-retries=${check.retries}`]),
  ];
  return [...environment, ...volumes, ...health];
}

function down(containers: ReadonlyMap<string, string>, order: readonly string[]): Record<string, number> {
  const codes: Record<string, number> = {};
  for (const name of [...order].reverse()) {
    const container = containers.get(name)!;
    if (podmanOk(["ps", "--all", "--quiet", "--filter", `name=^${container}$`]) === "") continue;
    podmanOk(["stop", "--time", "10", container]);
    codes[name] = Number(podmanOk(["inspect", "--format", "{{.State.ExitCode}}", container]));
  }
  return codes;
}

function remove(containers: ReadonlyMap<string, string>, volumes: readonly string[]): void {
  for (const container of containers.values()) podman(["rm", "--force", "--time", "0", container]);
  for (const volume of volumes) podman(["volume", "rm", "--force", volume]);
}
