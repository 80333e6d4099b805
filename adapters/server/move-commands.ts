/**
 * @module
 * The commands that work on a store without serving it, `animal-store export`, `import`, `migrate`
 * and `backup`: the store's flags and variables are the server's (`--store`, `--data-file`,
 * `--database-url`), plus each command's own.
 *
 * ```
 * animal-store export --data-file data/pets.json | animal-store import --store postgres --database-url postgres://…
 * ```
 */
import type { OpenStore } from "./_move-common.ts";
import type { OpenContext } from "./stores.ts";
import { refuse } from "./_move-common.ts";
import { readConfig, settingsOf } from "./config.ts";
import { readSecretFiles, secretFlagWarning } from "./secret-settings.ts";
import { runBackup } from "./backup.ts";
import { runExport } from "./export.ts";
import { runImport } from "./import.ts";
import { runMigrate } from "./migrate.ts";

/** A command's own flags: those that take a value, and those that stand alone. */
export interface CommandFlags {
  readonly valued: readonly string[];
  readonly alone: readonly string[];
}

/** The name of a command that works on a store. */
export type StoreCommand = "export" | "import" | "migrate" | "backup";

/** The store commands, each with its own flags. */
const FLAGS: Readonly<Record<StoreCommand, CommandFlags>> = {
  export: { valued: ["--out"], alone: ["--allow-empty"] },
  import: { valued: ["--in"], alone: ["--append", "--check"] },
  migrate: { valued: ["--to"], alone: ["--dry-run"] },
  backup: { valued: ["--dir", "--keep", "--every"], alone: ["--allow-empty"] },
};

/** Whether `name` (the first argument) is a store command. */
export function isStoreCommand(name: string | undefined): name is StoreCommand {
  return name !== undefined && Object.hasOwn(FLAGS, name);
}

/**
 * Runs the store command the first argument names, opening the store as the server does (`open`,
 * which exits 1 naming why it cannot); resolves with the exit code: 0 done, 1 failed, 2 refused.
 */
export async function runMove(args: readonly string[], env: Readonly<Record<string, string | undefined>>, context: OpenContext, open: OpenStore): Promise<number> {
  const command = args[0] as StoreCommand;
  const split = splitFlags(args.slice(1), FLAGS[command]);
  // The settings as the server reads them, secrets from their files too; API keys play no part.
  const fromFiles = await readSecretFiles(settingsOf(env, split.rest, []));
  if (!fromFiles.ok) return refuse(command, fromFiles.issues);
  const config = readConfig(env, split.rest, fromFiles.value, { keys: false });
  if (!config.ok) return refuse(command, config.issues);
  for (const flag of config.value.secretFlags ?? []) context.notices.warn(secretFlagWarning(flag));
  if (command === "migrate") return await runMigrate(config.value, split.own, context);
  if (command === "backup") return await runBackup(config.value, split.own, context);
  return command === "export" ? await runExport(config.value, split.own, context) : await runImport(config.value, split.own, context, open);
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
