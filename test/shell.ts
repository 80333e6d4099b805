/**
 * @module
 * Running a page's shell command in the repository, as a reader would paste it.
 */

/** Runs `command` under bash (`pipefail`), killed after `timeoutMs`; resolves with its stdout and stderr, rejects with them unless it exits 0. */
export async function shell(command: string, timeoutMs = 120_000): Promise<{ stdout: string; stderr: string }> {
  const child = Bun.spawn(["bash", "-o", "pipefail", "-c", command], { stdout: "pipe", stderr: "pipe" });
  const timer = setTimeout(() => child.kill("SIGKILL"), timeoutMs);
  const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  clearTimeout(timer);
  if (code !== 0) throw new Error(`${command} exited ${code}:\n${stdout}${stderr}`);
  return { stdout, stderr };
}
