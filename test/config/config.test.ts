import { describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { ConfigError, loadConfig } from "../../src/config/config.ts";
import { SETTINGS } from "../../src/config/settings.ts";
import { OPERATIONS } from "../../src/operations/table/index.ts";
import { pricesRule } from "../../src/payments/prices.ts";
import { CRON_RULE } from "../../src/supervisor/cron.ts";
import { tempDir } from "../support/temp-dirs.ts";

/** The problems loadConfig reports, or [] when it loads. */
function problemsOf(input: Parameters<typeof loadConfig>[0]): string[] {
  try {
    loadConfig(input);
    return [];
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return error.problems;
  }
}

const PAY_TO = "0x1111111111111111111111111111111111111111";

const dir = tempDir("ckg-config-");

describe("configuration", () => {
  test("defaults follow docs/decisions/0018-configuration-names.md", () => {
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

  describe("former names (aliases)", () => {
    test("each names one setting and is no setting's own name", () => {
      const aliases = Object.values(SETTINGS).flatMap((setting) => ("aliases" in setting ? setting.aliases : []));
      expect(aliases).toEqual(expect.arrayContaining(["scan_grace_ms", "snapshot_url"]));
      expect(new Set(aliases).size).toBe(aliases.length);
      for (const alias of aliases) expect(Object.keys(SETTINGS)).not.toContain(alias);
    });

    test("a former name is read as the new one, from the environment, a flag or the file", () => {
      const file = join(dir, "former.toml");
      writeFileSync(file, 'snapshot_url = "https://hub.example/graphql"\n');
      const config = loadConfig({ env: { CKG_SCAN_GRACE_MS: "5000" }, flags: { snapshot_url: "https://flag.example/graphql" }, file });
      expect(config.run_grace_ms).toBe(5000);
      expect(config.snapshot_hub_url).toBe("https://flag.example/graphql");
      expect(loadConfig({ env: {}, file }).snapshot_hub_url).toBe("https://hub.example/graphql");
      expect("scan_grace_ms" in config).toBe(false);
    });

    test("both names with one value are fine; with two values, an error naming both origins", () => {
      expect(loadConfig({ env: { CKG_RUN_GRACE_MS: "7000", CKG_SCAN_GRACE_MS: "7000" } }).run_grace_ms).toBe(7000);
      const problems = problemsOf({ env: { CKG_RUN_GRACE_MS: "7000", CKG_SCAN_GRACE_MS: "5000", CKG_SNAPSHOT_URL: "https://a.example/graphql", CKG_SNAPSHOT_HUB_URL: "https://b.example/graphql" } });
      expect(problems).toEqual([
        'setting run_grace_ms is given twice with different values: CKG_RUN_GRACE_MS = "7000" and CKG_SCAN_GRACE_MS (its former name) = "5000"',
        'setting snapshot_hub_url is given twice with different values: CKG_SNAPSHOT_HUB_URL = "https://b.example/graphql" and CKG_SNAPSHOT_URL (its former name) = "https://a.example/graphql"',
      ]);
      const file = join(dir, "both.json");
      writeFileSync(file, JSON.stringify({ run_grace_ms: 1000, scan_grace_ms: 2000 }));
      expect(problemsOf({ env: {}, file })).toEqual([`setting run_grace_ms is given twice with different values: ${file} = 1000 and ${file} (its former name) = 2000`]);
    });

    test("across sources precedence decides, as for any setting: a flag under the new name beats the former name in the environment", () => {
      expect(loadConfig({ env: { CKG_SCAN_GRACE_MS: "5000" }, flags: { run_grace_ms: "9000" } }).run_grace_ms).toBe(9000);
    });
  });

  describe("rules between settings", () => {
    test("three problems are reported at once, each naming its setting and where it came from", () => {
      const file = join(dir, "payments.json");
      writeFileSync(file, JSON.stringify({ siwx_access_seconds: 600, settlement_key_file: "/run/secrets/settler.key" }));
      const problems = problemsOf({ env: { CKG_PAY_TO: PAY_TO }, flags: { prices: "sparkle=1" }, file, rules: [pricesRule(OPERATIONS)] });
      expect(problems).toHaveLength(3);
      expect(problems).toContain(`setting pay_to (from CKG_PAY_TO) = "${PAY_TO}": payments on Base settled in-process need rpc_url and settlement_key_file (or settlement_key); unset: rpc_url. Or set facilitator_url (a remote facilitator)`);
      expect(problems).toContain(`setting siwx_access_seconds (from ${file}) = 600 needs base_url (unset): the public URL signed-in messages are checked against`);
      expect(problems.find((p) => p.startsWith('setting prices (from --prices) = "sparkle=1": names "sparkle", which is no operation'))).toBeDefined();
    });

    test("they hold with what makes them right: a remote facilitator, the RPC and key, base_url; payments off asks for none", () => {
      expect(problemsOf({ env: { CKG_PAY_TO: PAY_TO, CKG_FACILITATOR_URL: "https://facilitator.example", CKG_SIWX_ACCESS_SECONDS: "60", CKG_BASE_URL: "https://ckg.example" } })).toEqual([]);
      expect(problemsOf({ env: { CKG_PAY_TO: PAY_TO, CKG_RPC_URL: "http://127.0.0.1:8545", CKG_SETTLEMENT_KEY_FILE: "/k" } })).toEqual([]);
      expect(problemsOf({ env: { CKG_SIWX_ACCESS_SECONDS: "60", CKG_RPC_URL: "http://127.0.0.1:8545" } })).toEqual([]);
      const solana = problemsOf({ env: { CKG_PAY_TO_SOLANA: "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin" } });
      expect(solana).toEqual([
        'setting pay_to_solana (from CKG_PAY_TO_SOLANA) = "9xQeWvG816bUx9EPjHmaT23yvVM2ZWbrrpZb9PusVFin": payments on Solana settled in-process need solana_rpc_url and solana_settlement_key_file (or solana_settlement_key); unset: solana_rpc_url, solana_settlement_key_file (or solana_settlement_key). Or set facilitator_url (a remote facilitator)',
      ]);
    });

    test("a rule waits while one of its settings is itself invalid, and applies only to a command that reads its settings", () => {
      // The bad price list is reported once, by its own schema; the pay_to rule does not pile onto a malformed address.
      const problems = problemsOf({ env: { CKG_PRICES: "sparql=free", CKG_PAY_TO: "0xnope" }, rules: [pricesRule(OPERATIONS)] });
      expect(problems).toHaveLength(2);
      expect(problems.every((p) => p.startsWith("setting prices (from CKG_PRICES)") || p.startsWith("setting pay_to (from CKG_PAY_TO)"))).toBe(true);
      // `ckg build` reads no payment setting: an environment set up for the server does not stop it.
      expect(problemsOf({ env: { CKG_PAY_TO: PAY_TO }, reads: ["data_dir", "scale", "seed"] })).toEqual([]);
    });

    test("a schedule croner refuses is named with its origin", () => {
      expect(problemsOf({ env: { CKG_INGEST_CRON: "every day at five" }, rules: [CRON_RULE] })).toEqual([
        `setting ingest_cron (from CKG_INGEST_CRON) = "every day at five": a cron pattern such as '0 6 * * *', or off`,
      ]);
    });
  });
});
