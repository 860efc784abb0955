/**
 * @module scripts/docs/configuration
 * docs/configuration.md, from the settings table (src/config/settings.ts): every setting with its
 * variable, flag and file key, kind, default, help, whether it is secret and its former names,
 * grouped as the table is assembled from its parts (the core settings, ingest and each provider's,
 * backups, payments, push, signed snapshots); which commands read it; and the rules between
 * settings, in the words each rule carries.
 */
import { readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { COMMANDS } from "../../src/cli/index.ts";
import { CONFIG_RULES } from "../../src/config/config.ts";
import { PROVIDERS } from "../../src/config/providers/index.ts";
import type { SettingRule } from "../../src/config/setting.ts";
import { BACKUP_SETTINGS } from "../../src/config/settings-backup.ts";
import { PAYMENT_SETTINGS } from "../../src/config/settings-payments.ts";
import { INGEST_SETTINGS } from "../../src/config/settings-providers.ts";
import { PUSH_SETTINGS } from "../../src/config/settings-push.ts";
import { SNAPSHOT_SIGNING_SETTINGS } from "../../src/config/settings-snapshots.ts";
import { SETTINGS, type Setting, type SettingName, envName, flagName } from "../../src/config/settings.ts";
import { cell, code, escapePipes, generatedBanner, linkTo, page, prose, table } from "./markdown.ts";

export const CONFIGURATION_PAGE = "docs/configuration.md";

/** A part of the settings table: its title, where it is defined, and its settings. */
interface Group {
  title: string;
  from: string;
  names: SettingName[];
}

/** The file that defines a provider (`id: "<id>"`): named by its id, but for Snapshot.org's (snapshot-org.ts). */
function providerFile(id: string): string {
  const dir = join(import.meta.dir, "..", "..", "src", "config", "providers");
  const file = readdirSync(dir).find((name) => readFileSync(join(dir, name), "utf8").includes(`id: "${id}",`));
  if (!file) throw new Error(`no file in src/config/providers defines the provider ${id}`);
  return `src/config/providers/${file}`;
}

/** The parts SETTINGS is assembled from; what none of them holds is the core (settings.ts itself). */
function groups(): Group[] {
  const providerNames = new Set(PROVIDERS.flatMap((p) => Object.keys(p.settings)));
  const parts: Group[] = [
    { title: "Ingest", from: "src/config/settings-providers.ts", names: keys(INGEST_SETTINGS).filter((name) => !providerNames.has(name)) },
    ...PROVIDERS.map((p) => ({ title: `Provider: ${p.title}`, from: providerFile(p.id), names: keys(p.settings) })),
    { title: "Backups", from: "src/config/settings-backup.ts", names: keys(BACKUP_SETTINGS) },
    { title: "Payments", from: "src/config/settings-payments.ts", names: keys(PAYMENT_SETTINGS) },
    { title: "Push", from: "src/config/settings-push.ts", names: keys(PUSH_SETTINGS) },
    { title: "Signed snapshots", from: "src/config/settings-snapshots.ts", names: keys(SNAPSHOT_SIGNING_SETTINGS) },
  ];
  const placed = new Set(parts.flatMap((part) => part.names));
  const core: Group = { title: "Core", from: "src/config/settings.ts", names: keys(SETTINGS).filter((name) => !placed.has(name)) };
  // In the table's own order: each part where its first setting is.
  const order = keys(SETTINGS);
  return [core, ...parts].filter((g) => g.names.length > 0).sort((a, b) => order.indexOf(a.names[0]!) - order.indexOf(b.names[0]!));
}

function keys(table: Record<string, Setting>): SettingName[] {
  return Object.keys(table) as SettingName[];
}

/** The text of docs/configuration.md. */
export async function configurationPage(): Promise<string> {
  const visible = COMMANDS.filter((c) => !c.hidden);
  const all = keys(SETTINGS);
  const readAll = visible.filter((c) => all.every((name) => c.settings.includes(name)));
  const parts = groups();
  return page([
    generatedBanner("the settings table (src/config/settings.ts and the parts it is assembled from)"),
    "# Configuration reference",
    prose(
      `Every setting of ckg (${all.length}), generated from the settings table by \`npm run docs\`. A setting is read from, highest precedence first: ` +
        "its flag (`--query-timeout-ms`), its environment variable (`CKG_QUERY_TIMEOUT_MS`), the config file (`--config <file>` or `CKG_CONFIG`: " +
        "JSON or TOML keyed by the setting's name, `query_timeout_ms`), then its default. Every problem is reported at once, before anything starts, " +
        `each naming where its value came from. ${readAll.map((c) => `\`ckg ${c.name}\``).join(", ")} ${readAll.length === 1 ? "reads" : "read"} every setting; ` +
        "the last column names the other commands that read one (each command's `--help` lists its own: [CLI reference](cli.md)). " +
        "A secret is never shown in logs, /readyz or a configuration error.",
    ),
    "## Contents",
    [...parts.map((g) => `- ${linkTo(g.title)} (${g.names.length})`), `- ${linkTo("Rules between settings")}`].join("\n"),
    ...parts.map((g) => groupSection(g, visible.filter((c) => !readAll.includes(c)))),
    "## Rules between settings",
    await rulesSection(),
  ]);
}

function groupSection(group: Group, commands: typeof COMMANDS): string {
  const rows = group.names.map((name) => {
    const setting: Setting = SETTINGS[name];
    const names = [code(envName(name)), code(`--${flagName(name)}${setting.kind === "boolean" ? "" : " <value>"}`), `file: ${code(name)}`].join("<br>");
    const former = (setting.aliases ?? []).map((alias) => `${code(envName(alias))} (${code(`--${flagName(alias)}`)})`);
    const help = `${setting.help}${former.length > 0 ? `. Formerly ${former.join(", ")}, still read` : ""}`;
    const readers = commands.filter((c) => c.settings.includes(name)).map((c) => c.name);
    return [
      names,
      `${setting.kind}${setting.secret ? ", secret" : ""}`,
      setting.default === undefined ? "unset" : escapePipes(code(String(setting.default))),
      cell(help),
      readers.length > 0 ? readers.join(", ") : "",
    ];
  });
  return [`## ${group.title}`, `From ${code(group.from)}.`, table(["Setting", "Kind", "Default", "Description", "Also read by"], rows)].join("\n\n");
}

/** The rules of the configuration (every command that reads all of a rule's settings), then each command's own. */
async function rulesSection(): Promise<string> {
  const line = (rule: SettingRule<never>) => `- ${prose(rule.summary)}. Settings: ${rule.settings.map((name) => code(name)).join(", ")}.`;
  const blocks = [
    prose("Checked with the configuration, by every command that reads all the settings a rule names:"),
    CONFIG_RULES.map((rule) => line(rule as SettingRule<never>)).join("\n"),
  ];
  for (const command of COMMANDS.filter((c) => !c.hidden && c.rules)) {
    const rules = await command.rules!();
    blocks.push(prose(`Checked by \`ckg ${command.name}\` too:`), rules.map((rule) => line(rule as SettingRule<never>)).join("\n"));
  }
  return blocks.join("\n\n");
}
