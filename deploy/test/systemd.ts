/**
 * @module
 * docs/deploy.md's "Under systemd" under a real systemd as PID 1: Debian 12 with systemd in a
 * container (mmdebstrap and `podman import`, made once per machine), booted by podman
 * (`--systemd=always`, with CAP_SYS_ADMIN: without it systemd skips the units' mount namespace, so
 * `ProtectSystem=strict` would be silently absent), the checkout mounted read-only, and the page's
 * block run in it as printed, as root. Then what the page promises: the server answers with the
 * key file's key, as its own user, with no new privileges and no capability, and writes its data
 * with the system read-only around it but for `ReadWritePaths` (its mounts say so);
 * the backup service backs it up and the page's check passes on the backup; `systemctl reload` reads
 * the key file again; `systemctl stop` ends it
 * with `stopped` and exit 0, and a start finds its pets again.
 */
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { waitFor } from "../../test/checks.ts";
import type { Run } from "./common.ts";
import { expect, KEY } from "./common.ts";
import type { Engine } from "./engine.ts";
import { blocks, ROOT, section } from "./page.ts";

/** Debian 12 with systemd, and curl for the checks; the packages are its tag, so another list makes another image. */
const PACKAGES = ["systemd", "systemd-sysv", "dbus", "curl", "procps"];
const IMAGE = `localhost/animal-store-systemd:bookworm-${PACKAGES.join("-")}`;
const CONTAINER = "animal-store-systemd";
const BASE = "http://127.0.0.1:8080/v1";

/** The systemd image, made once: mmdebstrap's minbase with `PACKAGES`, imported into podman with `/sbin/init` to run. */
function systemdImage(podman: Engine): void {
  if (podman.imageExists(IMAGE)) return;
  const folder = mkdtempSync(join(tmpdir(), "animal-store-systemd-"));
  try {
    const tarball = join(folder, "rootfs.tar");
    const made = Bun.spawnSync(["mmdebstrap", "--quiet", "--variant=minbase", `--include=${PACKAGES.join(",")}`, "--dpkgopt=path-exclude=/usr/share/man/*", "--dpkgopt=path-exclude=/usr/share/doc/*", "--customize-hook=rm -rf \"$1\"/var/lib/apt/lists/*", "bookworm", tarball], { stdout: "pipe", stderr: "pipe", timeout: 600_000 });
    if (made.exitCode !== 0) throw new Error(`mmdebstrap exited ${made.exitCode}:\n${made.stderr}`);
    podman.ok(["import", "--change", "CMD [\"/sbin/init\"]", tarball, IMAGE], 300_000);
  } finally {
    rmSync(folder, { recursive: true, force: true });
  }
}

/** Runs `argv` in the container; its trimmed stdout, or throws with what it said. */
function inside(podman: Engine, argv: readonly string[], timeoutMs?: number): string {
  return podman.ok(["exec", CONTAINER, ...argv], timeoutMs);
}

/** The status a request with the key file's key (or `key`) gets inside the container (0: no answer). */
function status(podman: Engine, path: string, body?: string, key = KEY): number {
  const post = body === undefined ? [] : ["-X", "POST", "-H", "content-type: application/json", "--data", body];
  const result = podman.run(["exec", CONTAINER, "curl", "--silent", "--max-time", "5", "--output", "/dev/null", "--write-out", "%{http_code}", "-H", `Authorization: Bearer ${key}`, ...post, `${BASE}${path}`]);
  return Number(result.stdout.trim() || 0);
}

/** A property of the unit, as `systemctl show` gives it. */
function property(podman: Engine, unit: string, name: string): string {
  return inside(podman, ["systemctl", "show", "--property", name, "--value", unit]);
}

