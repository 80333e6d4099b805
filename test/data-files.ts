/**
 * @module
 * Data files for tests of the commands and imports that read one: made through the JSON-file store.
 */
import { openJsonFileStore } from "../adapters/json-file-store/mod.ts";
import { tempDataFile } from "./temp.ts";

/** A new data file holding `count` pets created through the JSON-file store. */
export async function dataFileWith(count: number): Promise<string> {
  const path = tempDataFile();
  const store = await openJsonFileStore(path, { logger: { info: () => {}, warn: () => {} } });
  for (let i = 0; i < count; i++) await store.create({ name: `pet ${i}`, categoryId: 1 });
  await store.close();
  return path;
}
