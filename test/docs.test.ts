import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { OPERATIONS } from "../src/operations/table/index.ts";
import { PROVIDER_IDS } from "../src/config/providers/index.ts";
import { SETTINGS, envName } from "../src/config/settings.ts";
import { EXIT_CODES } from "../src/exit-codes.ts";
import { signalCatalog } from "../src/signals/catalog.ts";

const root = join(import.meta.dir, "..");
const readme = readFileSync(join(root, "README.md"), "utf8");

describe("README", () => {
  test("shows the promised commands", () => {
    for (const command of ["npm install", "npm start", "npm test", "npm run build"]) expect(readme).toContain(command);
  });

  test("documents every setting, and a renamed one's former name as its alias in its row", () => {
    for (const [name, setting] of Object.entries(SETTINGS)) {
      expect(readme, envName(name)).toContain(envName(name));
      const row = readme.split("\n").find((line) => line.startsWith(`| \`${envName(name)}\``)) ?? "";
      for (const alias of setting.aliases ?? []) expect(row, alias).toContain(`alias \`${envName(alias)}\``);
    }
  });

  test("states every setting's default in its row, as the settings table has it", () => {
    // A cell may say in words what a long or derived default is; the words must still match it.
    const inWords: Record<string, (value: unknown) => string> = {
      base_url: () => "from host and port",
      prices: () => "spec prices",
      ingest_providers: (value) => (String(value).split(",").length === 6 ? "all six" : "?"),
      blockscout_urls: (value) => (String(value).split(",").length === 6 ? "six public instances" : "?"),
      solana_network: (value) => (value === "solana:5eykt4UsFv8P8NJdTREpY1vzqKqZKvdp" ? "mainnet" : "?"),
    };
    const rows = readme.split("\n").filter((line) => line.startsWith("| `CKG_"));
    for (const [name, setting] of Object.entries(SETTINGS)) {
      const row = rows.find((line) => line.split(" | ")[0]!.includes(`\`${envName(name)}\``));
      expect(row, name).toBeDefined();
      const cell = row!.split(" | ")[1];
      const value = setting.default as unknown;
      const expected = inWords[name]?.(value) ?? (value === undefined ? "none" : undefined);
      if (expected !== undefined) expect(cell, name).toBe(expected);
      else expect(cell, name).toContain(`\`${String(value)}\``);
    }
  });

  test("names every provider where it lists them: the table, the --providers example, CKG_INGEST_PROVIDERS", () => {
    const lines = readme.split("\n");
    const header = lines.indexOf("| Provider | What | Series tables |");
    const end = lines.indexOf("", header);
    const table = lines.slice(header + 2, end);
    expect(table.map((row) => row.split("`")[1])).toEqual([...PROVIDER_IDS]);
    expect(readme).toContain(`ckg ingest [--providers ${PROVIDER_IDS.join(",")}]`);
    expect(readme.split("\n").find((line) => line.startsWith("| `CKG_INGEST_PROVIDERS`"))).toContain(`\`${PROVIDER_IDS.join(",")}\``);
  });

  test("its exit-code table is the CLI's", () => {
    const start = readme.indexOf("### Exit codes");
    const rows = readme.slice(start).split("\n").filter((line) => /^\| `\d+` \|/.test(line));
    expect(rows).toEqual(EXIT_CODES.map((e) => `| \`${e.code}\` | ${e.meaning} |`));
  });

  test("documents every route", () => {
    // README writes path parameters as the spec does: {entity_name}.
    for (const op of OPERATIONS) expect(readme, op.path).toContain(`${op.method} ${op.path.replace(/:([a-z_]+)/g, "{$1}")}`);
  });

  test("its table of signal types on real data says what the catalog says, row for row", () => {
    const catalog = signalCatalog().signal_types;
    const rows = readme.split("\n").filter((line) => /^\| `[a-z-]+` \| (yes|partial|synthetic only) \|/.test(line));
    expect(rows.map((row) => row.split("`")[1])).toEqual(catalog.map((t) => t.slug));
    for (const [i, t] of catalog.entries()) {
      const cells = rows[i]!.split(" | ");
      expect(cells[1], t.slug).toBe(t.real_data);
      expect(cells[2], t.slug).toBe(t.sources.length > 0 ? t.sources.join("; ") : "none");
      expect(cells[3]?.replace(/ \|$/, "") ?? "", t.slug).toBe(t.real_data_reason ?? "");
    }
    const count = (state: string) => catalog.filter((t) => t.real_data === state).length;
    const fed = count("yes") + count("partial");
    expect(readme.replace(/\s+/g, " ")).toContain(`${fed} of the 28 types are fed by real data: ${count("yes")} fully ("yes") and ${count("partial")} in part`);
  });

  test("its routes table prices each operation at its default; every count of signal types it states is the catalog's", () => {
    const rows = readme.split("\n");
    for (const op of OPERATIONS) {
      const route = `${op.method} ${op.path.replace(/:([a-z_]+)/g, "{$1}")}`;
      const row = rows.find((line) => line.startsWith(`| \`${route}\` |`));
      expect(row, route).toBeDefined();
      expect(row!.split(" | ")[1], route).toBe(op.priceUsd > 0 ? op.priceUsd.toFixed(2) : "free");
    }
    const stated = [...readme.replace(/\s+/g, " ").matchAll(/\b(\d+) (?:typed risk and opportunity signals|signal types|types)\b/g)].map((m) => Number(m[1]));
    expect(stated.length).toBeGreaterThanOrEqual(5);
    expect(new Set(stated)).toEqual(new Set([signalCatalog().count]));
  });

  test("says the default data is synthetic where it is", () => {
    expect(readme).toContain("SYNTHETIC");
  });

  test("the reference data carries its attribution and licences", () => {
    const attribution = readFileSync(join(root, "data", "reference", "ATTRIBUTION.md"), "utf8");
    for (const file of ["chains.json", "tokens.json", "exchanges.json", "aave-markets.json"]) {
      const json = JSON.parse(readFileSync(join(root, "data", "reference", file), "utf8"));
      expect(json.source.length, file).toBeGreaterThan(0);
      expect(json.license, file).toMatch(/MIT|ISC|Apache-2.0/);
      for (const source of json.sources) expect(attribution).toContain(source.package);
    }
  });
});
