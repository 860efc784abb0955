/**
 * /openapi.json passes a standard OpenAPI linter: Redocly CLI's recommended rules, with payments
 * on (paid operations declare the x402 payment as their security scheme, free ones declare none)
 * and off (nothing is paid). Real Redocly CLI from npm, run on the document the app serves.
 */
import { afterAll, describe, expect, test } from "bun:test";
import { rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { openApiDocument } from "../../scripts/openapi-types.ts";
import { tempDir } from "../support/temp-dirs.ts";

const dir = tempDir("ckg-openapi-");
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const PAY_TO = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

function lint(document: unknown, name: string): { code: number; output: string } {
  const file = join(dir, `${name}.json`);
  writeFileSync(file, JSON.stringify(document));
  const result = Bun.spawnSync([join(import.meta.dir, "../../node_modules/.bin/redocly"), "lint", file, "--extends", "recommended", "--format", "stylish"], {
    env: { ...process.env, REDOCLY_TELEMETRY: "off", REDOCLY_SUPPRESS_UPDATE_NOTICE: "true" },
  });
  return { code: result.exitCode, output: result.stdout.toString() + result.stderr.toString() };
}

describe("OpenAPI under Redocly's recommended rules", () => {
  for (const [mode, payTo] of [
    ["payments on", PAY_TO],
    ["payments off", undefined],
  ] as const) {
    test(`${mode}: no error or warning; each operation declares its security`, async () => {
      // A facilitator nobody listens at: the document needs payments on, not working.
      const document = (await openApiDocument(payTo ? { pay_to: payTo, facilitator_url: "http://127.0.0.1:9" } : {})) as unknown as { paths: Record<string, Record<string, { security: unknown[]; "x-price-usd": number }>> };
      const { code, output } = lint(document, mode.replace(" ", "-"));
      // No problem of any severity: errors and warnings alike (Redocly prints a count of each it found).
      expect(output).toContain("Your API description is valid");
      expect(output).not.toMatch(/\d+ (error|warning)s?\b/);
      expect(code).toBe(0);
      const operations = Object.values(document.paths).flatMap((methods) => Object.values(methods));
      for (const op of operations) expect(op.security).toEqual(op["x-price-usd"] > 0 ? [{ x402: [] }] : []);
      expect(operations.some((op) => op.security.length > 0)).toBe(payTo !== undefined);
    }, 60_000);
  }
});
