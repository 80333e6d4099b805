/**
 * @module
 * The suite's preload (bunfig.toml): once every test file has run, the temp folders go.
 */
import { afterAll } from "bun:test";
import { removeTempFolders } from "./temp.ts";

afterAll(removeTempFolders);
