import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config/config.ts";
import { tempDir } from "../support/temp-dirs.ts";

const dir = tempDir("ckg-config-");

describe("configuration", () => {
  test("defaults follow decisions.md", () => {
    const config = loadConfig({ env: {} });
    expect(config).toMatchObject({ data_dir: "./ckg-data", host: "127.0.0.1", port: 8402, query_timeout_ms: 10_000, scale: "default" });
    expect(config.base_url).toBeUndefined();
  });

  test("flags beat CKG_* env, env beats the file, the file beats defaults", () => {
    const file = join(dir, "ckg.json");
    writeFileSync(file, JSON.stringify({ port: 9000, host: "0.0.0.0", query_timeout_ms: 2000 }));
    const config = loadConfig({ env: { CKG_PORT: "9100", CKG_QUERY_TIMEOUT_MS: "3000" }, flags: { port: "9200" }, file });
    expect(config.port).toBe(9200);
    expect(config.query_timeout_ms).toBe(3000);
    expect(config.host).toBe("0.0.0.0");
  });

  test("TOML files and CKG_CONFIG work", () => {
    const file = join(dir, "ckg.toml");
    writeFileSync(file, 'port = 9300\nscale = "full"\n');
    const config = loadConfig({ env: { CKG_CONFIG: file } });
    expect(config.port).toBe(9300);
    expect(config.scale).toBe("full");
  });

  test("scale takes a number", () => {
    expect(loadConfig({ env: { CKG_SCALE: "50000" } }).scale).toBe(50_000);
  });

  test("every bad setting is named with where it came from", () => {
    const file = join(dir, "bad.json");
    writeFileSync(file, JSON.stringify({ colour: "blue" }));
    try {
      loadConfig({ env: { CKG_PORT: "eighty", CKG_SCALE: "huge" }, flags: { query_timeout_ms: "-5" }, file });
      throw new Error("expected a ConfigError");
    } catch (error) {
      expect(error).toBeInstanceOf(ConfigError);
      const text = (error as ConfigError).message;
      expect(text).toContain("setting port (from CKG_PORT)");
      expect(text).toContain("setting scale (from CKG_SCALE)");
      expect(text).toContain("setting query_timeout_ms (from --query-timeout-ms)");
      expect(text).toContain('unknown setting "colour"');
    }
  });

  test("an unreadable or malformed file is reported", () => {
    expect(() => loadConfig({ env: {}, file: join(dir, "missing.json") })).toThrow("cannot be read");
    const file = join(dir, "broken.json");
    writeFileSync(file, "{ port: ");
    expect(() => loadConfig({ env: {}, file })).toThrow("not valid JSON");
  });
});
