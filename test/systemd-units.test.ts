/**
 * @module
 * The systemd units of deploy/systemd/, for the executable and for `node` on the package, and the
 * backup's service and timer: each passes `systemd-analyze verify` (Debian's `systemd` package) with
 * not a word to say, has what running for a year asks (its own user, a restart policy, secrets from a
 * root-only file, an absolute data path, a read-only system but its data, no new privileges, a stop
 * timeout past the server's own graceful stop), and its `ExecStart` runs as written, on this
 * checkout's server, with the settings of the example environment file. `npm run test:deploy` runs
 * them under a real systemd as PID 1, in a container (`deploy/test/systemd.ts`).
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { SQL } from "bun";
import { openPostgresStore } from "../adapters/postgres-store/mod.ts";
import { keyFileLine } from "../src/mod.ts";
import { LATE_STORE_CLOSE_MS, SHUTDOWN_GRACE_MS } from "../adapters/server/start.ts";
import { commandArgv } from "./commands.ts";
import { captureOutput } from "./output.ts";
import { waitFor } from "./checks.ts";
import { postgresServer } from "./postgres-server.ts";
import { tempFolder } from "./temp.ts";

const FOLDER = "deploy/systemd";
const UNITS = readdirSync(FOLDER).filter((name) => /\.(service|timer)$/.test(name)).sort();
const SERVICES = UNITS.filter((name) => name.endsWith(".service"));
const SERVERS = ["animal-store.service", "animal-store-node.service"];
/** The clients' key docs/deploy.md's block writes into the key file. */
const KEY = "change-me";

/** A unit's settings: each `Key=value` line by its key, every value in order. */
function settingsOf(unit: string): Map<string, string[]> {
  const settings = new Map<string, string[]>();
  for (const line of readFileSync(join(FOLDER, unit), "utf8").split("\n")) {
    const match = /^([A-Za-z]+)=(.*)$/.exec(line);
    if (match !== null) settings.set(match[1]!, [...(settings.get(match[1]!) ?? []), match[2]!]);
  }
  return settings;
}

/** The one value of `key` in `unit`. */
function one(unit: string, key: string): string {
  const values = settingsOf(unit).get(key) ?? [];
  if (values.length !== 1) throw new Error(`${unit} has ${values.length} ${key}= lines, not one`);
  return values[0]!;
}

/** `systemd-analyze`, or a failure naming the Debian package that has it. */
function systemdAnalyze(): string {
  const found = Bun.which("systemd-analyze");
  if (found === null) throw new Error("systemd-analyze is not installed: apt-get install systemd (Debian's package; .ci/run installs it)");
  return found;
}

test("the units are the four the page installs", () => {
  expect(UNITS).toEqual(["animal-store-backup.service", "animal-store-backup.timer", "animal-store-node.service", "animal-store.service"]);
});

test("each unit passes systemd-analyze verify without a word, the programs they start standing at their paths", () => {
  const analyze = systemdAnalyze();
  // A root of their own: the host's unit files (the targets they name), the units, and the programs they run.
  const root = tempFolder();
  cpSync("/usr/lib/systemd/system", join(root, "usr/lib/systemd/system"), { recursive: true, verbatimSymlinks: true });
  mkdirSync(join(root, "etc/systemd/system"), { recursive: true });
  for (const unit of UNITS) cpSync(join(FOLDER, unit), join(root, "etc/systemd/system", unit));
  for (const program of SERVICES.flatMap((unit) => ["ExecStart", "ExecReload"].flatMap((key) => settingsOf(unit).get(key) ?? [])).map((command) => command.split(" ")[0]!)) {
    mkdirSync(join(root, program, ".."), { recursive: true });
    writeFileSync(join(root, program), "#!/bin/sh\n");
    chmodSync(join(root, program), 0o755);
  }
  for (const unit of UNITS) {
    const verified = Bun.spawnSync([analyze, "verify", `--root=${root}`, unit], { stdout: "pipe", stderr: "pipe" });
    expect({ unit, code: verified.exitCode, said: `${verified.stdout}${verified.stderr}` }).toEqual({ unit, code: 0, said: "" });
  }
});

describe("what running for a year asks of each service", () => {
  test.each(SERVICES)("%s: its own user, secrets from a root-only file, an absolute data path, a read-only system but its folder, no new privileges", (unit) => {
    expect(one(unit, "User")).toBe("animal-store");
    expect(one(unit, "EnvironmentFile")).toBe("/etc/animal-store/animal-store.env");
    expect(one(unit, "Environment")).toBe("DATA_FILE=/var/lib/animal-store/pets.json");
    expect(one(unit, "ProtectSystem")).toBe("strict");
    expect(one(unit, "NoNewPrivileges")).toBe("yes");
    expect(one(unit, "CapabilityBoundingSet")).toBe("");
    expect(one(unit, "ReadWritePaths")).toMatch(/^\/var\/(lib|backups)\/animal-store$/);
  });

  test.each(SERVERS)("%s: restarted on failure but not for a setting to fix, given longer to stop than the server's own graceful stop takes, and reloaded by SIGHUP", (unit) => {
    expect(one(unit, "ExecReload")).toBe("/bin/kill -HUP $MAINPID");
    expect(one(unit, "Restart")).toBe("on-failure");
    expect(one(unit, "RestartPreventExitStatus")).toBe("2");
    expect(one(unit, "KillSignal")).toBe("SIGTERM");
    expect(Number(one(unit, "TimeoutStopSec")) * 1000).toBeGreaterThan(SHUTDOWN_GRACE_MS + LATE_STORE_CLOSE_MS);
    expect(one(unit, "ReadWritePaths")).toBe("/var/lib/animal-store");
  });

  test("the Node.js unit runs node on the package's entry, never npx, and only one of the two servers runs at a time", () => {
    expect(one("animal-store-node.service", "ExecStart")).toBe("/usr/bin/node /srv/animal-store/node_modules/animal-store/dist/adapters/server/cli.js");
    expect(readFileSync("package.json", "utf8")).toContain('"animal-store": "dist/adapters/server/cli.js"');
    expect(one("animal-store-node.service", "Conflicts")).toBe("animal-store.service");
  });

  test("the backup runs once a day from its timer, catching up after the machine was off", () => {
    expect([one("animal-store-backup.service", "Type"), one("animal-store-backup.timer", "OnCalendar"), one("animal-store-backup.timer", "Persistent")]).toEqual(["oneshot", "daily", "true"]);
  });
});

