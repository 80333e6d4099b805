/**
 * @module
 * Private to the store contract: whether a store's calls hold the event loop, which a server needs
 * turning to answer anyone else. A timer asks for a turn again and again; the longest wait between
 * two turns is the longest stretch the loop was held. A busy machine also delays turns, now and
 * then: so the load runs in rounds, each beside a stretch of the loop idle, and the check compares
 * the middle round of each, which a hiccup in a few rounds does not move, while a store that holds
 * the loop on every round does.
 */
import type { PetStatus, PetStore } from "../mod.ts";
import { exportPets } from "../mod.ts";
import { ALICE, expectTrue } from "./_expect.ts";

/** The longest a store may hold the event loop under the load below, in milliseconds: generous, as a server is stuck for as long. */
export const EVENT_LOOP_BOUND_MS = 200;

const ROUNDS = 5;
const IDLE_MS = 50;

/**
 * Checks that under load (a burst of 200 creates, 40 keyed creates, 60 pages and gets, and an export
 * walked meanwhile, in each of 5 rounds) no call holds the event loop longer than the bound, beyond
 * what the loop shows idle.
 */
export async function neverHoldsTheLoop(store: PetStore): Promise<void> {
  const held: number[] = [];
  const idle: number[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    idle.push(await longestHold(() => new Promise((resolve) => setTimeout(resolve, IDLE_MS))));
    held.push(await longestHold(() => underLoad(store, round)));
  }
  const shown = (values: number[]) => values.map((value) => Math.round(value)).join(", ");
  expectTrue(middle(held) - middle(idle) <= EVENT_LOOP_BOUND_MS,
    `no call holds the event loop more than ${EVENT_LOOP_BOUND_MS} ms under load; it was held ${shown(held)} ms in ${ROUNDS} rounds, ` +
    `and ${shown(idle)} ms idle`);
}

/** The longest wait between two turns of the event loop while `work` runs, in milliseconds. */
async function longestHold(work: () => Promise<unknown>): Promise<number> {
  let longest = 0;
  let last = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const turn = (again: boolean) => {
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (again) timer = setTimeout(() => turn(true), 0);
  };
  turn(true);
  try {
    await work();
  } finally {
    clearTimeout(timer);
  }
  turn(false); // the stretch that ends with the work
  return longest;
}

/** One round of load: every call started at once, as a burst of requests would. */
async function underLoad(store: PetStore, round: number): Promise<void> {
  const status = (i: number): { status?: PetStatus } => (i % 4 === 0 ? { status: "pending" } : {});
  const calls: Promise<unknown>[] = [
    ...Array.from({ length: 200 }, (_, i) => store.create({ name: `load ${round}-${i}`, categoryId: i, ...status(i) })),
    ...Array.from({ length: store.createWithKey === undefined ? 0 : 40 }, (_, i) =>
      store.createWithKey!({ name: "keyed", categoryId: i }, { ...ALICE, key: `load-${round}-${i % 20}` })),
    ...Array.from({ length: 60 }, (_, i) => (i % 2 === 0 ? store.list({ limit: 100, after: i * 7, ...status(i) }) : store.get(i + 1))),
    walk(exportPets(store)),
  ];
  await Promise.all(calls);
}

async function walk(items: AsyncIterable<unknown>): Promise<void> {
  for await (const _ of items);
}

/** The middle value (the upper of the two middle ones for an even count). */
function middle(values: readonly number[]): number {
  return [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
}
