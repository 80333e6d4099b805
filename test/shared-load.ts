/**
 * @module
 * A client that sends to several instances in turn at a steady rate, as one behind a round-robin
 * proxy does, for the tests and the benchmark of shared rate limits: every answer's status (0 for a
 * connection refused or a request that took over 10 s) and how long it took.
 */

/** One answer: its status (0 when none came) and the milliseconds it took. */
export interface LoadAnswer {
  readonly status: number;
  readonly ms: number;
  /** When it was sent, in milliseconds from the start of the load. */
  readonly at: number;
}

/** What a load saw. */
export interface LoadResult {
  readonly answers: readonly LoadAnswer[];
  /** How long the load ran, in seconds, from its first request to its last answer. */
  readonly seconds: number;
}

/** How a load sends: to `bases` in turn, `perSecond` requests a second in all, for `seconds`, each `GET <base><path>` with `headers`. */
export interface LoadPlan {
  readonly bases: () => readonly string[];
  readonly perSecond: number;
  readonly seconds: number;
  readonly path: string;
  readonly headers: Readonly<Record<string, string>>;
  /** Called once a second with the seconds gone, to act during the load (stop an instance). */
  readonly during?: (second: number) => void;
}

/** Sends as `plan` says, each request on time whatever the answers before it (an open loop), and gathers every answer. */
export async function roundRobin(plan: LoadPlan): Promise<LoadResult> {
  const answers: Promise<LoadAnswer>[] = [];
  const started = performance.now();
  const gap = 1000 / plan.perSecond;
  let second = 0;
  for (let i = 0; i * gap < plan.seconds * 1000; i++) {
    const due = i * gap;
    while (performance.now() - started < due) await Bun.sleep(Math.min(5, due - (performance.now() - started)));
    if (Math.floor(due / 1000) > second) plan.during?.(++second);
    const bases = plan.bases();
    answers.push(send(`${bases[i % bases.length]}${plan.path}`, plan.headers, started));
  }
  const done = await Promise.all(answers);
  return { answers: done, seconds: (performance.now() - started) / 1000 };
}

async function send(url: string, headers: Readonly<Record<string, string>>, started: number): Promise<LoadAnswer> {
  const at = performance.now();
  try {
    const response = await fetch(url, { headers, signal: AbortSignal.timeout(10_000) });
    await response.arrayBuffer();
    return { status: response.status, ms: performance.now() - at, at: at - started };
  } catch {
    return { status: 0, ms: performance.now() - at, at: at - started };
  }
}

/** How many answers had `status`. */
export function countOf(result: LoadResult, status: number): number {
  return result.answers.filter((answer) => answer.status === status).length;
}

/** What one instance alone would allow in `seconds` of a limit of `requests` a second with `burst` at once. */
export function oneInstanceBudget(requests: number, burst: number, seconds: number): number {
  return burst + requests * seconds;
}
