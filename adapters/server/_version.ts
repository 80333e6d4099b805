/**
 * @module
 * The package's version, as the server reports it (`--version`, `animal_store_build_info`). Not read
 * from package.json: importing it would put a copy of it, `exports` and all, into the published
 * `dist/`. The `--version` tests hold it to package.json's.
 */

/** The package's version. */
export const VERSION = "1.0.0";
