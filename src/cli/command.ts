/**
 * @module cli/command
 * The shape of a CLI command and the parsing of its argv: settings flags come from the settings
 * table (so `--help` lists exactly what the command reads), command options are its own.
 */
import { parseArgs } from "node:util";
import { type Config, ConfigError, type SettingName, loadConfig } from "../config/config.ts";
import { SETTINGS, envName, flagName } from "../config/settings.ts";

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
  run(args: CommandRun): Promise<number | void>;
}

export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

export function parseCommandArgs(command: Command, argv: string[], env: Record<string, string | undefined>): CommandRun | "help" {
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {
    help: { type: "boolean", short: "h" },
    config: { type: "string" },
  };
  for (const name of command.settings) options[flagName(name)] = { type: SETTINGS[name].kind === "boolean" ? "boolean" : "string" };
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
  const flags: Partial<Record<SettingName, string | boolean>> = {};
  for (const name of command.settings) {
    const value = parsed.values[flagName(name)];
    if (value !== undefined) flags[name] = value as string | boolean;
  }
  const config = loadConfig({ flags, env, file: parsed.values.config as string | undefined });
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
    rows.push([
      `--${flagName(name)}${setting.kind === "boolean" ? "" : " <value>"}`,
      `${setting.help} [env ${envName(name)}; default ${fallback}]`,
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
