/**
 * @module supervisor/spawn
 * One way for the server to run ckg itself as a child process (the first build, signal scans,
 * ingests): the command's own settings (config/commands.ts) are forwarded from the server's
 * configuration through the environment, never the argv, so keys stay out of the process list
 * and a setting that came from a config file or a flag reaches the child as well.
 */
import type { Subprocess } from "bun";
import { type CommandName, COMMAND_SETTINGS } from "../config/commands.ts";
import type { Config } from "../config/config.ts";
import { envName } from "../config/settings.ts";
import { namesOf } from "../config/sources.ts";
import { selfCommand } from "../runtime.ts";

/** The `CKG_*` variables that carry a command's settings from `config` to a child running it. */
export function commandEnv(command: CommandName, config: Config): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of COMMAND_SETTINGS[command]) {
    const value = config[name];
    if (value !== undefined) env[envName(name)] = String(value);
  }
  return env;
}

export interface SpawnOptions {
  /** Arguments after the command (its options, not settings). */
  args?: string[];
  /** Where the child's stdout goes: dropped (default), the server's stdout, or its stderr (stdout is the MCP protocol in `ckg mcp`). */
  stdout?: "ignore" | "inherit" | 2;
}

/**
 * The child's environment: the server's own, where the command's settings are replaced by the
 * server's values. A setting's former name inherited from the server's environment is dropped: the
 * value forwarded may differ (a flag won over it), and the child would read the two as a conflict.
 */
export function childEnv(command: CommandName, config: Config, inherited: Record<string, string | undefined> = process.env): Record<string, string | undefined> {
  const env = { ...inherited };
  for (const name of COMMAND_SETTINGS[command]) for (const known of namesOf(name)) delete env[envName(known)];
  return { ...env, ...commandEnv(command, config) };
}

/** Runs `ckg <command> <args>` with the command's settings from `config`; its log lines (stderr) join the server's. */
export function spawnCommand(command: CommandName, config: Config, options: SpawnOptions = {}): Subprocess<"ignore", "ignore" | "inherit" | number, "inherit"> {
  return Bun.spawn(selfCommand(command, ...(options.args ?? [])), {
    stdio: ["ignore", options.stdout ?? "ignore", "inherit"],
    env: childEnv(command, config),
  }) as Subprocess<"ignore", "ignore" | "inherit" | number, "inherit">;
}
