/**
 * `deno task start` and `deno task check` after `npm install`: a task's bare `deno` would be taken
 * from `node_modules/.bin` and its binary run as JavaScript ("Invalid or unexpected token"), so the
 * tasks call `env deno`. The start task is the `start:deno` script, and it serves and stops.
 */
import { expect, test } from "bun:test";
import { join } from "node:path";
import denoJson from "../deno.json" with { type: "json" };
import packageJson from "../package.json" with { type: "json" };
import { tempDataFile } from "./temp.ts";

const ROOT = join(import.meta.dir, "..");
const DENO = join(ROOT, "node_modules", ".bin", "deno");

test("deno task start runs the command npm run start:deno runs, through env", () => {
  expect(denoJson.tasks.start.command).toBe(packageJson.scripts["start:deno"].replace(/^exec /, "env "));
  expect(denoJson.tasks.check.command).toBe(`env ${packageJson.scripts.check.split(" && ")[1]}`);
});

test("deno task start, with the npm-installed deno in node_modules/.bin, serves the API and stops on SIGTERM with exit 0", async () => {
  // setsid: the task's children get the signal too, whatever deno task forwards.
  const child = Bun.spawn(["setsid", DENO, "task", "start"], {
    cwd: ROOT,
    env: { ...process.env, PORT: "0", API_KEYS: "task-key", DATA_FILE: tempDataFile(), NO_COLOR: "1" },
    stdout: "pipe",
    stderr: "pipe",
  });
  let output = "";
  const read = async (stream: ReadableStream<Uint8Array>) => {
    const decoder = new TextDecoder();
    for await (const chunk of stream) output += decoder.decode(chunk, { stream: true });
  };
  const reading = Promise.all([read(child.stdout), read(child.stderr)]);
  try {
    const started = Date.now();
    let url: string | undefined;
    while ((url = /listening on (http:\/\/\S+)/.exec(output)?.[1]) === undefined) {
      if (child.exitCode !== null || Date.now() - started > 15_000) throw new Error(`deno task start did not start:\n${output}`);
      await Bun.sleep(50);
    }
    const response = await fetch(`${url}/pets`, { headers: { authorization: "Bearer task-key" }, signal: AbortSignal.timeout(5_000) });
    expect(response.status).toBe(200);
    process.kill(-child.pid, "SIGTERM");
    expect(await Promise.race([child.exited, Bun.sleep(10_000).then(() => "still running")])).toBe(0);
    await reading;
    expect(output).toContain("stopped");
  } finally {
    if (child.exitCode === null) process.kill(-child.pid, "SIGKILL");
    await child.exited;
  }
}, 40_000);
