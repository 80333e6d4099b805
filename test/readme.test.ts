import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import type { ServerProcess } from "./server-process.ts";
import { startServer } from "./server-process.ts";

/** The curl examples of `docs/api.md` (the README's section "The API" once), each with the status written above it (`# 201`). */
const examples = [...readFileSync("docs/api.md", "utf8").matchAll(/```sh\n# (\d{3})\n(curl[\s\S]*?)\n```/g)].map((match) => ({
  status: match[1]!,
  command: match[2]!,
}));

describe("docs/api.md curl examples", () => {
  let server: ServerProcess;
  beforeAll(async () => {
    server = await startServer("bun", { STORE: "memory", API_KEYS: "my-secret-key" });
  }, 20_000);
  afterAll(async () => {
    await server?.stop("SIGKILL");
  });

  test("there are examples for every operation, for errors and for the health probes", () => {
    expect(examples.map((example) => example.status)).toEqual(["201", "201", "200", "200", "200", "400", "401", "200", "200", "200"]);
  });

  test("each works verbatim (only the port differs) and answers the status written above it", () => {
    const port = new URL(server.url).port;
    for (const { status, command } of examples) {
      const run = Bun.spawnSync(["bash", "-c", `${command.replaceAll(":8080/", `:${port}/`)} -o /dev/null -w '%{http_code}'`]);
      expect({ command, status: run.stdout.toString() }).toEqual({ command, status });
    }
  });
});
