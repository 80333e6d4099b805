/**
 * @module
 * Backups that are checked, scheduled and never empty by mistake: `export` refuses a store never
 * written (no data file, a database without the tables, a store without a pet: the wrong path,
 * database or Compose project) unless told it is empty on purpose; `import --check` reads a backup
 * whole and writes nothing; `backup` writes, checks and keeps the newest N, once or on an interval.
 */
import { describe, expect, test } from "bun:test";
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, readlinkSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { commandArgv, runCommand } from "./commands.ts";
import { postgresServer } from "./postgres-server.ts";
import { captureOutput } from "./output.ts";
import { dataFileWith } from "./data-files.ts";
import { tempDataFile, tempFolder } from "./temp.ts";
import { waitFor } from "./checks.ts";

/** The refusal of an export of a store without a pet, for the store `name` names. */
const emptyRefusal = (name: string) => `animal-store export: ${name} holds no pet, so a backup of it would restore nothing: if it is the wrong store, check STORE, ` +
  "DATA_FILE or DATABASE_URL (with Compose, -p animal-store); if it is empty on purpose (a new deployment), pass --allow-empty; nothing complete was written\n";

describe("an export of a store never written fails loudly, and writes nothing", () => {
  test("a data file without a pet: exit 1 naming it and the fix, nothing on stdout, no --out file; --allow-empty exports it", async () => {
    const path = await dataFileWith(0);
    expect(await runCommand("bun", ["export", "--data-file", path])).toEqual({ code: 1, stdout: "", stderr: emptyRefusal(path) });
    const out = join(tempFolder(), "backup.jsonl");
    expect((await runCommand("bun", ["export", "--data-file", path, "--out", out])).code).toBe(1);
    expect([existsSync(out), existsSync(`${out}.partial`)]).toEqual([false, false]);
    const allowed = await runCommand("bun", ["export", "--data-file", path, "--allow-empty"]);
    expect(allowed.code).toBe(0);
    expect(allowed.stdout.split("\n")).toHaveLength(3);
  });

  test("no data file at the path: exit 1 naming it, and none is made", async () => {
    const path = tempDataFile();
    const outcome = await runCommand("bun", ["export", "--data-file", path]);
    expect(outcome).toEqual({ code: 1, stdout: "", stderr: `animal-store export: ${path} does not exist; nothing complete was written\n` });
    expect(existsSync(path)).toBe(false);
  });

  test("PostgreSQL: a database without the tables is named as never written (and left without them), a migrated one without a pet as empty", async () => {
    const url = await (await postgresServer()).createDatabase();
    const { host, pathname } = new URL(url);
    const name = `the PostgreSQL database "${pathname.slice(1)}" on ${host}`;
    const bare = await runCommand("bun", ["export", "--store", "postgres"], { env: { DATABASE_URL: url } });
    expect(bare).toEqual({
      code: 1,
      stdout: "",
      stderr: `animal-store export: ${name} holds no animal-store tables: nothing was ever written to it, so there is nothing to back up; ` +
        "if it is the wrong database, check DATABASE_URL (with Compose, -p animal-store); nothing complete was written\n",
    });
    const sql = new Bun.SQL(url, { max: 1 });
    expect((await sql`select to_regclass('animal_store') as present`)[0].present).toBeNull();
    await sql.close();
    expect((await runCommand("bun", ["migrate", "--store", "postgres"], { env: { DATABASE_URL: url } })).code).toBe(0);
    const empty = await runCommand("bun", ["export", "--store", "postgres"], { env: { DATABASE_URL: url } });
    expect([empty.code, empty.stdout, empty.stderr.split("\n").at(-2)]).toEqual([1, "", emptyRefusal(name).trimEnd()]);
  }, 30_000);

  test("the memory store, which keeps nothing, is refused the same way", async () => {
    expect(await runCommand("bun", ["export", "--store", "memory"])).toEqual({ code: 1, stdout: "", stderr: emptyRefusal("the memory store") });
  });
});

describe("import --check", () => {
  test("reads a good export whole, says what it holds, opens no store and writes nothing", async () => {
    const backup = join(tempFolder(), "backup.jsonl");
    expect((await runCommand("bun", ["export", "--data-file", await dataFileWith(5), "--out", backup])).code).toBe(0);
    const sha = /"sha256":"([0-9a-f]{64})"/.exec(readFileSync(backup, "utf8"))![1];
    // The store named is unreachable: a check never opens it.
    const checked = await runCommand("bun", ["import", "--check", "--in", backup, "--store", "postgres"], { env: { DATABASE_URL: "postgres://nobody@127.0.0.1:1/none" } });
    expect(checked).toEqual({
      code: 0,
      stdout: `checked ${backup}: 5 pets (last id 5), sha256 ${sha}: every line is a pet an import takes, and the last line's count, last id and checksum agree; nothing was written\n`,
      stderr: "",
    });
    expect((await runCommand("bun", ["import", "--check"], { stdin: readFileSync(backup, "utf8") })).stdout).toStartWith("checked the export on stdin: 5 pets");
  });

  test("refuses, naming the line, a backup cut short, one with a line changed, and one whose checksum differs; exit 1 for one it cannot read", async () => {
    const text = (await runCommand("bun", ["export", "--data-file", await dataFileWith(3)])).stdout;
    const lines = text.trimEnd().split("\n");
    const cases: [string, string][] = [
      [`${lines.slice(0, -1).join("\n")}\n`, "line 5 is missing: the input ends without the export's last line"],
      [text.replace('"pet 1"', '""'), 'line 3 is not a valid pet: "name" must not be empty'],
      [text.replace('"pet 1"', '"pet one"'), "line 5 states sha256"],
      [text.replace('{"id":3,', '{"id":2,'), "line 4 has id 2, not above the previous id 2"],
    ];
    for (const [input, problem] of cases) {
      const outcome = await runCommand("bun", ["import", "--check"], { stdin: input });
      expect([outcome.code, outcome.stdout]).toEqual([2, ""]);
      expect(outcome.stderr).toStartWith(`animal-store import --check: the export on stdin: ${problem}`);
      expect(outcome.stderr).toEndWith("; it would not import\n");
    }
    const missing = join(tempFolder(), "none.jsonl");
    expect((await runCommand("bun", ["import", "--check", "--in", missing])).code).toBe(1);
  });
});

