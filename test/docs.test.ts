import { describe, expect, test } from "bun:test";
import { existsSync, readFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { OPERATIONS } from "../src/operations/table/index.ts";
import { PROVIDER_IDS } from "../src/config/providers/index.ts";
import { SETTINGS, envName } from "../src/config/settings.ts";
import { signalCatalog } from "../src/signals/catalog.ts";

const root = join(import.meta.dir, "..");
const readme = readFileSync(join(root, "README.md"), "utf8");
const read = (path: string) => readFileSync(join(root, path), "utf8");
/** Every page of the documentation: the README, CONTRIBUTING.md and docs/, hand-written and generated. */
const pages = ["README.md", "CONTRIBUTING.md", ...[...new Bun.Glob("docs/**/*.md").scanSync(root)].sort()];
const docs = pages.map(read).join("\n");

describe("README", () => {
  test("shows the promised commands", () => {
    for (const command of ["npm install", "npm start", "npm test", "npm run build"]) expect(readme).toContain(command);
  });

  test("stays short: what ckg is, install, first start, the most useful calls, links", () => {
    expect(readme.split("\n").length).toBeLessThanOrEqual(200);
  });

  test("every relative link of every page names a file that exists, and an anchor that its page has", () => {
    const anchorsOf = (text: string) =>
      new Set(
        [...text.matchAll(/^#{1,6} (.*)$/gm)].map((m) =>
          m[1]!
            .trim()
            .toLowerCase()
            .replace(/[^\w\- ]/g, "")
            .replace(/ /g, "-"),
        ),
      );
    const broken: string[] = [];
    for (const page of pages) {
      const text = read(page);
      for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
        if (/^(https?:|mailto:)/.test(target!)) continue;
        const [file, anchor] = target!.split("#");
        const path = file ? join(dirname(join(root, page)), file) : join(root, page);
        if (!existsSync(path)) broken.push(`${page}: ${target} (no such file)`);
        else if (anchor && path.endsWith(".md") && !anchorsOf(readFileSync(path, "utf8")).has(anchor)) broken.push(`${page}: ${target} (no such heading)`);
      }
    }
    expect(broken).toEqual([]);
  });

  test("the docs name every setting", () => {
    for (const name of Object.keys(SETTINGS)) expect(docs, envName(name)).toContain(envName(name));
  });

  test("names every provider where docs/data.md lists them: the table, the --providers example", () => {
    const data = read("docs/data.md");
    const lines = data.split("\n");
    const header = lines.indexOf("| Provider | What | Series tables |");
    const end = lines.indexOf("", header);
    const table = lines.slice(header + 2, end);
    expect(table.map((row) => row.split("`")[1])).toEqual([...PROVIDER_IDS]);
    expect(data).toContain(`ckg ingest [--providers ${PROVIDER_IDS.join(",")}]`);
  });

  test("documents every route", () => {
    // README writes path parameters as the spec does: {entity_name}.
    for (const op of OPERATIONS) expect(readme, op.path).toContain(`${op.method} ${op.path.replace(/:([a-z_]+)/g, "{$1}")}`);
  });

  test("the signals guide's table of types on real data says what the catalog says, row for row", () => {
    const guide = read("docs/guide/signals.md");
    const catalog = signalCatalog().signal_types;
    const rows = guide.split("\n").filter((line) => /^\| `[a-z-]+` \| (yes|partial|synthetic only) \|/.test(line));
    expect(rows.map((row) => row.split("`")[1])).toEqual(catalog.map((t) => t.slug));
    for (const [i, t] of catalog.entries()) {
      const cells = rows[i]!.split(" | ");
      expect(cells[1], t.slug).toBe(t.real_data);
      expect(cells[2], t.slug).toBe(t.sources.length > 0 ? t.sources.join("; ") : "none");
      expect(cells[3]?.replace(/ \|$/, "") ?? "", t.slug).toBe(t.real_data_reason ?? "");
    }
    const count = (state: string) => catalog.filter((t) => t.real_data === state).length;
    const fed = count("yes") + count("partial");
    expect(guide.replace(/\s+/g, " ")).toContain(`${fed} of the 28 types are fed by real data: ${count("yes")} fully ("yes") and ${count("partial")} in part`);
  });

  test("its routes table prices each operation at its default; every count of signal types it states is the catalog's", () => {
    const rows = readme.split("\n");
    for (const op of OPERATIONS) {
      const route = `${op.method} ${op.path.replace(/:([a-z_]+)/g, "{$1}")}`;
      const row = rows.find((line) => line.startsWith(`| \`${route}\` |`));
      expect(row, route).toBeDefined();
      expect(row!.split(" | ")[1], route).toBe(op.priceUsd > 0 ? op.priceUsd.toFixed(2) : "free");
    }
    const stated = [...docs.replace(/\s+/g, " ").matchAll(/\b(\d+) (?:typed risk and opportunity signals|signal types|types)\b/g)].map((m) => Number(m[1]));
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
