import { describe, expect, test } from "bun:test";
import { COMMANDS } from "../../src/cli/index.ts";
import { selfCommand } from "../../src/runtime.ts";
import { fixtureDataDir } from "../support/fixture.ts";

function ckg(...args: string[]) {
  const result = Bun.spawnSync(selfCommand(...args), { env: { ...process.env, CKG_LOG_LEVEL: "silent" } });
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

  test("--version prints the version", () => {
    expect(ckg("--version").out.trim()).toMatch(/^\d+\.\d+\.\d+/);
  });

  test("unknown commands and options exit 2 with a hint", () => {
    expect(ckg("launch").code).toBe(2);
    const bad = ckg("serve", "--prot", "1");
    expect(bad.code).toBe(2);
    expect(bad.err).toContain("ckg serve --help");
  });

  test("a bad setting exits 2 naming it", () => {
    const { code, err } = ckg("serve", "--port", "99999");
    expect(code).toBe(2);
    expect(err).toContain("setting port (from --port)");
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
    const refused = ckg("sparql", "--data-dir", dir, "DROP ALL");
    expect(refused.code).toBe(1);
    expect(refused.err).toContain("SELECT and ASK");
  });
});
