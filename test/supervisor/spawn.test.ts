/**
 * Running ckg as a child (supervisor/spawn.ts): a command's settings travel from the server's
 * configuration to the child in its environment and come back as the same values, whatever their
 * origin (flag, file, environment); a bad cron setting stops the server's start with a
 * configuration error naming it.
 */
import { describe, expect, test } from "bun:test";
import { COMMAND_SETTINGS } from "../../src/config/commands.ts";
import { ConfigError, loadConfig } from "../../src/config/config.ts";
import { silentLogger } from "../../src/log.ts";
import { Supervisor } from "../../src/supervisor/supervisor.ts";
import { childEnv, commandEnv } from "../../src/supervisor/spawn.ts";
import { testConfig } from "../support/fixture.ts";
import { tempDir } from "../support/temp-dirs.ts";

describe("a child command's settings", () => {
  test.each(["build", "ingest", "scan"] as const)("%s: every setting it reads reaches it with the server's value", (command) => {
    const server = testConfig({
      data_dir: "/srv/ckg-data",
      scale: 20000,
      seed: 9,
      log_level: "warn",
      embeddings_api_key: "sk-embed",
      coingecko_api_key: "cg-key",
      coingecko_min_interval_ms: 2500,
      ingest_detail_limit: 50,
      narrative_url: "http://127.0.0.1:9/v1",
      narrative_api_key: "sk-narrate",
      narrative_timeout_ms: 4000,
      narrative_budget_ms: 30_000,
      github_token: "ghp-token",
    });
    const env = commandEnv(command, server);
    const child = loadConfig({ env, flags: {} });
    for (const name of COMMAND_SETTINGS[command]) expect(child[name], name).toEqual(server[name]);
    // Nothing beyond the command's own settings is handed over.
    expect(Object.keys(env).every((key) => COMMAND_SETTINGS[command].some((name) => `CKG_${name.toUpperCase()}` === key))).toBe(true);
  });

  test("a setting's former name in the server's environment does not reach the child beside the value forwarded", () => {
    // The server ran with CKG_SNAPSHOT_URL in its environment and --snapshot-hub-url on its command line: the flag won.
    const server = loadConfig({ env: { CKG_SNAPSHOT_URL: "https://old.example/graphql" }, flags: { snapshot_hub_url: "https://new.example/graphql" } });
    const env = childEnv("ingest", server, { CKG_SNAPSHOT_URL: "https://old.example/graphql", CKG_SCAN_GRACE_MS: "5", PATH: "/usr/bin" });
    expect(env.CKG_SNAPSHOT_URL).toBeUndefined();
    expect(env.CKG_SNAPSHOT_HUB_URL).toBe("https://new.example/graphql");
    // What the command does not read is inherited as it was.
    expect(env.CKG_SCAN_GRACE_MS).toBe("5");
    expect(env.PATH).toBe("/usr/bin");
    expect(loadConfig({ env, reads: COMMAND_SETTINGS.ingest }).snapshot_hub_url).toBe("https://new.example/graphql");
  });

  test("a cron pattern croner refuses stops the start, naming the setting", async () => {
    const config = testConfig({ data_dir: tempDir("ckg-cron-"), scan_cron: "every day at six" });
    const error = await Supervisor.open(config, silentLogger).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ConfigError);
    expect((error as ConfigError).problems[0]).toContain("scan_cron");
  });
});