/** The page's systemd section in a booted systemd container, as printed; the container is removed at the end. */
export async function underSystemd(podman: Engine, run: Run): Promise<void> {
  const [install = "", check = ""] = blocks(section("Under systemd"));
  let booted = false;
  try {
    await run.timed("systemd boot", `systemd as PID 1 in a container (${IMAGE}, made once with mmdebstrap), and the page's "Under systemd" block run in it as printed, as root`, async () => {
      if (!existsSync(join(ROOT, "dist", "animal-store"))) throw new Error("dist/animal-store is not built (the page's image block builds it)");
      systemdImage(podman);
      podman.ok(["run", "--detach", "--name", CONTAINER, "--systemd=always", "--cap-add", "SYS_ADMIN", "--volume", `${ROOT}:/src:ro`, IMAGE]);
      booted = true;
      await waitFor("systemd to finish booting", () => (/^(running|degraded)$/.test(podman.run(["exec", CONTAINER, "systemctl", "is-system-running"]).stdout.trim()) ? true : undefined), 60_000);
      podman.ok(["exec", "--workdir", "/src", CONTAINER, "bash", "-e", "-o", "pipefail", "-c", install], 120_000);
      await waitFor("the server to answer", () => (status(podman, "/pets") === 200 ? true : undefined), 30_000).catch((error: Error) => {
        throw new Error(`${error.message}; its journal:\n${podman.run(["exec", CONTAINER, "journalctl", "--unit", "animal-store.service", "--no-pager"]).stdout}`);
      });
    });
    if (!booted || run.anyFailed()) return;
    await run.check("systemd: the server answers with the key file's key, as animal-store, with no new privileges and no capability, and writes its data under ProtectSystem=strict", () => {
      expect("a create", status(podman, "/pets", '{"name":"Rex","categoryId":1}'), 201);
      expect("the unit", [property(podman, "animal-store.service", "ActiveState"), property(podman, "animal-store-backup.timer", "ActiveState")], ["active", "active"]);
      const pid = property(podman, "animal-store.service", "MainPID");
      const proc = inside(podman, ["cat", `/proc/${pid}/status`]);
      const field = (name: string) => new RegExp(`^${name}:\\s+(\\S+)`, "m").exec(proc)?.[1];
      expect("the server's uid, NoNewPrivs, CapBnd", [field("Uid"), field("NoNewPrivs"), field("CapBnd")], [inside(podman, ["id", "-u", "animal-store"]), "1", "0000000000000000"]);
      expect("the data file's owner and mode", inside(podman, ["stat", "--format", "%U %a", "/var/lib/animal-store/pets.json"]), "animal-store 600");
      // Each mount the server sees, by its path: the root read-only (ProtectSystem=strict), its data folder writable.
      const mounts = new Map(inside(podman, ["cat", `/proc/${pid}/mountinfo`]).split("\n").map((line) => line.split(" ")).map((fields) => [fields[4], fields[5]?.split(",")[0]]));
      expect("the server's / and /var/lib/animal-store", [mounts.get("/"), mounts.get("/var/lib/animal-store")], ["ro", "rw"]);
    });
    await run.check("systemd: the backup service backs the store up, and the page's check of the newest backup passes", () => {
      inside(podman, ["systemctl", "start", "animal-store-backup.service"], 60_000);
      expect("the backup's result", property(podman, "animal-store-backup.service", "Result"), "success");
      const said = podman.ok(["exec", CONTAINER, "bash", "-e", "-c", check]);
      if (!/checked \/var\/backups\/animal-store\/latest\.jsonl: 1 pets/.test(said)) throw new Error(`the page's check said:\n${said}`);
    });
    await run.check("systemd: systemctl reload reads the key file again: a key added to it answers, in the same server process", async () => {
      const pid = property(podman, "animal-store.service", "MainPID");
      expect("a key not yet in the file", status(podman, "/pets", undefined, "added-key"), 401);
      inside(podman, ["bash", "-e", "-c", "printf '%s\\n' added-key | animal-store key --name added --stdin >> /etc/animal-store/api-keys"]);
      inside(podman, ["systemctl", "reload", "animal-store.service"], 30_000);
      await waitFor("the added key to answer", () => (status(podman, "/pets", undefined, "added-key") === 200 ? true : undefined), 30_000);
      expect("the server's process", property(podman, "animal-store.service", "MainPID"), pid);
    });
    await run.check("systemd: systemctl stop ends the server with stopped and exit 0, and systemctl start finds its pet again", async () => {
      inside(podman, ["systemctl", "stop", "animal-store.service"], 30_000);
      expect("its exit", [property(podman, "animal-store.service", "Result"), property(podman, "animal-store.service", "ExecMainStatus")], ["success", "0"]);
      const journal = inside(podman, ["journalctl", "--unit", "animal-store.service", "--output", "cat", "--no-pager"]);
      if (!/^stopped$/m.test(journal)) throw new Error(`no "stopped" in the journal:\n${journal}`);
      inside(podman, ["systemctl", "start", "animal-store.service"]);
      await waitFor("the server to answer again", () => (status(podman, "/pets") === 200 ? true : undefined), 30_000);
      expect("the pets", JSON.parse(inside(podman, ["curl", "--silent", "-H", `Authorization: Bearer ${KEY}`, `${BASE}/pets`])).map((pet: { name: string }) => pet.name), ["Rex"]);
    });
  } finally {
    podman.run(["rm", "--force", "--time", "10", CONTAINER]);
  }
}
