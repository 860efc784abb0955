/**
 * @module config
 * One typed config from (lowest to highest precedence) defaults, an optional file (`--config` or
 * `CKG_CONFIG`, JSON or TOML), `CKG_*` environment variables and command-line flags. Validated at
 * start: every bad setting is reported at once, by name and by where it came from.
 */
import { readFileSync } from "node:fs";
import { extname } from "node:path";
import { z } from "zod";
import { type Config, type Setting, type SettingName, SETTINGS, envName, flagName } from "./settings.ts";

export type { Config, SettingName } from "./settings.ts";

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`invalid configuration:\n  - ${problems.join("\n  - ")}`);
    this.name = "ConfigError";
  }
}

type Raw = { value: unknown; origin: string };

export interface ConfigInput {
  /** Flag values keyed by setting name (snake_case), as parsed from argv. */
  flags?: Partial<Record<SettingName, string | boolean>>;
  env?: Record<string, string | undefined>;
  /** Path of a config file; defaults to `CKG_CONFIG` from `env`. */
  file?: string;
}

export function loadConfig(input: ConfigInput = {}): Config {
  const env = input.env ?? process.env;
  const problems: string[] = [];
  const raw = new Map<SettingName, Raw>();

  const file = input.file ?? env.CKG_CONFIG;
  if (file) {
    for (const [key, value] of Object.entries(readConfigFile(file, problems))) {
      if (!(key in SETTINGS)) {
        problems.push(`unknown setting "${key}" in ${file} (known: ${Object.keys(SETTINGS).join(", ")})`);
        continue;
      }
      raw.set(key as SettingName, { value, origin: `${file}` });
    }
  }
  for (const name of Object.keys(SETTINGS) as SettingName[]) {
    const fromEnv = env[envName(name)];
    if (fromEnv !== undefined && fromEnv !== "") raw.set(name, { value: fromEnv, origin: `${envName(name)}` });
    const fromFlag = input.flags?.[name];
    if (fromFlag !== undefined) raw.set(name, { value: fromFlag, origin: `--${flagName(name)}` });
  }

  const config: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(SETTINGS) as [SettingName, Setting][]) {
    const given = raw.get(name);
    const value = given ? coerce(def.kind, given.value) : def.default;
    const parsed = def.schema.safeParse(value);
    if (parsed.success) {
      config[name] = parsed.data;
    } else {
      const shown = def.secret ? "(hidden)" : JSON.stringify(given?.value ?? value);
      const why = parsed.error.issues.map((i) => i.message).join("; ");
      problems.push(`setting ${name} (from ${given?.origin ?? "default"}) = ${shown}: ${why}`);
    }
  }
  if (problems.length > 0) throw new ConfigError(problems);
  return config as Config;
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

function readConfigFile(path: string, problems: string[]): Record<string, unknown> {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (error) {
    problems.push(`config file ${path} cannot be read: ${(error as Error).message}`);
    return {};
  }
  try {
    const parsed: unknown = extname(path).toLowerCase() === ".toml" ? Bun.TOML.parse(text) : JSON.parse(text);
    const object = z.record(z.string(), z.unknown()).safeParse(parsed);
    if (!object.success) {
      problems.push(`config file ${path} must hold an object of settings`);
      return {};
    }
    return object.data;
  } catch (error) {
    problems.push(`config file ${path} is not valid ${extname(path) === ".toml" ? "TOML" : "JSON"}: ${(error as Error).message}`);
    return {};
  }
}

/** The config without secrets, for logs and /readyz. */
export function publicConfig(config: Config): Record<string, unknown> {
  const shown: Record<string, unknown> = {};
  for (const [name, def] of Object.entries(SETTINGS) as [SettingName, Setting][]) {
    shown[name] = def.secret && config[name] !== undefined ? "(set)" : config[name];
  }
  return shown;
}
