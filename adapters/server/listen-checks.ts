/**
 * @module
 * Checks made before the server starts, so a setting that cannot work stops it with one line naming
 * the setting and the fix (exit 2) rather than a runtime's own error: a `HOST` this machine cannot
 * listen on, a store's file (`DATA_FILE`) in a folder where no file can be made; and the line for a listen that
 * failed all the same.
 */
import { rmSync, statSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { dirname, join, resolve } from "node:path";
import process from "node:process";
import { makeFolder } from "../_files/make-folder.ts";

/** Why this machine cannot listen on `host`, or `undefined` when it can (tried on a free port, then let go). */
export function hostProblem(host: string): Promise<string | undefined> {
  return new Promise((settle) => {
    const probe = createServer();
    probe.once("error", (error: NodeJS.ErrnoException) => {
      settle(`HOST "${host}" is not an address of this machine (${error.code ?? error.message}); set HOST to one of its addresses, e.g. 127.0.0.1, or 0.0.0.0 for every interface`);
    });
    probe.listen(0, host, () => probe.close(() => settle(undefined)));
  });
}

/**
 * Why no store file can be kept in `path`'s folder, or `undefined` when a file can be made there;
 * `setting` names the path (`DATA_FILE`) in the line.
 */
export function storeFileProblem(path: string, setting: string): string | undefined {
  const folder = dirname(resolve(path));
  // A store writes its lock and temporary files beside its file: one made and removed here
  // finds a folder that exists but takes no files (/proc, a read-only mount) as well as a missing one.
  const probe = join(folder, `.animal-store-check-${process.pid}`);
  try {
    makeFolder(folder);
    writeFileSync(probe, "");
    rmSync(probe);
    return undefined;
  } catch (error) {
    // Deno's sandbox refuses every look at a folder it was not given, the `stat` below included.
    if ((error as Error).name === "NotCapable") {
      return `${setting} "${path}" is in ${folder}, which this Deno server may not read and write (NotCapable); keep ${setting} under data/, or give Deno --allow-read=${folder} --allow-write=${folder}`;
    }
    const file = statSync(folder, { throwIfNoEntry: false })?.isFile() === true;
    const reason = file ? "it is a file, not a folder" : `${(error as NodeJS.ErrnoException).code ?? String(error)}: no file can be made there`;
    return `${setting} "${path}" cannot be kept in ${folder} (${reason}); set ${setting} to a file in a folder this user can write`;
  }
}

/** Why listening failed, in one line, and the exit code it stops the server with. */
export interface ListenProblem {
  readonly message: string;
  /** 1 when the settings are fine but the machine is busy (another process holds the port), 2 when a setting cannot work here. */
  readonly exitCode: 1 | 2;
}

/**
 * The line for a listen on `address` (`host:port`, the port from `setting`) that failed with `error`.
 * Every runtime gives the system's error code (`EACCES`, Deno's `PermissionDenied` too).
 */
export function listenProblem(error: unknown, address: string, setting: string): ListenProblem {
  const code = (error as { code?: unknown } | undefined)?.code;
  const cannot = `Cannot listen on ${address}`;
  switch (code) {
    case "EADDRINUSE":
      return { message: `${cannot}: the address is already in use; stop the server holding it or choose another ${setting}`, exitCode: 1 };
    case "EACCES":
    case "EPERM":
      return { message: `${cannot}: permission denied (${code}); ports below 1024 need root or the CAP_NET_BIND_SERVICE capability: choose a ${setting} from 1024 up`, exitCode: 2 };
    case "EADDRNOTAVAIL":
      return { message: `${cannot}: the address is not available on this machine (EADDRNOTAVAIL); set HOST to one of its addresses, e.g. 127.0.0.1, or 0.0.0.0 for every interface`, exitCode: 2 };
    default: {
      const reason = error instanceof Error ? error.message.split("\n")[0] : String(error);
      return { message: `${cannot}: ${reason}${typeof code === "string" ? ` (${code})` : ""}; check HOST and ${setting}`, exitCode: 1 };
    }
  }
}
