/**
 * @module
 * The package's `animal-store` command as users run it: the packed tarball installed into a fresh
 * folder of its own (no tsx, no Bun, no devDependencies), then `npx animal-store` and `bunx
 * animal-store` on Node and `bunx --bun animal-store` on Bun, each answering `--version` and `--help`, serving the API from the
 * compiled `dist/`, and printing `stopped` on SIGTERM; and the command of the systemd unit
 * deploy/systemd/animal-store-node.service (`node` on the package's entry), stopped by SIGTERM to its
 * pid alone. Run by `run.ts`
 * (`npm run test:packaging`).
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import packageJson from "../package.json" with { type: "json" };
import { TRACE_PACKAGES } from "../adapters/server/_otlp-export.ts";
import { startOtlpReceiver } from "../test/fixtures/otlp-receiver.ts";

type Check = (name: string, body: () => Promise<void> | void) => Promise<void>;

const KEY = "bin-check-key";
const HEADERS = { authorization: `Bearer ${KEY}`, "content-type": "application/json" };
/** npx and bunx from this machine; Bun from the project's devDependency. */
const BUN = join(import.meta.dir, "..", "node_modules", ".bin", "bun");
const COMMANDS = {
  "npx animal-store (Node)": { argv: ["npx", "--no", "--", "animal-store"], runtime: "node" },
  // bunx honours the bin's `#!/usr/bin/env node`; `--bun` runs it on Bun, with Bun's server and client.
  "bunx animal-store (Node, by its shebang)": { argv: [BUN, "x", "animal-store"], runtime: "node" },
  "bunx --bun animal-store (Bun)": { argv: [BUN, "x", "--bun", "animal-store"], runtime: "bun" },
} as const;

function run(argv: readonly string[], cwd: string): { code: number; output: string } {
  const result = Bun.spawnSync([...argv], { cwd, stdout: "pipe", stderr: "pipe", timeout: 60_000 });
  return { code: result.exitCode ?? -1, output: result.stdout.toString() + result.stderr.toString() };
}

function groupAlive(group: number): boolean {
  try {
    process.kill(-group, 0);
    return true;
  } catch {
    return false;
  }
}

/**
 * Starts `argv` in a process group of its own; resolves with its URL, or throws with its output.
 * `stop` sends SIGTERM to the whole group (as systemd does), or with `pidOnly` to the started
 * process alone (as a supervisor that signals its child's pid does), and throws if any of the group
 * is still running 15 s later.
 */
async function startServer(argv: readonly string[], cwd: string, pidOnly = false, env: Record<string, string> = {}): Promise<{ url: string; stop(): Promise<string> }> {
  const child = Bun.spawn(["setsid", ...argv], { cwd, env: { ...process.env, PORT: "0", API_KEYS: KEY, ...env }, stdout: "pipe", stderr: "pipe" });
  let output = "";
  for (const stream of [child.stdout, child.stderr]) {
    void (async () => {
      for await (const chunk of stream) output += new TextDecoder().decode(chunk);
    })();
  }
  // npx may exit before the server it started has finished stopping: wait for the whole group.
  const stop = async () => {
    process.kill(pidOnly ? child.pid : -child.pid, "SIGTERM");
    const deadline = Date.now() + 15_000;
    while (groupAlive(child.pid) && Date.now() < deadline) await Bun.sleep(50);
    const leftOver = groupAlive(child.pid);
    if (leftOver) process.kill(-child.pid, "SIGKILL");
    await child.exited;
    if (leftOver) throw new Error(`still running 15 s after SIGTERM to ${pidOnly ? "its pid" : "its group"}:\n${output}`);
    return output;
  };
  const deadline = Date.now() + 30_000;
  for (;;) {
    const url = /listening on (http:\/\/\S+)/.exec(output)?.[1];
    if (url !== undefined) return { url, stop };
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop();
      throw new Error(`${argv.join(" ")} did not start:\n${output}`);
    }
    await Bun.sleep(50);
  }
}

