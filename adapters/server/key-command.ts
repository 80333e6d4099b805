/**
 * @module
 * `animal-store key`: the line of a key file (`API_KEYS_FILE`) for a new key, on stdout, ready to be
 * appended to the file. The key is generated (32 random bytes, as the server's own), or read from
 * stdin with `--stdin`, never from the command line, where other users' `ps` would see it. The line
 * holds only the key's SHA-256; a generated key is written to `--key-out FILE` (mode 600, a new file)
 * or printed once on stderr, for its client.
 *
 * ```
 * animal-store key --name shop --key-out shop.key >> data/keys
 * animal-store key --name reports --scope read --expires 2027-01-01T00:00:00Z --stdin < reports.key >> data/keys
 * ```
 */
import process from "node:process";
import { createKeyRing, keyFileLine } from "../../src/mod.ts";
import type { ApiKeyEntry, KeyScope } from "../../src/mod.ts";
import { writeSecretOnce } from "../_files/secret-file.ts";
import { errorCode } from "../_files/error-code.ts";
import { generateKey } from "./config.ts";

/** The command's usage line, for `--help`. */
export const KEY_USAGE = "animal-store key --name NAME [--scope read] [--expires TIME] [--stdin | --key-out FILE]   the key file's line for a new key";

const VALUED = ["--name", "--scope", "--expires", "--key-out"];
/** The most a key read from stdin may be, with its line end: a key is at most 1,024 characters. */
const MAX_STDIN_BYTES = 4096;

/** Runs `key` with its arguments (after `key`); resolves with the exit code: 0 printed, 2 refused, 1 failed. */
export async function runKeyCommand(args: readonly string[]): Promise<number> {
  const flags = flagsOf(args);
  if (typeof flags === "string") return refuse(flags);
  const name = flags["--name"];
  if (name === undefined) return refuse("key needs --name NAME, the name the access log and traces give the key's client");
  if (flags["--stdin"] !== undefined && flags["--key-out"] !== undefined) return refuse("key takes --stdin (a key of yours) or --key-out (a new key written there), not both");
  const key = flags["--stdin"] === undefined ? generateKey() : await keyFromStdin();
  if (key === undefined) return refuse("--stdin needs the key on stdin, one line");
  const entry: ApiKeyEntry = { name, key, scope: flags["--scope"] as KeyScope | undefined, expires: flags["--expires"] };
  try {
    createKeyRing([entry]);
  } catch (error) {
    // The ring's words for the one entry, without its place in a list the user never wrote.
    return refuse((error as Error).message.replace(/^Cannot check API keys: apiKeys\[0\] \("[^"]*"\): /, "").replace(/^Cannot check API keys: /, ""));
  }
  const out = flags["--key-out"];
  if (out !== undefined) {
    try {
      await writeSecretOnce(out, key);
    } catch (error) {
      const code = errorCode(error);
      return fail(code === "EEXIST" ? `--key-out ${out} exists; choose a new file, a key is never written over another` : `cannot write --key-out ${out} (${code ?? String(error)})`);
    }
  }
  process.stdout.write(`${keyFileLine(entry)}\n`);
  if (flags["--stdin"] === undefined) {
    process.stderr.write(out === undefined
      ? `animal-store: the key for ${name}, for its client (the line holds only its SHA-256; it is printed this once): ${key}\n`
      : `animal-store: the key for ${name} is in ${out} (mode 600), for its client\n`);
  }
  return 0;
}

/** The flags by name (`--stdin` as `""`), or what is wrong with the arguments. */
function flagsOf(args: readonly string[]): Record<string, string> | string {
  const flags: Record<string, string> = {};
  for (let i = 0; i < args.length; i++) {
    const [flag = "", inline] = args[i]!.includes("=") ? [args[i]!.slice(0, args[i]!.indexOf("=")), args[i]!.slice(args[i]!.indexOf("=") + 1)] : [args[i]!, undefined];
    if (flag === "--stdin" && inline === undefined) flags[flag] = "";
    else if (VALUED.includes(flag)) {
      const value = inline ?? args[++i];
      if (value === undefined) return `${flag} needs a value`;
      flags[flag] = value;
    } else return `key takes ${[...VALUED, "--stdin"].join(", ")}, got ${JSON.stringify(args[i])}; the key itself never goes on the command line (--stdin reads it)`;
  }
  return flags;
}

/** The one line stdin holds, without its line end; `undefined` when it holds none or more. */
async function keyFromStdin(): Promise<string | undefined> {
  const chunks: Uint8Array[] = [];
  let length = 0;
  for await (const chunk of process.stdin as AsyncIterable<Uint8Array>) {
    chunks.push(chunk);
    length += chunk.length;
    if (length > MAX_STDIN_BYTES) return undefined;
  }
  const text = new TextDecoder().decode(Buffer.concat(chunks)).replace(/\r?\n$/, "");
  return text === "" || text.includes("\n") ? undefined : text;
}

function refuse(problem: string): number {
  process.stderr.write(`animal-store: ${problem}\n`);
  return 2;
}

function fail(problem: string): number {
  process.stderr.write(`animal-store: ${problem}\n`);
  return 1;
}