describe("each ExecStart runs as written, with the example environment file, on this checkout's server", () => {
  /**
   * The unit's environment: the example file's settings (with `postgres`, its commented PostgreSQL
   * lines taken instead), then its Environment= lines, with its folders moved under `root`.
   */
  function environment(unit: string, root: string, postgres = false): Record<string, string> {
    const file = readFileSync(join(FOLDER, "animal-store.env"), "utf8").split("\n").map((line) => (postgres ? line.replace(/^#(?=[A-Z_]+=)/, "") : line));
    const lines = [...file, ...(settingsOf(unit).get("Environment") ?? [])];
    const pairs = lines.filter((line) => /^[A-Z_]+=/.test(line)).map((line) => line.split(/=(.*)/s).slice(0, 2) as [string, string]);
    return Object.fromEntries(pairs.map(([name, value]) => [name, value.replaceAll("/var/", `${root}/var/`).replaceAll("/etc/", `${root}/etc/`)]));
  }

  /** The ExecStart's arguments after its program, with its folders moved under `root`. */
  const argumentsOf = (unit: string, root: string) => one(unit, "ExecStart").split(" ").slice(1).map((arg) => arg.replaceAll("/var/", `${root}/var/`));

  test("the server starts on the file store at the unit's data path, answers with the key file's key, and stops on SIGTERM with exit 0", async () => {
    const root = tempFolder();
    const env: Record<string, string> = { ...environment("animal-store.service", root), PORT: "0" };
    expect([env["DATA_FILE"], env["API_KEYS_FILE"], env["API_KEYS"]]).toEqual([`${root}/var/lib/animal-store/pets.json`, `${root}/etc/animal-store/api-keys`, undefined]);
    mkdirSync(`${root}/etc/animal-store`, { recursive: true });
    writeFileSync(env["API_KEYS_FILE"]!, `${keyFileLine({ name: "clients", key: KEY })}\n`, { mode: 0o600 });
    const server = Bun.spawn(commandArgv("bun", argumentsOf("animal-store.service", root)), { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
    const output = captureOutput(server);
    try {
      const base = await waitFor("the server to listen", () => /listening on (\S+)/.exec(output())?.[1], 20_000);
      const created = await fetch(`${base}/pets`, { method: "POST", headers: { authorization: `Bearer ${KEY}`, "content-type": "application/json" }, body: '{"name":"Rex","categoryId":1}' });
      expect(created.status).toBe(201);
      server.kill("SIGTERM");
      expect(await server.exited).toBe(0);
      expect(existsSync(env["DATA_FILE"]!)).toBe(true);
    } finally {
      server.kill("SIGKILL");
    }
    // Then the backup unit's command, on the same settings: a checked backup of the one pet in the unit's folder.
    const backup = Bun.spawnSync(commandArgv("bun", argumentsOf("animal-store-backup.service", root)), { env: { ...process.env, ...environment("animal-store-backup.service", root) }, stdout: "pipe", stderr: "pipe" });
    expect(backup.exitCode).toBe(0);
    expect(backup.stdout.toString()).toMatch(new RegExp(`^checked ${root}/var/backups/animal-store/pets-\\S+\\.jsonl: 1 pets \\(last id 1\\)`));
    // And docs/deploy.md's check of the newest backup, its path moved as the units' are.
    const printed = /^animal-store import --check .*$/m.exec(readFileSync("docs/deploy.md", "utf8"))?.[0] ?? "no such line in docs/deploy.md";
    const check = Bun.spawnSync(commandArgv("bun", printed.replaceAll("/var/", `${root}/var/`).split(" ").slice(1)), { stdout: "pipe", stderr: "pipe" });
    expect([check.exitCode, check.stdout.toString()]).toEqual([0, expect.stringMatching(new RegExp(`^checked ${root}/var/backups/animal-store/latest\\.jsonl: 1 pets`))]);
  }, 40_000);

  test("the backup's command backs up PostgreSQL with the example file's PostgreSQL lines, the same unit as for the file", async () => {
    const root = tempFolder();
    const url = await (await postgresServer()).createDatabase();
    const env = environment("animal-store-backup.service", root, true);
    expect([env["STORE"], env["MIGRATE"]]).toEqual(["postgres", "off"]);
    // The file's database, as the test's server has it: the role and password are the test's.
    env["DATABASE_URL"] = url;
    const sql = new SQL(url, { max: 1 });
    try {
      const store = await openPostgresStore({ sql });
      await store.create({ name: "Rex", categoryId: 1 });
      await store.close();
    } finally {
      await sql.close();
    }
    mkdirSync(`${root}/var/backups/animal-store`, { recursive: true });
    const backup = Bun.spawnSync(commandArgv("bun", argumentsOf("animal-store-backup.service", root)), { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
    expect([backup.exitCode, backup.stdout.toString()]).toEqual([0, expect.stringMatching(new RegExp(`^checked ${root}/var/backups/animal-store/pets-\\S+\\.jsonl: 1 pets \\(last id 1\\)`))]);
  }, 40_000);
});
