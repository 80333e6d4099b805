import { beforeAll, expect, test } from "bun:test";
import { existsSync, writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import denoJson from "../deno.json" with { type: "json" };
import packageJson from "../package.json" with { type: "json" };
import { tempFolder } from "./temp.ts";

/** Each npm entry point's conditions: `types` and `default` in the build, `bun` in the sources. */
const entries = packageJson.exports as Record<string, Record<string, string> | string>;
let out = "";

beforeAll(() => {
  out = resolve(tempFolder());
  const build = Bun.spawnSync(["node_modules/.bin/tsc", "-p", "tsconfig.build.json", "--outDir", out]);
  expect(build.stdout.toString() + build.stderr.toString()).toBe("");
}, 30_000);

/** Where a package path lands when the build writes to `out` instead of `dist/`. */
const built = (target: string) => target.startsWith("./dist/") ? join(out, target.slice("./dist/".length)) : target;

test("the build writes JavaScript and declarations for every npm entry point", () => {
  const missing = Object.values(entries)
    .flatMap((targets) => typeof targets === "string" ? [targets] : Object.values(targets))
    .filter((target) => !existsSync(built(target)));
  expect(missing).toEqual([]);
});

test("npm and JSR publish the same entry points, from the same sources", () => {
  const bunSources = Object.fromEntries(
    Object.entries(entries).flatMap(([name, targets]) => typeof targets === "string" ? [] : [[name, targets["bun"]]]),
  );
  expect(bunSources).toEqual(denoJson.exports);
});

/** Each npm entry's conditions, for the entries that have them (not `./package.json`). */
const conditioned = Object.entries(entries).flatMap(([name, targets]) => typeof targets === "string" ? [] : [{ name, targets }]);

/** The source of the `animal-store` command, from package.json's `bin` (`dist/x.js` is built from `./x.ts`). */
const binSource = `./${packageJson.bin["animal-store"].replace(/^dist\//, "").replace(/\.js$/, ".ts")}`;

test("the build's root files are exactly the package's entry points and its command (tsconfig.build.json takes them by pattern)", () => {
  const shown = Bun.spawnSync(["node_modules/.bin/tsc", "-p", "tsconfig.build.json", "--showConfig"]);
  const roots = (JSON.parse(shown.stdout.toString()) as { files: string[] }).files;
  expect(roots.toSorted()).toEqual([...conditioned.map(({ targets }) => targets["bun"]!), binSource].toSorted());
});

test("each npm entry's declarations and JavaScript are its own source's build output", () => {
  const mismatched = conditioned
    .filter(({ targets }) => {
      const built = `./dist/${targets["bun"]!.slice("./".length).replace(/\.ts$/, "")}`;
      return targets["types"] !== `${built}.d.ts` || targets["default"] !== `${built}.js`;
    })
    .map(({ name }) => name);
  expect(mismatched).toEqual([]);
});

test("typesVersions names every subpath entry with the declarations its exports entry names, and nothing else", () => {
  const typesVersions = packageJson.typesVersions["*"] as Record<string, string[]>;
  const expected = Object.fromEntries(conditioned.filter(({ name }) => name !== ".").map(({ name, targets }) => [name.slice("./".length), [targets["types"]!]]));
  expect(typesVersions).toEqual(expected);
  expect(packageJson.types).toBe(conditioned.find(({ name }) => name === ".")!.targets["types"]!);
});

test("plain Node, with no loader, runs the built core: a create, then a list", () => {
  const script = `
    import { createApp, createMemoryStore } from ${JSON.stringify(join(out, "src", "mod.js"))};
    const pets = createApp({ store: createMemoryStore(), apiKeys: ["k"] });
    const headers = { authorization: "Bearer k", "content-type": "application/json" };
    const created = await pets.fetch(new Request("http://localhost/v1/pets", { method: "POST", headers, body: '{"name":"Rex","categoryId":1}' }));
    const listed = await pets.fetch(new Request("http://localhost/v1/pets", { headers }));
    console.log(created.status, await listed.text());
  `;
  const run = Bun.spawnSync(["node", "--input-type=module", "-e", script]);
  expect(run.stdout.toString() + run.stderr.toString()).toBe('201 [{"id":1,"name":"Rex","categoryId":1}]\n');
});

test("every entry point's declarations type-check in a Node host without the DOM lib (@types/node only, skipLibCheck off)", () => {
  const declarations = Object.values(entries).flatMap((targets) => typeof targets === "string" ? [] : [targets["types"]!]).filter((target) => target.endsWith(".d.ts"));
  const consumer = join(out, "consumer.ts");
  writeFileSync(consumer, declarations.map((target, i) => `import type * as entry${i} from ${JSON.stringify(built(target).replace(/\.d\.ts$/, ".js"))};\nexport type Entry${i} = typeof entry${i};\n`).join(""));
  const check = Bun.spawnSync([
    "node_modules/.bin/tsc", "--ignoreConfig", "--noEmit", "--strict", "--skipLibCheck", "false", "--target", "ES2022", "--module", "nodenext",
    "--lib", "ES2022", "--types", "node", "--typeRoots", resolve("node_modules/@types"), consumer,
  ]);
  expect(check.stdout.toString() + check.stderr.toString()).toBe("");
}, 30_000);
