/**
 * @module
 * The HTTP suite against the core served by workerd with the memory store. Run by `run.ts`, which
 * installs the package and bundles the Worker example of `docs/library.md` into `EDGE_PROJECT` first.
 */
import { HTTP_SUITE_KEYS, httpSuite } from "../test/http-suite.ts";
import { startWorkerd } from "./workerd.ts";

const PROJECT = process.env.EDGE_PROJECT ?? "";

httpSuite("the core on workerd, memory store", async () => {
  const worker = await startWorkerd(PROJECT, "worker.bundle.js", HTTP_SUITE_KEYS);
  return { url: worker.url, directUrl: worker.url, stop: worker.stop };
});
