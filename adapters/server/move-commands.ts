/**
 * @module
 * `animal-store export` and `animal-store import`: the store's flags and variables are the server's
 * (`--store`, `--data-file`, `--database-url`), plus each command's own.
 *
 * ```
 * animal-store export --data-file data/pets.json | animal-store import --store postgres --database-url postgres://…
 * ```
 */
import type { OpenStore } from "./_move-common.ts";
import { NOTICES_TO_STDERR, refuse } from "./_move-common.ts";
import { readConfig, settingsOf } from "./config.ts";
import { readSecretFiles, secretFlagWarning } from "./secret-settings.ts";
import { runExport } from "./export.ts";
import { runImport } from "./import.ts";

/** A command's own flags: those that take a value, and those that stand alone. */
export interface CommandFlags {
  readonly valued: readonly string[];
  readonly alone: readonly string[];
}

const FLAGS: Record<"export" | "import", CommandFlags> = {
  export: { valued: ["--out"], alone: [] },
  import: { valued: ["--in"], alone: ["--append"] },
};

/** Runs `export` or `import` (the first argument) and resolves with the exit code: 0 done, 1 failed, 2 refused. */
export async function runMove(args: readonly string[], env: Readonly<Record<string, string | undefined>>, open: OpenStore): Promise<number> {
  const command = args[0] as "export" | "import";
  const split = splitFlags(args.slice(1), FLAGS[command]);
  // The settings as the server reads them, secrets from their files too; API keys play no part.
  const fromFiles = await readSecretFiles(settingsOf(env, split.rest, []));
  if (!fromFiles.ok) return refuse(command, fromFiles.issues);
  const config = readConfig(env, split.rest, fromFiles.value, { keys: false });
  if (!config.ok) return refuse(command, config.issues);
  for (const flag of config.value.secretFlags ?? []) NOTICES_TO_STDERR.warn(secretFlagWarning(flag));
  return command === "export" ? await runExport(config.value, split.own, open) : await runImport(config.value, split.own, open);
}

/** The command's own flags (`--out FILE`, `--out=FILE`, `--append`), and the server's. */
function splitFlags(args: readonly string[], flags: CommandFlags): { own: Record<string, string>; rest: string[] } {
  const own: Record<string, string> = {};
  const rest: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i]!;
    const [flag, value] = arg.includes("=") ? [arg.slice(0, arg.indexOf("=")), arg.slice(arg.indexOf("=") + 1)] : [arg, undefined];
    if (flags.alone.includes(arg)) own[arg] = "yes";
    else if (flags.valued.includes(flag!)) own[flag!] = value ?? args[++i] ?? "";
    else rest.push(arg);
  }
  return { own, rest };
}