/** The checks of the `animal-store` command, on the tarball at `tarball`. */
export async function checkBin(check: Check, tarball: string): Promise<void> {
  const project = mkdtempSync(join(tmpdir(), "animal-store-bin-"));
  try {
    await check("the tarball installs alone into a fresh folder made by npm init -y, with the animal-store command", () => {
      for (const argv of [["npm", "init", "-y"], ["npm", "install", "--no-audit", "--no-fund", "--offline", tarball]]) {
        const done = run(argv, project);
        if (done.code !== 0) throw new Error(done.output);
      }
    });
    await check("the systemd unit's command (deploy/systemd/animal-store-node.service: node on the package's entry): SIGTERM to its pid prints stopped and leaves nothing running", async () => {
      const printed = /^ExecStart=(.*)$/m.exec(readFileSync(join(import.meta.dir, "..", "deploy", "systemd", "animal-store-node.service"), "utf8"))?.[1];
      if (printed === undefined) throw new Error("deploy/systemd/animal-store-node.service has no ExecStart= line");
      const argv = printed.replaceAll("/srv/animal-store", project).split(" ");
      const server = await startServer(argv, project, true);
      const said = await server.stop();
      if (!/^stopped$/m.test(said)) throw new Error(`no "stopped" after SIGTERM:\n${said}`);
    });
    for (const [name, { argv, runtime }] of Object.entries(COMMANDS)) {
      await check(`${name} --version and --help answer and exit 0`, () => {
        const version = run([...argv, "--version"], project);
        if (version.code !== 0 || !version.output.startsWith(`animal-store ${packageJson.version} (${runtime} `)) throw new Error(`exit ${version.code}: ${version.output}`);
        const help = run([...argv, "--help"], project);
        if (help.code !== 0 || !help.output.includes("--port PORT")) throw new Error(`exit ${help.code}: ${help.output}`);
      });
      await check(`${name} starts the standalone server: a pet created and listed, then SIGTERM prints stopped`, async () => {
        const server = await startServer(argv, project);
        let said = "";
        try {
          const created = await fetch(`${server.url}/pets`, { method: "POST", headers: HEADERS, body: '{"name":"Rex","categoryId":1}' });
          if (created.status !== 201) throw new Error(`POST answered ${created.status}`);
          const listed = (await (await fetch(`${server.url}/pets`, { headers: HEADERS })).json()) as { name: string }[];
          if (!listed.some((pet) => pet.name === "Rex")) throw new Error(`GET /pets: ${JSON.stringify(listed)}`);
        } finally {
          said = await server.stop();
        }
        if (!/^stopped$/m.test(said)) throw new Error(`no "stopped" after SIGTERM:\n${said}`);
      });
    }
    await checkTraces(check, project);
  } finally {
    rmSync(project, { recursive: true, force: true });
  }
}

/** The install line docs/operating.md gives for traces: `npm install` and the OpenTelemetry packages. */
function traceInstallLine(): string[] {
  const line = readFileSync(join(import.meta.dir, "..", "docs", "operating.md"), "utf8").split("\n").find((text) => text.startsWith("npm install @opentelemetry/"));
  return line?.split(" ") ?? [];
}

/** Traces from the command as npm installs it: spans with nothing of OpenTelemetry installed (the server records and exports them itself). */
async function checkTraces(check: Check, project: string): Promise<void> {
  const { argv } = COMMANDS["npx animal-store (Node)"];
  await check("docs/operating.md's install line for OTEL_DENO names the version the server asks for", () => {
    const line = traceInstallLine();
    if (line.slice(2).join(" ") !== TRACE_PACKAGES.join(" ")) throw new Error(`docs/operating.md gives ${JSON.stringify(line.join(" "))}, the server asks for ${TRACE_PACKAGES.join(" ")}`);
  });
  await check("npx animal-store with OTEL_EXPORTER_OTLP_ENDPOINT and nothing of OpenTelemetry installed exports a span per request to an OTLP/HTTP receiver", async () => {
    const receiver = startOtlpReceiver();
    try {
      const server = await startServer(argv, project, false, { STORE: "memory", OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
      try {
        const listed = await fetch(`${server.url}/pets`, { headers: HEADERS });
        if (listed.status !== 200) throw new Error(`GET /pets answered ${listed.status}`);
      } finally {
        await server.stop();
      }
      await receiver.waitFor((span) => span.name === "GET /v1/pets", 1);
    } finally {
      await receiver.stop();
    }
  });
}
