/** Preloaded by bunfig.toml: an afterAll here runs once, after every test file of the run. */
import { afterAll } from "bun:test";
import { removeTempDirs } from "./temp-dirs.ts";

afterAll(removeTempDirs);
