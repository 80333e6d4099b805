/**
 * @module
 * `animal-store export [--out FILE]`: every pet of the store, in id order, in the export format
 * (`_pet-lines.ts`) to stdout or FILE, then a line on stderr with the count and checksum.
 *
 * It streams, so memory stays flat, and reads through the store's own methods one consistent
 * snapshot, also while a server runs on the same store (`openExportSource` in `stores.ts`): the
 * JSON-file store's file without its lock, up to its last whole line; PostgreSQL's pets up to the
 * counter as the export began.
 */
import { createWriteStream, rmSync } from "node:fs";
import { rename, rm } from "node:fs/promises";
import process from "node:process";
import type { Writable } from "node:stream";
import type { MovedPet } from "../../src/mod.ts";
import type { Config } from "./config.ts";
import { petLine } from "../../src/mod.ts";
import type { ExportEnd } from "./_pet-lines.ts";
import { createTally, endLine, EXPORT_HEADER } from "./_pet-lines.ts";
import { onStopSignals, storeName } from "./_move-common.ts";
import type { ExportSource, OpenContext } from "./stores.ts";
import { openExportSource } from "./stores.ts";

/** Bytes gathered before each write. */
const WRITE_BYTES = 64 * 1024;

/**
 * Exports the store the settings name; resolves with the exit code (0, or 1 when the store cannot be
 * read, the output written, or a signal stopped it, or it holds no pet and `--allow-empty` was not
 * given). `--out FILE` is written mode 600, as the secret it may carry is kept, to `FILE.partial`
 * renamed into place once complete.
 */
export async function runExport(config: Config, own: Readonly<Record<string, string>>, context: OpenContext): Promise<number> {
  const out = own["--out"];
  const temp = out === undefined ? undefined : `${out}.partial`;
  // A leftover copy keeps its own mode when truncated: it goes first.
  if (temp !== undefined) rmSync(temp, { force: true });
  const sink: Writable = temp === undefined ? process.stdout : createWriteStream(temp, { flags: "w", mode: 0o600 });
  let renaming = false;
  // Nothing to undo but the copy: a signal removes it, says so and ends the process at once.
  const removeSignals = onStopSignals((name) => {
    if (renaming) return; // complete: it is being put in place
    if (temp !== undefined) rmSync(temp, { force: true });
    process.stderr.write(`animal-store export: stopped by ${name}; nothing complete was written\n`);
    process.exit(1);
  });
  try {
    const end = await exportFrom(await openExportSource(config, context), sink, { allowEmpty: own["--allow-empty"] !== undefined, name: storeName(config) });
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
    process.stderr.write(`animal-store export: ${error instanceof Error ? error.message : String(error)}; nothing complete was written\n`);
    return 1;
  }
}

/** Writes the export of `source` to `sink`, and closes `source` whatever happens. */
async function exportFrom(source: ExportSource, sink: Writable, { allowEmpty, name }: { allowEmpty: boolean; name: string }): Promise<ExportEnd> {
  let end: ExportEnd;
  try {
    end = await writeExport(source.exportPets(), sink, {
      clientMacSecrets: async () => (await source.clientMacSecrets?.()) ?? [],
      ...(allowEmpty ? {} : { whenEmpty: () => new Error(emptyStore(name)) }),
    });
  } catch (error) {
    await source.close().catch(() => {}); // the error that stopped the export is the one to report
    throw error;
  }
  await source.close();
  return end;
}

/**
 * Why an export of a store without a single pet is refused: a backup of a store never written is
 * nearly always one of the wrong store (another path, database or Compose project), and a backup
 * that restores nothing must not pass for one (docs/decisions.md).
 */
function emptyStore(name: string): string {
  return `${name} holds no pet, so a backup of it would restore nothing: if it is the wrong store, check STORE, DATA_FILE or ` +
    "DATABASE_URL (with Compose, -p animal-store); if it is empty on purpose (a new deployment), pass --allow-empty";
}

/** What `writeExport` may be told besides the pets. */
export interface WriteExportOptions {
  /** The secrets keys made under a JSON-file store's secret were made under, asked once the pets are written. */
  readonly clientMacSecrets?: () => Promise<readonly string[]>;
  /** When there is no pet: the error to throw before anything is written. Absent: an empty export is written. */
  readonly whenEmpty?: () => Error;
}

/**
 * Writes the export format to `sink`, streaming; resolves with what its last line states, which
 * names `clientMacSecrets` when keys made under a JSON-file store's secret came along.
 */
export async function writeExport(pets: AsyncIterable<MovedPet>, sink: Writable, options: WriteExportOptions = {}): Promise<ExportEnd> {
  const { clientMacSecrets = async () => [], whenEmpty } = options;
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
  // Nothing is written yet without a pet: the header waits in `pending` with the last line.
  if (tally.count === 0 && whenEmpty !== undefined) throw whenEmpty();
  const secrets = tally.macKeys > 0 ? await clientMacSecrets() : [];
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
