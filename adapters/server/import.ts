/**
 * @module
 * `animal-store import [--in FILE] [--append]`: reads an export (`_pet-lines.ts`) from stdin or FILE
 * into the store, keeping every id, all or nothing, then reads the imported pets back and prints
 * their count and checksum beside the export's. `--check` reads the export whole as an import
 * would (its header, every line, the count, last id and checksum of its last line) and opens no
 * store: a backup verified without restoring it.
 *
 * Exit codes: 0 imported (also when a signal cut the read-back short: the import was complete); 2
 * refused, with one line naming the line and the problem (a malformed line, a pet the validators
 * refuse, ids not strictly ascending, an export cut short, a target that holds pets without
 * `--append`); 1 failed (the store went away, a signal before the commit): the target holds none of
 * it; or the read-back differs. With `--check`: 0 it would import, 2 it would not, naming the line,
 * 1 it could not be read.
 */
import { createReadStream } from "node:fs";
import process from "node:process";
import type { ImportSummary, MovedPet } from "../../src/mod.ts";
import type { Config } from "./config.ts";
import type { ExportEnd } from "./_pet-lines.ts";
import type { OpenStore } from "./_move-common.ts";
import { checkPets, ImportRefusedError, MAX_EXACT_INTEGER, readPetLine } from "../../src/mod.ts";
import { createTally, EXPORT_HEADER, InputError, linesOf, readEndLine } from "./_pet-lines.ts";
import type { ImportTarget, OpenContext } from "./stores.ts";
import { onStopSignals, refuse, storeName } from "./_move-common.ts";
import { escapeControls } from "./notices.ts";
import { openImportTarget } from "./stores.ts";

/** How long a signalled import may take to roll back before the process exits anyway. */
const STOP_GRACE_MS = 5000;

/** Below this many ids left above the last imported one, the import says so (ids end at 2^53 − 1). */
const FEW_IDS_LEFT = 1_000_000;

/** How many pets the read-back reads between turns of the event loop, where a signal is heard. */
const READ_BACK_TURN = 10_000;

/** Imports an export into the store the settings name (or with `--check`, into none); resolves with the exit code. */
export async function runImport(config: Config, own: Readonly<Record<string, string>>, context: OpenContext, open: OpenStore): Promise<number> {
  const input = own["--in"] === undefined ? process.stdin : createReadStream(own["--in"]);
  if (own["--check"] !== undefined) return await runCheck(input, own["--in"] ?? "the export on stdin");
  const signals = stopOnSignals(input);
  const read: { end?: ExportEnd; first?: number } = {};
  let store: ImportTarget | undefined;
  try {
    store = await openTarget(config, context, open);
    if (store === undefined) return 1;
    const summary = await store.importPets(readExport(input, read), {
      append: own["--append"] !== undefined,
      clientMacSecrets: () => read.end?.clientMacSecrets ?? [],
    });
    signals.committed();
    reportStored(storeName(config), summary, read.end!);
    const back = await readBack(store.exportPets(), read.first ?? 0, summary.lastId, () => signals.signal !== undefined);
    return reportReadBack(storeName(config), summary, read.end!, back, signals.signal);
  } catch (error) {
    if (error instanceof ImportRefusedError) {
      return refuse("import", [`${error.position === undefined ? "" : `line ${error.position + 2} `}${error.message}; nothing was imported`]);
    }
    if (error instanceof InputError) return refuse("import", [`${error.message}; nothing was imported`]);
    process.stderr.write(`animal-store import: ${error instanceof Error ? error.message : String(error)}; the import was undone, the target holds none of it\n`);
    return 1;
  } finally {
    await store?.close();
    signals.remove();
  }
}

/** What the import writes into; `undefined` once it could not be opened, said as the server says it (a store's `open` exits so itself). */
async function openTarget(config: Config, context: OpenContext, open: OpenStore): Promise<ImportTarget | undefined> {
  try {
    return await openImportTarget(config, context, open);
  } catch (error) {
    process.stderr.write(`animal-store: ${escapeControls(error instanceof Error ? error.message : String(error))}\n`);
    return undefined;
  }
}

