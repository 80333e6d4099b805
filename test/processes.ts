/**
 * @module
 * Processes for lock tests: dead ones, zombies, and the identities their lock files would hold.
 */
import type { ProcessIdentity } from "../adapters/json-file-store/_process-identity.ts";
import { identityOf } from "../adapters/json-file-store/_process-identity.ts";

/** The identity of a process that ran and has exited (and was reaped). */
export async function deadProcess(): Promise<ProcessIdentity> {
  const child = Bun.spawn(["sleep", "0.05"]);
  const identity = await identityOf(child.pid);
  await child.exited;
  return identity;
}

/** A zombie (exited, never reaped by its parent, so `kill(pid, 0)` still succeeds) and its identity. */
export async function zombie(): Promise<{ identity: ProcessIdentity; stop: () => void }> {
  // The shell starts a short `sleep` in the background and becomes a long one, which never reaps it;
  // the child ends after that exec, so the shell cannot reap it first.
  const parent = Bun.spawn(["sh", "-c", "sleep 0.2 & echo $!; exec sleep 30"], { stdout: "pipe" });
  const reader = parent.stdout.getReader();
  const pid = Number(new TextDecoder().decode((await reader.read()).value).trim());
  reader.releaseLock();
  while (!(await Bun.file(`/proc/${pid}/stat`).text()).includes(") Z ")) await Bun.sleep(10);
  return { identity: await identityOf(pid), stop: () => parent.kill() };
}
