/**
 * Every signal type has its table test here, named after its slug (<slug>.test.ts), and every
 * table test names a type that exists: a new detector comes with hand-made cases at its thresholds.
 */
import { expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { DETECTORS } from "../../../src/signals/detectors/index.ts";

test("one table test per signal type, and none for a type that does not exist", () => {
  const files = readdirSync(import.meta.dir).filter((f) => f.endsWith(".test.ts") && f !== "every-type.test.ts");
  expect(files.map((f) => f.replace(/\.test\.ts$/, "")).sort()).toEqual(DETECTORS.map((d) => d.slug).sort());
});
