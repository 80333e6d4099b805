/**
 * @module
 * `GET /health` for load balancers and container probes: 200 `{"status":"ok"}` while the store
 * takes writes, 503 with the reason when it cannot or the server is shutting down. It lives outside
 * the API's base path, needs no key, and holds no data.
 */
import type { App, PetStore } from "../../src/mod.ts";
import { errorResponse } from "../../src/errors.ts";
import { jsonResponse } from "../../src/json-response.ts";
import { rawTarget } from "../../src/_request-target.ts";

/** Where the health check answers. */
export const HEALTH_PATH = "/health";

/** What the health check looks at. */
export interface HealthOptions {
  readonly store: PetStore;
  /** Whether the server has begun shutting down. */
  readonly stopping: () => boolean;
}

// Probes must see the state now, never a cached answer.
const NO_STORE = { "cache-control": "no-store" };

/** The app with `GET /health` answered in front of it; every other request goes to the app. */
export function withHealth(app: App, options: HealthOptions): App {
  async function fetch(request: Request): Promise<Response> {
    if (!isHealthTarget(rawTarget(request.url))) return await app.fetch(request);
    if (request.method !== "GET" && request.method !== "HEAD") {
      return errorResponse("method_not_allowed", `Cannot ${request.method} ${HEALTH_PATH}: allowed methods are GET, HEAD`, { allow: "GET, HEAD" });
    }
    const problem = await healthProblem(options);
    if (problem === undefined) return jsonResponse(200, '{"status":"ok"}', NO_STORE);
    return errorResponse("service_unavailable", `Cannot take writes: ${problem}`, NO_STORE);
  }
  return { fetch, onError: app.onError };
}

/** Whether a request's path and query name the health check (matched as sent: probes send it plainly). */
function isHealthTarget(target: string): boolean {
  return target === HEALTH_PATH || target.startsWith(`${HEALTH_PATH}?`);
}

/** Why the server cannot take writes now, or `undefined` when it can. */
async function healthProblem(options: HealthOptions): Promise<string | undefined> {
  if (options.stopping()) return "the server is shutting down";
  try {
    const health = (await options.store.health?.()) ?? { ok: true };
    return health.ok ? undefined : health.reason;
  } catch (error) {
    return `the store's health check failed (${error instanceof Error ? error.message : String(error)})`;
  }
}
