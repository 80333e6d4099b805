/**
 * @module
 * A client that keeps creating pets through several instances, as clients behind a proxy do during an
 * upgrade: each create goes to the next instance in turn with an `Idempotency-Key`, and is sent again,
 * to the next one, whenever the answer says nothing was stored (the connection refused or reset
 * before an answer, a 503), as a proxy that retries and a client that retries a 503 would. A create
 * counts as lost only when no instance acknowledged it within the retry time.
 */

/** What the client saw, and how to stop it. */
export interface SteadyClient {
  /** How many creates were acknowledged (201, or the replay of one) so far. */
  acknowledged(): number;
  /** How many sends so far were refused without storing anything (and sent again). */
  retried(): number;
  /** Resolves once `count` more creates than now have been acknowledged, at most `timeoutMs`. */
  more(count: number, timeoutMs?: number): Promise<void>;
  /** Stops sending, waits for the creates in flight, and resolves with what happened. */
  stop(): Promise<SteadySummary>;
}

/** What a steady client's run came to. */
export interface SteadySummary {
  /** The ids of the acknowledged creates, each with the name sent. */
  readonly pets: ReadonlyMap<number, string>;
  /** Creates that no instance acknowledged in time, each with why. */
  readonly lost: readonly string[];
  /** How many sends were answered with a refusal that stored nothing, and sent again. */
  readonly retried: number;
}

/** How long one create may be sent again and again before it counts as lost. */
const RETRY_MS = 20_000;

/**
 * Starts `clients` loops of creates through `targets()` (read before each send, so the set may change),
 * authorised with `key`; names are `prefix-<n>`.
 */
export function steadyClient(targets: () => readonly string[], key: string, prefix: string, clients = 4): SteadyClient {
  const pets = new Map<number, string>();
  const lost: string[] = [];
  let retried = 0;
  let sent = 0;
  let turn = 0;
  let running = true;
  const next = () => {
    const all = targets();
    return all[turn++ % all.length]!;
  };
  const create = async (name: string) => {
    const started = Date.now();
    for (;;) {
      let why: string;
      try {
        const response = await fetch(`${next()}/pets`, {
          method: "POST",
          headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "idempotency-key": name },
          body: JSON.stringify({ name, categoryId: 1 }),
          signal: AbortSignal.timeout(10_000),
        });
        if (response.status === 201) return void pets.set(((await response.json()) as { id: number }).id, name);
        why = `${response.status} ${await response.text()}`;
        if (response.status !== 503) return void lost.push(`${name}: ${why}`);
      } catch (error) {
        why = error instanceof Error ? error.message : String(error);
      }
      if (Date.now() - started > RETRY_MS) return void lost.push(`${name}: ${why}`);
      retried++;
      await Bun.sleep(50);
    }
  };
  const loops = Array.from({ length: clients }, async () => {
    while (running) await create(`${prefix}-${++sent}`);
  });
  return {
    acknowledged: () => pets.size,
    retried: () => retried,
    async more(count, timeoutMs = 60_000) {
      const goal = pets.size + count;
      const deadline = Date.now() + timeoutMs;
      while (pets.size < goal) {
        if (Date.now() > deadline) throw new Error(`only ${pets.size} of ${goal} creates acknowledged within ${timeoutMs} ms; lost: ${lost.slice(0, 5).join("; ")}`);
        await Bun.sleep(20);
      }
    },
    async stop() {
      running = false;
      await Promise.all(loops);
      return { pets, lost, retried };
    },
  };
}
