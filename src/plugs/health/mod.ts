/**
 * @module
 * `GET /health` for load balancers and container probes: 200 `{"status":"ok"}` while the app takes
 * writes, 503 with the reason when it cannot: the store cannot, the server is shutting down, or a
 * plug reports that it refuses them (`PlugReport.unready`: a maintenance mode), which the health
 * check reads without knowing the plug. It lives outside the API's base path, needs no key, and
 * holds no data. It answers in its early step, so a probe is never counted by a rate limit.
 *
 * ```ts
 * import { createApp, createMemoryStore } from "animal-store";
 * import { health } from "animal-store/health";
 * const app = createApp({ store: createMemoryStore(), apiKeys: ["secret"], plugs: [health()] });
 * ```
 */
import type { NamedReport, PetStore, Plug } from "../../mod.ts";
import { errorResponse, jsonResponse } from "../../mod.ts";

/** Where the health check answers. */
export const HEALTH_PATH = "/health";

/** What the health check looks at besides the app's store. */
export interface HealthOptions {
  /** Whether the server has begun shutting down. Default: never. */
  readonly stopping?: () => boolean;
}

// Probes must see the state now, never a cached answer.
const NO_STORE = { "cache-control": "no-store" };

/** Answers `GET /health` from the app's store, before any other plug. */
export function health(options: HealthOptions = {}): Plug {
  const stopping = options.stopping ?? (() => false);
  return ({ store, reports }) => ({
    name: "health",
    paths: { [HEALTH_PATH]: "GET, HEAD" },
    early: (request, path) => (path === HEALTH_PATH ? { answer: answerHealth(request, store, stopping, reports) } : undefined),
  });
}

async function answerHealth(request: Request, store: PetStore, stopping: () => boolean, reports: () => readonly NamedReport[]): Promise<Response> {
  if (request.method !== "GET" && request.method !== "HEAD") {
    return errorResponse("method_not_allowed", `Cannot ${request.method} ${HEALTH_PATH}: allowed methods are GET, HEAD`, { allow: "GET, HEAD" });
  }
  const problem = (await healthProblem(store, stopping)) ?? unreadyPlug(reports());
  if (problem === undefined) return jsonResponse(200, '{"status":"ok"}', NO_STORE);
  return errorResponse("service_unavailable", `Cannot take writes: ${problem}`, NO_STORE);
}

/** Why the server cannot take writes now, or `undefined` when it can. */
async function healthProblem(store: PetStore, stopping: () => boolean): Promise<string | undefined> {
  if (stopping()) return "the server is shutting down";
  try {
    const health = (await store.health?.()) ?? { ok: true };
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
