/**
 * @module
 * With `LOG_HEALTH=off`, the health probes kept out of the access log and the traces: a load
 * balancer or orchestrator probing every few seconds would otherwise fill both. The metrics still
 * count them, each probe under its own route.
 */
import type { Wrap } from "../../src/mod.ts";
import { HEALTH_PATH, PROBE_PATHS } from "../../src/plugs/health/mod.ts";
import { _answerNowOf, _appAnsweringNow } from "../../src/_server-entry.ts";

/** The paths skipped, as a request writes them: only these exactly, so no request of the API can pass for one (`/health/../v1/pets`). */
const PROBES: ReadonlySet<string> = new Set([HEALTH_PATH, ...Object.values(PROBE_PATHS)]);

/**
 * `wrap`, passed by the requests of a health probe, which reach the app without it. Each way answers
 * now where it can (`_answerNow`, bench/RESULTS.md): a filter that called only `fetch` took every
 * request of the compose stack (`LOG_HEALTH=off`) through a promise the access log had no need of.
 */
export function exceptProbes(wrap: Wrap): Wrap {
  return (app) => {
    const wrapped = wrap(app);
    const [probe, other] = [_answerNowOf(app), _answerNowOf(wrapped)];
    return _appAnsweringNow((request, connection) => (isProbe(request.url) ? probe(request, connection) : other(request, connection)), wrapped.onError);
  };
}

/** Whether a request URL (absolute, or its path alone) is a probe's path, with or without a query. */
export function isProbe(url: string): boolean {
  const start = url.startsWith("/") ? 0 : url.indexOf("/", url.indexOf("://") + 3);
  if (start < 0) return false;
  const query = url.indexOf("?", start);
  return PROBES.has(url.slice(start, query < 0 ? undefined : query));
}
