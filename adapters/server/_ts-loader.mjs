/**
 * @module
 * `node --import ./adapters/server/_ts-loader.mjs <entry>.ts`: runs the TypeScript sources on Node as
 * `tsc` emits them. Where Node strips types itself (22.18 and later) it does nothing; on older Node
 * it strips them with esbuild, source maps on for stack traces, and without tsx's `keepNames`, whose
 * `__name` call on each function made by name gave V8 functions of another shape and cost every
 * request that makes one (bench/RESULTS.md, "Issue 53, third round").
 */
import { readFileSync } from "node:fs";
import module from "node:module";
import { fileURLToPath } from "node:url";
import { isMainThread } from "node:worker_threads";
import { transformSync } from "esbuild";

/** A `.ts` file's JavaScript, its source map inline. */
function javaScriptOf(path) {
  return transformSync(readFileSync(path, "utf8"), {
    loader: "ts",
    format: "esm",
    target: `node${process.versions.node}`,
    sourcefile: path,
    sourcemap: "inline",
    // The two settings of tsconfig.json that change the JavaScript emitted.
    tsconfigRaw: { compilerOptions: { verbatimModuleSyntax: true, useDefineForClassFields: true } },
  }).code;
}

/** The load hook: a `.ts` file as JavaScript; anything else as Node loads it. */
export function load(url, context, nextLoad) {
  if (!url.startsWith("file:") || !url.endsWith(".ts")) return nextLoad(url, context);
  return { format: "module", source: javaScriptOf(fileURLToPath(url)), shortCircuit: true };
}

// In the process's own thread: hooks in that thread where Node has them (22.15 and later), else
// (Node 20) this module again on Node's hooks thread, where `load` above is the hook.
if (isMainThread && !process.features.typescript) {
  process.setSourceMapsEnabled(true);
  if (module.registerHooks === undefined) module.register(import.meta.url);
  else module.registerHooks({ load });
}
