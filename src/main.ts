#!/usr/bin/env bun
/**
 * @module main
 * The one entry point of ckg (source and executable): find the command, parse its arguments,
 * run it, and turn failures into a message and an exit code (2: usage or configuration, 1: error).
 */
import { COMMANDS } from "./cli/index.ts";
import { ConfigError, UsageError, commandHelp, parseCommandArgs } from "./cli/command.ts";
import { useNativeDir } from "./runtime.ts";
import { VERSION } from "./version.ts";

function globalHelp(): string {
  const visible = COMMANDS.filter((c) => !c.hidden);
  const width = Math.max(...visible.map((c) => c.name.length)) + 2;
  return [
    "ckg: crypto knowledge graph service",
    "",
    "Usage: ckg <command> [options]",
    "",
    "Commands:",
    ...visible.map((c) => `  ${c.name.padEnd(width)}${c.summary.split(". ")[0]!.replace(/\.$/, "")}`),
    "",
    "Run 'ckg <command> --help' for a command's options. 'ckg --version' prints the version.",
  ].join("\n");
}

async function main(argv: string[]): Promise<number> {
  const [name, ...rest] = argv;
  if (name === undefined || name === "help" || name === "--help" || name === "-h") {
    console.log(globalHelp());
    return 0;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    console.log(VERSION);
    return 0;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    console.error(`ckg: unknown command '${name}'.\n\n${globalHelp()}`);
    return 2;
  }
  try {
    const parsed = parseCommandArgs(command, rest, process.env);
    if (parsed === "help") {
      console.log(commandHelp(command));
      return 0;
    }
    if (command.settings.includes("data_dir")) useNativeDir(parsed.config.data_dir);
    return (await command.run(parsed)) ?? 0;
  } catch (error) {
    if (error instanceof ConfigError || error instanceof UsageError) {
      console.error(`ckg ${command.name}: ${error.message}`);
      return 2;
    }
    console.error(`ckg ${command.name}: ${(error as Error).message ?? error}`);
    return 1;
  }
}

process.exitCode = await main(process.argv.slice(2));
