/**
 * @module
 * Private: the `code` of a file system error (`ENOENT`, `EEXIST`), the same on Bun, Deno and Node.
 */

/** The error's `code` (`ENOENT`, `EEXIST`), or `undefined` when it has none. */
export function errorCode(error: unknown): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}
