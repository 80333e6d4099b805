/**
 * @module
 * Loaded before a server by the memory benchmarks (`--preload` on Bun and Deno, `--import` on Node, the
 * latter two with `--expose-gc`): once a second, a full collection, then the heap in use printed to
 * stderr as `heap-probe <bytes>`, so a benchmark reads what the server keeps rather than its resident
 * memory, which a runtime grows under load and gives back when it pleases.
 */
declare const Bun: { gc(force: boolean): void } | undefined;

const probe = setInterval(() => {
  if (typeof Bun !== "undefined") Bun.gc(true);
  else (globalThis as unknown as { gc(): void }).gc();
  process.stderr.write(`heap-probe ${process.memoryUsage().heapUsed}\n`);
}, 1000);
// The probe never keeps a server from exiting.
(probe as unknown as { unref?(): void }).unref?.();