describe("animal-store backup", () => {
  /** The backups in `dir`, by name. */
  const backupsIn = (dir: string) => readdirSync(dir).filter((name) => name.startsWith("pets-")).sort();

  test("once: a backup named by its time, mode 600, checked; the newest --keep kept; a store without a pet fails and counts nothing", async () => {
    const dir = join(tempFolder(), "backups");
    const path = await dataFileWith(4);
    for (let run = 0; run < 3; run++) {
      const outcome = await runCommand("bun", ["backup", "--dir", dir, "--keep", "2", "--data-file", path]);
      expect(outcome.code).toBe(0);
      expect(outcome.stdout).toMatch(new RegExp(`^checked ${dir}/pets-\\d{8}T\\d{6}\\.\\d{3}Z\\.jsonl: 4 pets \\(last id 4\\)`));
      if (run === 2) expect(outcome.stdout).toContain(`animal-store backup: removed ${dir}/`);
    }
    const kept = backupsIn(dir);
    expect(kept).toHaveLength(2);
    // latest.jsonl leads to the newest, for a restore to name.
    expect(readlinkSync(join(dir, "latest.jsonl"))).toBe(kept[1]!);
    for (const name of kept) {
      expect(name).toMatch(/^pets-\d{8}T\d{6}\.\d{3}Z\.jsonl$/);
      expect(statSync(join(dir, name)).mode & 0o777).toBe(0o600);
      expect((await runCommand("bun", ["import", "--check", "--in", join(dir, name)])).code).toBe(0);
    }
    const failed = await runCommand("bun", ["backup", "--dir", dir, "--keep", "2", "--data-file", await dataFileWith(0)]);
    expect(failed.code).toBe(1);
    expect(failed.stderr).toContain("holds no pet");
    expect(failed.stderr).toEndWith("animal-store backup: no backup was written this time (the export failed, above)\n");
    expect(backupsIn(dir)).toEqual(kept);
    expect(readlinkSync(join(dir, "latest.jsonl"))).toBe(kept[1]!);
  }, 60_000);

  test("a file it did not name is never counted nor removed, and a folder it cannot write fails the backup", async () => {
    const dir = join(tempFolder(), "backups");
    mkdirSync(dir);
    writeFileSync(join(dir, "pets-keep-me.jsonl"), "mine");
    const path = await dataFileWith(1);
    for (let run = 0; run < 2; run++) expect((await runCommand("bun", ["backup", "--dir", dir, "--keep", "1", "--data-file", path])).code).toBe(0);
    expect(backupsIn(dir)).toEqual([expect.stringMatching(/^pets-\d{8}T/), "pets-keep-me.jsonl"]);
    if (process.getuid?.() !== 0) {
      chmodSync(dir, 0o500);
      expect((await runCommand("bun", ["backup", "--dir", dir, "--data-file", path])).code).toBe(1);
      chmodSync(dir, 0o700);
    }
  }, 30_000);

  test("--every: one at once, then one each interval, the newest --keep kept; a failure is said and the next one tried; SIGTERM between backups exits 0", async () => {
    const dir = join(tempFolder(), "backups");
    const url = await (await postgresServer()).createDatabase();
    const env = { STORE: "postgres", DATABASE_URL: url };
    expect((await runCommand("bun", ["migrate"], { env })).code).toBe(0);
    const child = Bun.spawn(commandArgv("bun", ["backup", "--dir", dir, "--keep", "2", "--every", "1s"]), { env: { ...process.env, ...env }, stdout: "pipe", stderr: "pipe" });
    const output = captureOutput(child);
    try {
      // Nothing to back up yet: said, and tried again.
      await waitFor("two failed backups", () => ((output().match(/no backup was written this time/g) ?? []).length >= 2 ? true : undefined), 20_000);
      const sql = new Bun.SQL(url, { max: 1 });
      await sql`insert into pets (id, name, category_id) values (1, 'Rex', 1)`;
      await sql`update animal_store set last_pet_id = 1`;
      await sql.close();
      await waitFor("three checked backups", () => ((output().match(/^checked .*: 1 pets \(last id 1\)/gm) ?? []).length >= 3 ? true : undefined), 20_000);
      expect(backupsIn(dir)).toHaveLength(2);
      await waitFor("the wait for the next backup", () => (/next backup at \S+\n$/.test(output()) ? true : undefined), 10_000);
      child.kill("SIGTERM");
      expect(await child.exited).toBe(0);
      expect(output()).toEndWith("animal-store backup: stopped by SIGTERM between backups\n");
    } finally {
      child.kill("SIGKILL");
    }
  }, 60_000);

  test("bad arguments exit 2 naming each", async () => {
    const outcome = await runCommand("bun", ["backup", "--keep", "0", "--every", "500ms"]);
    expect(outcome.code).toBe(2);
    expect(outcome.stderr.trimEnd().split("\n")).toEqual([
      "animal-store backup: --dir names the folder backups go to, e.g. --dir /var/backups/animal-store",
      'animal-store backup: --keep takes how many backups to keep, a whole number from 1, got "0"',
      'animal-store backup: --every takes an interval such as 30s, 15m, 6h or 1d (at least 1s), got "500ms"',
    ]);
  });
});