/**
 * Reads the export `name` names whole, checking it as an import would, and writes nothing; prints
 * what it holds, or refuses naming the line. Resolves with the exit code: 0 it would import, 2 not,
 * 1 unreadable.
 */
export async function runCheck(input: AsyncIterable<Uint8Array>, name: string): Promise<number> {
  const read: { end?: ExportEnd } = {};
  try {
    const summary = await checkPets(readExport(input, read));
    const keys = summary.keys === 0 ? "" : `, ${summary.keys} idempotency keys younger than 24 hours`;
    process.stdout.write(`checked ${name}: ${summary.count} pets (last id ${summary.lastId})${keys}, sha256 ${read.end!.sha256}: ` +
      "every line is a pet an import takes, and the last line's count, last id and checksum agree; nothing was written\n");
    return 0;
  } catch (error) {
    if (error instanceof ImportRefusedError) return refuse("import --check", [`${name}: ${error.position === undefined ? "" : `line ${error.position + 2} `}${error.message}; it would not import`]);
    if (error instanceof InputError) return refuse("import --check", [`${name}: ${error.message}; it would not import`]);
    process.stderr.write(`animal-store import --check: ${name}: ${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

/** Prints what a committed import stored in the store `name` names, before it is read back. */
function reportStored(name: string, summary: ImportSummary, end: ExportEnd): void {
  process.stdout.write(`imported ${summary.count} pets (last id ${summary.lastId}) into ${name}, sha256 ${end.sha256}\n`);
  process.stdout.write(keysLine(summary));
  if (MAX_EXACT_INTEGER - summary.lastId < FEW_IDS_LEFT) process.stderr.write(`animal-store import: ${roomLine(summary.lastId)}\n`);
}

/**
 * Prints what was read back, or, when a signal cut the read-back short (`back` undefined), that the
 * import is complete all the same; resolves with the exit code: 0, or 1 when the two differ.
 */
function reportReadBack(name: string, summary: ImportSummary, end: ExportEnd, back: ExportEnd | undefined, signal: string | undefined): number {
  if (back === undefined) {
    process.stderr.write(`animal-store import: stopped by ${signal} after the import was complete: ${summary.count} pets are in ${name}; ` +
      "the read-back was cut short, so its count and checksum were not compared\n");
    return 0;
  }
  const agree = back.count === end.count && back.sha256 === end.sha256;
  process.stdout.write(`read back ${back.count} pets from ${name}, sha256 ${back.sha256}: ${agree ? "they agree" : "THEY DIFFER"}\n`);
  return agree ? 0 : 1;
}

function keysLine({ keys, keysLeft }: ImportSummary): string {
  if (keys + keysLeft === 0) return "";
  const left = keysLeft === 0 ? "" : `; ${keysLeft} stayed behind (older than 24 hours, or a JSON-file store's, ` +
    "which keeps only an HMAC of the API key, in a store that cannot match it: a retry of their creates makes a new pet)";
  return `${keys} idempotency keys younger than 24 hours came along${left}\n`;
}

/** What is left to create above an imported last id near the end of the ids: the import is kept (docs/decisions.md), and says so. */
function roomLine(lastId: number): string {
  const left = MAX_EXACT_INTEGER - lastId;
  return left === 0
    ? `no id is left above the last imported id ${lastId} (ids end at 2^53 − 1, and are never reused): every create will answer 503`
    : `only ${left} ids are left above the last imported id ${lastId} (ids end at 2^53 − 1, and are never reused): creates answer 503 once they are used up`;
}

/**
 * The count and checksum of the target's pets from `first` to `last`, read back through its export;
 * `undefined` once `stopped` (a signal) says so.
 */
async function readBack(pets: AsyncIterable<MovedPet>, first: number, last: number, stopped: () => boolean): Promise<ExportEnd | undefined> {
  const tally = createTally();
  let read = 0;
  for await (const moved of pets) {
    // An export from memory never waits for I/O, so without a turn of the event loop no signal is heard.
    if (++read % READ_BACK_TURN === 0) await new Promise((resolve) => setTimeout(resolve, 0));
    if (stopped()) return undefined;
    if (moved.pet.id > last) break;
    if (moved.pet.id >= first) tally.add(moved);
  }
  return stopped() ? undefined : tally.end();
}

/**
 * The pets of an export, checking its header and, once the pets are read, its last line: a count or
 * checksum that differs, or no last line at all (a file cut short), throws before the import commits.
 */
export async function* readExport(chunks: AsyncIterable<Uint8Array>, read: { end?: ExportEnd; first?: number }): AsyncIterable<MovedPet> {
  const tally = createTally();
  let lastLine = 0;
  for await (const { text, number } of linesOf(chunks, () => true)) {
    lastLine = number;
    if (read.end !== undefined) {
      if (text.trim() === "") continue;
      throw new InputError(number, "follows the export's last line");
    }
    if (number === 1) {
      // An editor's byte order mark is read as if absent; carriage returns are dropped by `linesOf`.
      if (text.replace(/^\uFEFF/, "") !== EXPORT_HEADER) throw new InputError(1, `is not the export header ${EXPORT_HEADER}`);
      continue;
    }
    const end = readEndLine(text);
    if (end !== undefined) {
      read.end = checkEnd(end, tally.end(), number);
      continue;
    }
    const pet = readPetLine(text);
    if (!pet.ok) throw new InputError(number, pet.issues.join("; "));
    read.first ??= pet.value.pet.id;
    tally.add(pet.value);
    yield pet.value;
  }
  if (read.end === undefined) {
    throw new InputError(lastLine + 1, 'is missing: the input ends without the export\'s last line {"end":{…}}, so it was cut short');
  }
}

function checkEnd(stated: ExportEnd, counted: ExportEnd, line: number): ExportEnd {
  if (stated.count !== counted.count) throw new InputError(line, `states ${stated.count} pets, but ${counted.count} came before it`);
  if (stated.lastId !== counted.lastId) throw new InputError(line, `states last id ${stated.lastId}, but the last pet before it has id ${counted.lastId}`);
  if (stated.sha256 !== counted.sha256) throw new InputError(line, `states sha256 ${stated.sha256}, but the pets before it sum to ${counted.sha256}`);
  return stated;
}

/**
 * SIGTERM, SIGINT and SIGHUP end the input with an error (the store then undoes the import); the process
 * exits once that is done (stdin may still hold it open on Deno), at the latest after a grace. Once
 * the import has committed there is nothing to undo: a signal only ends the read-back (`signal`).
 */
function stopOnSignals(input: { destroy(error: Error): void }): { readonly signal: string | undefined; committed: () => void; remove: () => void } {
  let grace: ReturnType<typeof setTimeout> | undefined;
  let signal: string | undefined;
  let committed = false;
  const stop = (name: string) => {
    signal ??= name;
    if (committed || grace !== undefined) return;
    input.destroy(new Error(`stopped by ${name}`));
    grace = setTimeout(() => {
      process.stderr.write(`animal-store import: stopped by ${name}, and the store did not finish undoing it within ${STOP_GRACE_MS} ms\n`);
      process.exit(1);
    }, STOP_GRACE_MS);
  };
  const removeSignals = onStopSignals(stop);
  return {
    get signal() {
      return signal;
    },
    committed: () => {
      committed = true;
      clearTimeout(grace);
      grace = undefined;
    },
    remove: () => {
      removeSignals();
      if (grace !== undefined) process.exit(1); // undone and reported: nothing is left to wait for
    },
  };
}
