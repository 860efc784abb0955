import { describe, expect, test } from "bun:test";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };
import { COMMANDS } from "../../src/cli/index.ts";
import { EXIT } from "../../src/exit-codes.ts";
import { selfCommand } from "../../src/runtime.ts";
import { fixtureDataDir } from "../support/fixture.ts";
import { tempDir } from "../support/temp-dirs.ts";

function ckg(...args: string[]) {
  return ckgWith({}, ...args);
}

function ckgWith(env: Record<string, string>, ...args: string[]) {
  const result = Bun.spawnSync(selfCommand(...args), { env: { ...process.env, CKG_LOG_LEVEL: "silent", ...env } });
  return { code: result.exitCode, out: result.stdout.toString(), err: result.stderr.toString() };
}

describe("ckg command line", () => {
  test("--help lists every public command", () => {
    const { code, out } = ckg("--help");
    expect(code).toBe(0);
    for (const command of COMMANDS.filter((c) => !c.hidden)) expect(out).toContain(command.name);
  });

  test.each(COMMANDS.filter((c) => !c.hidden).map((c) => [c.name]))("ckg %s --help shows its options", (name) => {
    const { code, out } = ckg(name, "--help");
    expect(code).toBe(0);
    expect(out).toContain(`Usage: ckg ${name}`);
    expect(out).toContain("--config <file>");
  });

  test("--version prints the version (from source: no commit or build date)", () => {
    expect(ckg("--version").out.trim()).toBe(`ckg ${pkg.version}+dev (from source)`);
  });

  test("unknown commands and options exit 2 with a hint", () => {
    expect(ckg("launch").code).toBe(EXIT.usage);
    const bad = ckg("serve", "--prot", "1");
    expect(bad.code).toBe(EXIT.usage);
    expect(bad.err).toContain("ckg serve --help");
  });

  test("a bad setting exits 2 naming it", () => {
    const { code, err } = ckg("serve", "--port", "99999");
    expect(code).toBe(EXIT.usage);
    expect(err).toContain("setting port (from --port)");
  });

  test("ckg serve with four configuration problems (three of payments, one schedule) lists them all, each with its origin, and exits 2 before it listens", () => {
    const dir = tempDir("ckg-bad-config-");
    const { code, out, err } = ckgWith(
      { CKG_PRICES: "sparkle=1", CKG_SIWX_ACCESS_SECONDS: "60", CKG_PAY_TO: "0x1111111111111111111111111111111111111111", CKG_SETTLEMENT_KEY_FILE: "/run/secrets/settler.key", CKG_LOG_LEVEL: "info" },
      "serve", "--data-dir", dir, "--port", "0", "--scan-cron", "at dawn",
    );
    expect(code).toBe(EXIT.usage);
    const problems = err.split("\n").filter((line) => line.startsWith("  - "));
    expect(problems).toHaveLength(4);
    expect(err).toContain('setting prices (from CKG_PRICES) = "sparkle=1": names "sparkle", which is no operation');
    expect(err).toContain("setting siwx_access_seconds (from CKG_SIWX_ACCESS_SECONDS) = 60 needs base_url (unset)");
    expect(err).toContain('setting pay_to (from CKG_PAY_TO) = "0x1111111111111111111111111111111111111111": payments on Base settled in-process need rpc_url');
    expect(err).toContain(`setting scan_cron (from --scan-cron) = "at dawn": a cron pattern`);
    // Nothing started: no log line (it would say "listening"), and the data directory was left alone.
    expect(out).toBe("");
    expect(readdirSync(dir)).toEqual([]);
  });

  test("a renamed setting's former name still works as a flag, and --help says so", () => {
    expect(ckg("ingest", "--help").out).toContain("--snapshot-hub-url <value>");
    expect(ckg("ingest", "--help").out).toContain("formerly --snapshot-url / CKG_SNAPSHOT_URL, still read");
    const { code, err } = ckg("serve", "--scan-grace-ms", "5", "--run-grace-ms", "6");
    expect(code).toBe(EXIT.usage);
    expect(err).toContain('setting run_grace_ms is given twice with different values: --run-grace-ms = "6" and --scan-grace-ms (its former name) = "5"');
  });

  test("a command that needs a snapshot exits 3 on a data directory without one, saying so", () => {
    const empty = tempDir("ckg-no-snapshot-");
    for (const args of [["sparql", "ASK {}"], ["scan"], ["stats"], ["export", join(tempDir("ckg-export-"), "out")]]) {
      const { code, err } = ckg(...args, "--data-dir", empty);
      expect(code, args[0]).toBe(EXIT.noSnapshot);
      expect(err, args[0]).toContain(`${empty} holds no snapshot yet; run 'ckg build'`);
    }
  });

  test("ckg sparql answers from a data directory without a server", async () => {
    const dir = await fixtureDataDir();
    const { code, out } = ckg("sparql", "--data-dir", dir, "SELECT ?n WHERE { <chain/ethereum> schema:name ?n }");
    expect(code).toBe(0);
    expect(JSON.parse(out).data).toEqual([{ n: "Ethereum" }]);
    // ASK answers in the route's shape: the top-level boolean too.
    const ask = ckg("sparql", "--data-dir", dir, "ASK { <chain/ethereum> schema:name \"Ethereum\" }");
    expect(ask.code).toBe(0);
    expect(JSON.parse(ask.out)).toEqual({ status: "success", variables: ["boolean"], data: [{ boolean: true }], count: 1, truncated: false, boolean: true });
    // CONSTRUCT and DESCRIBE as on the route: JSON-LD.
    const described = ckg("sparql", "--data-dir", dir, "DESCRIBE <chain/ethereum>");
    expect(described.code).toBe(0);
    expect(JSON.parse(described.out)).toMatchObject({ status: "success", form: "DESCRIBE", format: "json-ld", truncated: false });
    const refused = ckg("sparql", "--data-dir", dir, "DROP ALL");
    expect(refused.code).toBe(EXIT.failure);
    expect(refused.err).toContain("never changes the graph");
  });
});
