/**
 * @module
 * `animal-store backup --dir DIR [--keep N] [--every INTERVAL] [--allow-empty]`: an export of the store
 * the settings name into `DIR/pets-<UTC time>.jsonl` (as `export --out` writes it: mode 600, complete
 * or absent), read back whole and checked as `import --check` checks it, then the oldest backups in
 * `DIR` beyond the newest `N` (default 7) removed. Once, for a timer (systemd's); with `--every`,
 * at once and then every INTERVAL (`30s`, `15m`, `6h`, `1d`) until a signal, for a service of its own
 * (Compose's): a backup that fails is said and the next one is tried at its time.
 *
 * `DIR/latest.jsonl` is a link to the newest backup that passed its check, for a restore (or a
 * drill) to name. Only files named as it names them are counted and removed; a backup whose check
 * failed is renamed `….jsonl.failed`, so it is kept for a look and never counted among the good ones.
 *
 * Exit codes, once: 0 written and checked, 1 not (nothing of it counted), 2 bad arguments. With
 * `--every`: 0 once a signal stops it between backups.
 */
import { createReadStream } from "node:fs";
import { mkdir, readdir, rename, rm, symlink } from "node:fs/promises";
import { basename, join } from "node:path";
import process from "node:process";
import type { Config } from "./config.ts";
import type { OpenContext } from "./stores.ts";
import { onStopSignals, refuse } from "./_move-common.ts";
import { runExport } from "./export.ts";
import { runCheck } from "./import.ts";

/** How a backup is named: the UTC time it began, so names sort as times do. */
const BACKUP_NAME = /^pets-\d{8}T\d{6}\.\d{3}Z\.jsonl$/;

/** The link to the newest backup that passed its check. */
const LATEST = "latest.jsonl";

/** How many backups are kept unless `--keep` says. */
const DEFAULT_KEEP = 7;

const UNIT_SECONDS: Readonly<Record<string, number>> = { s: 1, m: 60, h: 3600, d: 86_400 };

/** Runs `backup` with its own flags; resolves with the exit code. */
export async function runBackup(config: Config, own: Readonly<Record<string, string>>, context: OpenContext): Promise<number> {
  const dir = own["--dir"];
  const keep = own["--keep"] === undefined ? DEFAULT_KEEP : wholeNumber(own["--keep"]);
  const every = own["--every"] === undefined ? undefined : intervalMs(own["--every"]);
  const problems = [
    ...(dir === undefined || dir === "" ? ["--dir names the folder backups go to, e.g. --dir /var/backups/animal-store"] : []),
    ...(keep === undefined ? [`--keep takes how many backups to keep, a whole number from 1, got "${own["--keep"]}"`] : []),
    ...(every === null ? [`--every takes an interval such as 30s, 15m, 6h or 1d (at least 1s), got "${own["--every"]}"`] : []),
  ];
  if (problems.length > 0) return refuse("backup", problems);
  const once = () => backupOnce(config, { dir: dir!, keep: keep!, allowEmpty: own["--allow-empty"] !== undefined }, context);
  if (every === undefined) return await once();
  for (;;) {
    await once();
    const next = new Date(Date.now() + every!);
    say(`next backup at ${next.toISOString()}`);
    const signal = await sleepUnlessStopped(every!);
    if (signal !== undefined) {
      say(`stopped by ${signal} between backups`);
      return 0;
    }
  }
}

/** One backup: written, checked, and the oldest beyond `keep` removed; resolves with the exit code. */
async function backupOnce(config: Config, options: { dir: string; keep: number; allowEmpty: boolean }, context: OpenContext): Promise<number> {
  const { dir, keep, allowEmpty } = options;
  const path = join(dir, `pets-${new Date().toISOString().replaceAll("-", "").replaceAll(":", "")}.jsonl`);
  try {
    await mkdir(dir, { recursive: true, mode: 0o700 });
  } catch (error) {
    say(`cannot make ${dir} (${error instanceof Error ? error.message : String(error)}); no backup was written`, true);
    return 1;
  }
  const exported = await runExport(config, { "--out": path, ...(allowEmpty ? { "--allow-empty": "yes" } : {}) }, context);
  if (exported !== 0) {
    say(`no backup was written this time (the export failed, above)`, true);
    return 1;
  }
  if ((await runCheck(createReadStream(path), path)) !== 0) {
    await rename(path, `${path}.failed`);
    say(`${path} did not pass its check, above: kept as ${path}.failed, not counted`, true);
    return 1;
  }
  await linkLatest(dir, basename(path));
  for (const name of await removable(dir, keep)) {
    await rm(join(dir, name), { force: true });
    say(`removed ${join(dir, name)}, keeping the newest ${keep}`);
  }
  return 0;
}

/** Points `DIR/latest.jsonl` at the backup `name`, in one step (a link made beside it, renamed over the old one). */
async function linkLatest(dir: string, name: string): Promise<void> {
  const temp = join(dir, `.${LATEST}.new`);
  await rm(temp, { force: true });
  await symlink(name, temp);
  await rename(temp, join(dir, LATEST));
}

/** The backups in `dir` beyond the newest `keep`, oldest first: only files named as a backup is. */
async function removable(dir: string, keep: number): Promise<string[]> {
  const names = (await readdir(dir)).filter((name) => BACKUP_NAME.test(name)).sort();
  return names.slice(0, Math.max(0, names.length - keep));
}

/** Waits `ms`, or less when a stop signal comes: resolves with the signal's name, or `undefined` once the time is up. */
function sleepUnlessStopped(ms: number): Promise<string | undefined> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => (remove(), resolve(undefined)), ms);
    const remove = onStopSignals((name) => (clearTimeout(timer), remove(), resolve(name)));
  });
}

/** `text` as a whole number from 1, or `undefined`. */
function wholeNumber(text: string): number | undefined {
  return /^[1-9][0-9]{0,5}$/.test(text) ? Number(text) : undefined;
}

/** An interval such as `30s`, `15m`, `6h`, `1d` in milliseconds, or `null` when it is none (under a second, or past a timer's reach). */
function intervalMs(text: string): number | null {
  const match = /^([1-9][0-9]{0,6})(s|m|h|d)$/.exec(text);
  const ms = match === null ? 0 : Number(match[1]) * UNIT_SECONDS[match[2]!]! * 1000;
  return ms >= 1000 && ms <= 2 ** 31 - 1 ? ms : null;
}

/** One line of the command's own: on stdout, or stderr for a failure. */
function say(text: string, failed = false): void {
  (failed ? process.stderr : process.stdout).write(`animal-store backup: ${text}\n`);
}
