/**
 * @module cli/command
 * The shape of a CLI command and the parsing of its argv: settings flags come from the settings
 * table (so `--help` lists exactly what the command reads), command options are its own.
 */
import { parseArgs } from "node:util";
import { type Config, ConfigError, type ConfigRule, type SettingName, loadConfig } from "../config/config.ts";
import { SETTINGS, envName, flagName } from "../config/settings.ts";
import { namesOf } from "../config/sources.ts";

export interface CommandOption {
  type: "string" | "boolean";
  help: string;
  short?: string;
}

export interface CommandRun {
  config: Config;
  positionals: string[];
  options: Record<string, string | boolean | undefined>;
}

export interface Command {
  name: string;
  summary: string;
  /** Text after `ckg <name>` in the usage line. */
  usage: string;
  /** Settings this command reads (shown in its --help). */
  settings: readonly SettingName[];
  options?: Record<string, CommandOption>;
  /** Internal commands are not listed in `ckg --help`. */
  hidden?: boolean;
  /**
   * Rules between its settings beyond the configuration's own, that need more than the settings
   * (the operations' prices, croner's patterns): checked with the configuration, before `run`.
   * Loaded only when the command runs (not for --help), so no other command pays for loading them.
   */
  rules?(): Promise<readonly ConfigRule[]>;
  run(args: CommandRun): Promise<number | void>;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Reads a command's argv and its configuration; every configuration problem is one ConfigError,
 * before the command runs. `configured` is given the settings as soon as they are read, before the
 * command's rules load.
 */
export async function parseCommandArgs(
  command: Command,
  argv: string[],
  env: Record<string, string | undefined>,
  configured: (config: Config) => void = () => {},
): Promise<CommandRun | "help"> {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    help: { type: "boolean", short: "h" },
    config: { type: "string" },
  };
  // A setting's flag, and its former names' flags (still read).
  const flagged = command.settings.flatMap((setting) => namesOf(setting).map((name) => ({ setting, name })));
  for (const { setting, name } of flagged) options[flagName(name)] = { type: SETTINGS[setting].kind === "boolean" ? "boolean" : "string" };
  for (const [name, option] of Object.entries(command.options ?? {})) {
    options[name] = option.short ? { type: option.type, short: option.short } : { type: option.type };
  }

  let parsed: ReturnType<typeof parseArgs>;
  try {
    parsed = parseArgs({ args: argv, options, strict: true, allowPositionals: true });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.split(". ")[0]}. Run 'ckg ${command.name} --help'.`);
  }
  if (parsed.values.help) return "help";
  const flags: Record<string, string | boolean> = {};
  for (const { name } of flagged) {
    const value = parsed.values[flagName(name)];
    if (value !== undefined) flags[name] = value as string | boolean;
  }
  const file = parsed.values.config as string | undefined;
  // The settings alone first: `configured` acts on them (the executable's native folder) before the
  // rules' modules load, since loading them may load DuckDB. Problems are reported by the full load below.
  try {
    configured(loadConfig({ flags, env, file, reads: command.settings }));
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
  }
  const rules = (await command.rules?.()) ?? [];
  const config = loadConfig({ flags, env, file, reads: command.settings, rules });
  const own: Record<string, string | boolean | undefined> = {};
  for (const name of Object.keys(command.options ?? {})) own[name] = parsed.values[name] as string | boolean | undefined;
  return { config, positionals: parsed.positionals, options: own };
}

export function commandHelp(command: Command): string {
  const lines = [`Usage: ckg ${command.name} ${command.usage}`.trimEnd(), "", command.summary, ""];
  const rows: [string, string][] = [];
  for (const [name, option] of Object.entries(command.options ?? {})) {
    rows.push([`${option.short ? `-${option.short}, ` : ""}--${name}${option.type === "string" ? " <value>" : ""}`, option.help]);
  }
  for (const name of command.settings) {
    const setting = SETTINGS[name];
    const fallback = setting.default === undefined ? "unset" : String(setting.default);
    const former = (setting.aliases ?? []).map((alias) => `--${flagName(alias)} / ${envName(alias)}`);
    rows.push([
      `--${flagName(name)}${setting.kind === "boolean" ? "" : " <value>"}`,
      `${setting.help} [env ${envName(name)}${former.length > 0 ? `; formerly ${former.join(", ")}, still read` : ""}; default ${fallback}]`,
    ]);
  }
  rows.push(["--config <file>", "read settings from a JSON or TOML file [env CKG_CONFIG]"]);
  rows.push(["-h, --help", "show this help"]);
  const width = Math.max(...rows.map(([flag]) => flag.length)) + 2;
  lines.push("Options:", ...rows.map(([flag, help]) => `  ${flag.padEnd(width)}${help}`));
  lines.push("", "Precedence: flags > CKG_* environment > config file > defaults.");
  return lines.join("\n");
}

export { ConfigError };
