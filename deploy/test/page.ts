/**
 * @module
 * docs/deploy.md's commands, as the deploy test runs them: the fenced `sh` blocks under a heading,
 * each run whole by bash in the repository's root, as a user pastes it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** The repository's root, where the page's commands run. */
export const ROOT: string = join(import.meta.dir, "..", "..");
const PAGE = readFileSync(join(ROOT, "docs", "deploy.md"), "utf8");

/** The page's text under `heading` (a `#`-heading's text), up to the next heading of any level. */
export function section(heading: string): string {
  const start = PAGE.search(new RegExp(`^#+ ${heading.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}\n`, "m"));
  if (start < 0) throw new Error(`docs/deploy.md has no heading "${heading}"`);
  const rest = PAGE.slice(start).split("\n").slice(1).join("\n");
  const next = rest.search(/^#+ /m);
  return next < 0 ? rest : rest.slice(0, next);
}

/** The fenced blocks of `language` in `text`, in order. */
export function blocks(text: string, language = "sh"): string[] {
  return [...text.matchAll(new RegExp(`^\`\`\`${language}\n([\\s\\S]*?)^\`\`\`$`, "gm"))].map((match) => match[1]!);
}

/** The one line of `block` that starts with `start`; throws when there is none or more than one. */
export function line(block: string, start: string): string {
  const found = block.split("\n").filter((text) => text.startsWith(start));
  if (found.length !== 1) throw new Error(`expected one line starting "${start}" in:\n${block}`);
  return found[0]!.replace(/\s+#.*$/, "");
}

/** `block` as run in the shell where `earlier` blocks ran: their `export` lines first, as a user's shell keeps them. */
export function inSession(earlier: readonly string[], block: string): string {
  return [...earlier.flatMap((text) => text.split("\n").filter((each) => each.startsWith("export "))), block].join("\n");
}

/** `block` cut before its line that starts with `start`: the lines above it, and that line with the rest. */
export function splitBefore(block: string, start: string): [string, string] {
  const lines = block.split("\n");
  const at = lines.findIndex((text) => text.startsWith(start));
  if (at < 0) throw new Error(`no line starting "${start}" in:\n${block}`);
  return [lines.slice(0, at).join("\n"), lines.slice(at).join("\n")];
}

/** Runs a printed block with bash (`-e`, `-o pipefail`) in the root; returns its output, or throws with it. */
export function runPrinted(block: string, env: Readonly<Record<string, string | undefined>>, timeoutMs = 300_000): string {
  const result = Bun.spawnSync(["bash", "-e", "-o", "pipefail", "-c", block], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe", timeout: timeoutMs });
  return printedOutcome(block, result.exitCode, result.stdout.toString() + result.stderr.toString());
}

/** `runPrinted` without holding the event loop: what the test does meanwhile (a client's requests) goes on. */
export async function runPrintedAsync(block: string, env: Readonly<Record<string, string | undefined>>, timeoutMs = 300_000): Promise<string> {
  const child = Bun.spawn(["bash", "-e", "-o", "pipefail", "-c", block], { cwd: ROOT, env, stdout: "pipe", stderr: "pipe", timeout: timeoutMs });
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return printedOutcome(block, child.signalCode === null ? code : null, stdout + stderr);
}

function printedOutcome(block: string, code: number | null, output: string): string {
  if (code !== 0) throw new Error(`the printed block exited ${code ?? "on its timeout"}:\n${block}\n--- it said:\n${output.trim()}`);
  return output;
}
