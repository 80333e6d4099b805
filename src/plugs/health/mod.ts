/**
 * @module
 * Health probes for load balancers, orchestrators and container engines, three questions apart:
 *
 * - `GET /health/ready` (and `GET /health`, its first name): send me traffic? 200 `{"status":"ok"}`
 *   while the app takes writes, 503 with the reason when it cannot: the store cannot (a database
 *   down or read-only), the server is shutting down, or a plug reports that it refuses them
 *   (`PlugReport.unready`: a maintenance mode), which the probe reads without knowing the plug.
 * - `GET /health/live`: restart me? 200 unless only a restart can help: the store says it cannot
 *   recover (`PetStore.live`: the data file's lock lost). A database outage, a drain or a plug's
 *   maintenance keep it 200, so an orchestrator restarts nothing that will recover by itself, and
 *   an event loop that answers nothing fails it by its probe's timeout.
 * - `GET /health/started`: has it started? 200 whenever the app answers: the standalone server
 *   listens only once its store is open (a large data file loaded), and is refused until then.
 *
 * They live outside the API's base path, need no key, hold no data, and answer in the plug's early
 * step, so a probe is never counted by a rate limit.
 *
 * ```ts
 * import { createApp, createMemoryStore } from "animal-store";
 * import { health } from "animal-store/health";
 * const app = createApp({ store: createMemoryStore(), apiKeys: ["secret"], plugs: [health()] });
 * ```
 */
import type { NamedReport, PetStore, Plug, StoreHealth } from "../../mod.ts";
import { errorResponse, jsonResponse } from "../../mod.ts";

/** Where the readiness probe answers under its first name, and the start of every probe's path. */
export const HEALTH_PATH = "/health";

/** Each probe's path: readiness (also at `HEALTH_PATH`), liveness and startup. */
export const PROBE_PATHS: Readonly<{ ready: string; live: string; started: string }> = Object.freeze({
  ready: `${HEALTH_PATH}/ready`,
  live: `${HEALTH_PATH}/live`,
  started: `${HEALTH_PATH}/started`,
});

/** What the health check looks at besides the app's store. */
export interface HealthOptions {
  /** Whether the server has begun shutting down. Default: never. */
  readonly stopping?: () => boolean;
}

// Probes must see the state now, never a cached answer.
const NO_STORE = { "cache-control": "no-store" };

/** What a probe asks, for a request: `undefined` when all is well, else the refusal's message. */
type Probe = (store: PetStore, stopping: () => boolean, reports: () => readonly NamedReport[]) => Promise<string | undefined>;

/** Send me traffic? Not while stopping, nor while the store or a plug refuses writes. */
const ready: Probe = async (store, stopping, reports) => {
  if (stopping()) return "Cannot take writes: the server is shutting down";
  const problem = (await storeProblem(() => store.health?.())) ?? unreadyPlug(reports());
  return problem === undefined ? undefined : `Cannot take writes: ${problem}`;
};

/** Restart me? Only when the store says it cannot recover: never for a drain or an outage it recovers from. */
const live: Probe = async (store) => {
  const problem = await storeProblem(() => store.live?.());
  return problem === undefined ? undefined : `Cannot recover without a restart: ${problem}`;
};

/** The probes, by path. */
const PROBES: Readonly<Record<string, Probe>> = {
  [HEALTH_PATH]: ready,
  [PROBE_PATHS.ready]: ready,
  [PROBE_PATHS.live]: live,
  // An app that answers has started: the server listens only once its store is open.
  [PROBE_PATHS.started]: async () => undefined,
};

/** Answers the health probes from the app's store, before any other plug. */
export function health(options: HealthOptions = {}): Plug {
  const stopping = options.stopping ?? (() => false);
  return ({ store, reports }) => ({
    name: "health",
    paths: Object.fromEntries(Object.keys(PROBES).map((path) => [path, "GET, HEAD"])),
    early: (request, path) => {
      const probe = PROBES[path];
      return probe === undefined ? undefined : { answer: answerProbe(request, path, () => probe(store, stopping, reports)) };
    },
  });
}

async function answerProbe(request: Request, path: string, ask: () => Promise<string | undefined>): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return errorResponse("method_not_allowed", `Cannot ${request.method} ${path}: allowed methods are GET, HEAD`, { allow: "GET, HEAD" });
  }
  const refusal = await ask();
  if (refusal === undefined) return jsonResponse(200, '{"status":"ok"}', NO_STORE);
  return errorResponse("service_unavailable", refusal, NO_STORE);
}

/** What the store's answer says is wrong, or `undefined` when nothing is (or it has no such check). */
async function storeProblem(ask: () => Promise<StoreHealth> | undefined): Promise<string | undefined> {
  try {
    const health = (await ask()) ?? { ok: true };
    return health.ok ? undefined : health.reason;
  } catch (error) {
    return `the store's health check failed (${error instanceof Error ? error.message : String(error)})`;
  }
}

/** The first reason a plug gives for refusing writes now, as `plug: reason`, or `undefined`. */
function unreadyPlug(reports: readonly NamedReport[]): string | undefined {
  const unready = reports.find(({ report }) => report.unready !== undefined);
  return unready === undefined ? undefined : `${unready.plug}: ${unready.report.unready}`;
}
