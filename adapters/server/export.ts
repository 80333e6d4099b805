/**
 * @module
 * `animal-store export [--out FILE]`: every pet of the store, in id order, in the export format
 * (`_pet-lines.ts`) to stdout or FILE, then a line on stderr with the count and checksum.
 *
 * It streams, so memory stays flat, and reads one consistent snapshot while a server runs on the
 * same store: the JSON-file store's file is read without its lock, up to its last whole line (lines
 * are only ever appended whole); PostgreSQL's pets up to the counter as the export began.
 */
import { createReadStream, createWriteStream, rmSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import process from "node:process";
import type { Writable } from "node:stream";
import type { MovedPet } from "../../src/mod.ts";
import type { Config } from "./config.ts";
import type { OpenStore } from "./_move-common.ts";
import { exportPets, IDEMPOTENCY_KEY_TTL_MS, petLine, readPetLine } from "../../src/mod.ts";
import { JOURNAL_HEADER, parsesAsJson } from "../json-file-store/_journal.ts";
import { readSecret } from "../_files/secret-file.ts";
import { isSecretText } from "../_client-mac.ts";
import type { ExportEnd } from "./_pet-lines.ts";
import { createTally, endLine, EXPORT_HEADER, InputError, linesOf } from "./_pet-lines.ts";
import { onStopSignals, storeName } from "./_move-common.ts";

/** Bytes gathered before each write. */
const WRITE_BYTES = 64 * 1024;

/**
 * Exports the store the settings name; resolves with the exit code (0, or 1 when the store cannot be
 * read, the output written, or a signal stopped it). `--out FILE` is written mode 600, as the secret
 * it may carry is kept, to `FILE.partial` renamed into place once complete.
 */
export async function runExport(config: Config, own: Readonly<Record<string, string>>, open: OpenStore): Promise<number> {
  const out = own["--out"];
  const temp = out === undefined ? undefined : `${out}.partial`;
  // A leftover copy keeps its own mode when truncated: it goes first.
  if (temp !== undefined) rmSync(temp, { force: true });
  const sink: Writable = temp === undefined ? process.stdout : createWriteStream(temp, { flags: "w", mode: 0o600 });
  const secrets: string[] = [];
  let renaming = false;
  // Nothing to undo but the copy: a signal removes it, says so and ends the process at once.
  const removeSignals = onStopSignals((name) => {
    if (renaming) return; // complete: it is being put in place
    if (temp !== undefined) rmSync(temp, { force: true });
    process.stderr.write(`animal-store export: stopped by ${name}; nothing complete was written\n`);
    process.exit(1);
  });
  try {
    const end = await writeExport(pets(config, open, secrets), sink, () => secrets);
    if (temp !== undefined) {
      await closeFile(sink);
      renaming = true;
      await rename(temp, out!);
    }
    removeSignals();
    process.stderr.write(`exported ${end.count} pets (last id ${end.lastId}) from ${storeName(config)}, sha256 ${end.sha256}\n`);
    return 0;
  } catch (error) {
    removeSignals();
    if (temp !== undefined) await closeFile(sink).catch(() => {}), await rm(temp, { force: true });
    const missing = config.store === "file" && (error as { code?: unknown }).code === "ENOENT" && !(error as { path?: string }).path?.endsWith(".partial");
    const problem = missing ? `${config.dataFile} does not exist` : error instanceof Error ? error.message : String(error);
    process.stderr.write(`animal-store export: ${problem}; nothing complete was written\n`);
    return 1;
  }
}

/**
 * The pets to export: the data file read directly (no lock), or the store's own export; once they
 * are read, `secrets` holds what their keys' `clientMac` was made under.
 */
async function* pets(config: Config, open: OpenStore, secrets: string[]): AsyncIterable<MovedPet> {
  if (config.store === "file") {
    yield* readDataFile(config.dataFile, Date.now());
    const read = await readSecret(`${config.dataFile}.secret`);
    // Only a usable secret goes along; without it the file's keys stay behind in another store.
    if (read.kind === "found" && isSecretText(read.text)) secrets.push(read.text);
    return;
  }
  const store = await open(config);
  try {
    yield* exportPets(store);
    secrets.push(...(await store.clientMacSecrets?.()) ?? []);
  } finally {
    await store.close();
  }
}

/**
 * The pets of a JSON-file store's data file, read without taking its lock or writing to it, up to
 * its last whole line, each with its key when younger than 24 hours at `now`.
 */
export async function* readDataFile(path: string, now: number): AsyncIterable<MovedPet> {
  // A torn last line (a write in progress) never parses; a whole one missing its newline does.
  const lines = linesOf(createReadStream(path), parsesAsJson);
  for await (const { text, number } of lines) {
    const problem = (what: string) => new InputError(number, what);
    if (number === 1) {
      if (text !== JOURNAL_HEADER) throw problem(`of ${path} is not the data file header ${JOURNAL_HEADER}`);
      continue;
    }
    const line = readPetLine(text);
    if (!line.ok) throw new Error(`${path}: line ${number} ${line.issues.join("; ")}`);
    const { pet, key } = line.value;
    yield key !== undefined && now - key.at < IDEMPOTENCY_KEY_TTL_MS ? { pet, key } : { pet };
  }
}

/**
 * Writes the export format to `sink`, streaming; resolves with what its last line states, which
 * names `clientMacSecrets` (asked once the pets are written) when keys made under a JSON-file store's
 * secret came along.
 */
export async function writeExport(pets: AsyncIterable<MovedPet>, sink: Writable, clientMacSecrets: () => readonly string[] = () => []): Promise<ExportEnd> {
  const tally = createTally();
  let pending = `${EXPORT_HEADER}\n`;
  for await (const moved of pets) {
    tally.add(moved);
    pending += `${petLine(moved)}\n`;
    if (pending.length >= WRITE_BYTES) {
      await write(sink, pending);
      pending = "";
    }
  }
  const secrets = tally.macKeys > 0 ? clientMacSecrets() : [];
  const end = secrets.length > 0 ? { ...tally.end(), clientMacSecrets: secrets } : tally.end();
  await write(sink, `${pending}${endLine(end)}\n`);
  return end;
}

/** Writes `text`, resolving once the stream took it (so memory stays flat however slow the reader). */
function write(sink: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    sink.once("error", reject);
    sink.write(text, (error) => {
      sink.off("error", reject);
      if (error) reject(error);
      else resolve();
    });
  });
}

function closeFile(sink: Writable): Promise<void> {
  return new Promise((resolve, reject) => sink.end((error?: Error | null) => (error ? reject(error) : resolve())));
}
