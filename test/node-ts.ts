/**
 * @module
 * `node` as `npm run start:node` runs TypeScript: with the loader that script imports first
 * (`adapters/server/_ts-loader.mjs`), so a test or tool that starts Node on a `.ts` file runs what users
 * run, not tsx (docs/decisions.md, "How Node runs the TypeScript sources").
 */
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import packageJson from "../package.json" with { type: "json" };

/** The loader `npm run start:node` imports, as a URL, so it is found from any working folder. */
export const NODE_LOADER: string = pathToFileURL(resolve(import.meta.dir, "..", /--import (\S+)/.exec(packageJson.scripts["start:node"])![1]!)).href;

/** The command that runs a `.ts` file on the `node` of `PATH`, as `npm run start:node` does; add the file (and Node's flags before it). */
export const NODE_TS: readonly string[] = Object.freeze(["node", "--import", NODE_LOADER]);
