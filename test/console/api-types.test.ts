/**
 * The web console's types of the API (src/console/api-types.ts) are generated from the server's
 * own /openapi.json by scripts/openapi-types.ts: committed, and checked here against what the
 * generator writes now, so they cannot drift from the server's schemas.
 */
import { expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { TYPES_FILE, consoleTypes, openApiDocument } from "../../scripts/openapi-types.ts";

test("src/console/api-types.ts is what the generator makes of /openapi.json now", async () => {
  const document = await openApiDocument();
  const fresh = await consoleTypes(document);
  expect(readFileSync(TYPES_FILE, "utf8"), "src/console/api-types.ts is stale: run `npm run openapi-types`").toBe(fresh);
  // Every documented route has its answer typed (the console's api() is keyed by them).
  for (const [path, methods] of Object.entries(document.paths)) {
    for (const method of Object.keys(methods)) expect(fresh).toContain(`"${method.toUpperCase()} ${path}": `);
  }
});
