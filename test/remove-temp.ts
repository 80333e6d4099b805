/**
 * @module
 * The suite's preload (bunfig.toml): once every test file has run, any server a test left running
 * is killed, and the temp folders go.
 */
import { afterAll } from "bun:test";
import { stopLeftoverServers } from "./server-process.ts";
import { removeTempFolders } from "./temp.ts";

afterAll(async () => {
  await stopLeftoverServers();
  removeTempFolders();
});
