/**
 * @module config
 * One typed config from (lowest to highest precedence) defaults, an optional file (`--config` or
 * `CKG_CONFIG`, JSON or TOML), `CKG_*` environment variables and command-line flags (config/sources).
 * Checked at once, before anything starts: every bad setting and every broken rule between settings
 * (sign-in needs base_url, payments settled here need an RPC, ...) is reported together, each by
 * name and by where its value came from.
 */
import { type Config, type Setting, type SettingName, SETTINGS } from "./settings.ts";
import type { SettingRule } from "./setting.ts";
import { BACKUP_RULES } from "./settings-backup.ts";
import { PAYMENT_RULES } from "./settings-payments.ts";
import { type Given, givenValues } from "./sources.ts";

export type { Config, SettingName } from "./settings.ts";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

/** A rule between settings of the whole configuration (config/setting.ts). */
export type ConfigRule = SettingRule<Config>;

/** The rules the configuration itself knows; commands add the ones that need more (the operations' prices, croner's patterns). */
export const CONFIG_RULES: readonly ConfigRule[] = [...PAYMENT_RULES, ...BACKUP_RULES];

export interface ConfigInput {
  /** Flag values keyed by setting name or former name (snake_case), as parsed from argv. */
  flags?: Partial<Record<string, string | boolean>>;
  env?: Record<string, string | undefined>;
  /** Path of a config file; defaults to `CKG_CONFIG` from `env`. */
  file?: string;
  /** The settings the command reads: a rule applies when it reads all the rule's settings. Default: every setting. */
  reads?: readonly SettingName[];
  /** Rules beyond the configuration's own. */
  rules?: readonly ConfigRule[];
}

export function loadConfig(input: ConfigInput = {}): Config {
  const env = input.env ?? process.env;
  const problems: string[] = [];
  const given = givenValues({ flags: input.flags, file: input.file ?? env.CKG_CONFIG }, env, problems);

  const config: Record<string, unknown> = {};
  const valid = new Set<SettingName>();
  for (const [name, def] of Object.entries(SETTINGS) as [SettingName, Setting][]) {
    const raw = given.get(name);
    const value = raw ? coerce(def.kind, raw.value) : def.default;
    const parsed = def.schema.safeParse(value);
    if (parsed.success) {
      config[name] = parsed.data;
      valid.add(name);
    } else {
      problems.push(`${describe(name, raw, raw?.value ?? value)}: ${parsed.error.issues.map((i) => i.message).join("; ")}`);
    }
  }
  const rules = [...CONFIG_RULES, ...(input.rules ?? [])].filter(
    (rule) => rule.settings.every((name) => valid.has(name)) && (!input.reads || rule.settings.every((name) => input.reads!.includes(name))),
  );
  problems.push(...checkRules(config as Config, rules, (name) => describe(name, given.get(name), config[name])));
  if (problems.length > 0) throw new ConfigError(problems);
  return config as Config;
}

/**
 * The problems `rules` find in a configuration. loadConfig names each setting's origin; a caller
 * holding only the values (a configuration made in code) names the settings alone.
 */
export function checkRules(config: Config, rules: readonly ConfigRule[], describeSetting = (name: SettingName) => describe(name, undefined, config[name], false)): string[] {
  return rules.flatMap((rule) => rule.check(config, describeSetting));
}

/** `setting port (from CKG_PORT) = "eighty"`; a secret's value is never shown. */
function describe(name: SettingName, given: Given | undefined, value: unknown, withOrigin = true): string {
  const shown = value === undefined ? "unset" : SETTINGS[name].secret ? "(hidden)" : JSON.stringify(value);
  const origin = !withOrigin ? "" : given ? ` (from ${given.origin})` : value === undefined ? "" : " (default)";
  return value === undefined ? `setting ${name}${origin} (unset)` : `setting ${name}${origin} = ${shown}`;
}

/** Strings from flags and the environment become numbers and booleans where the setting says so. */
function coerce(kind: Setting["kind"], value: unknown): unknown {
  if (typeof value !== "string") return value;
  const text = value.trim();
  switch (kind) {
    case "integer":
      return /^-?\d+$/.test(text) ? Number(text) : value;
    case "boolean":
      if (["true", "1", "yes", "on"].includes(text.toLowerCase())) return true;
      if (["false", "0", "no", "off"].includes(text.toLowerCase())) return false;
      return value;
    case "string":
      return text;
  }
}
