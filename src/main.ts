#!/usr/bin/env bun
/**
 * @module main
 * The one entry point of ckg (source and executable): find the command, parse its arguments,
 * run it, and turn failures into a message and an exit code (exit-codes.ts: 1 an error, 2 usage or
 * configuration, 3 no snapshot yet, 4 a data directory written by a newer ckg).
 */
import { COMMANDS } from "./cli/index.ts";
import { ConfigError, UsageError, commandHelp, parseCommandArgs } from "./cli/command.ts";
import { EXIT } from "./exit-codes.ts";
import { useNativeDir } from "./runtime.ts";
import { useDuckResources } from "./store/duck-resources.ts";
import { NoSnapshotError, dataDir, refuseNewerDataDir } from "./store/data-dir.ts";
import { NewerFormatError } from "./store/formats.ts";
import { VERSION_LINE } from "./version.ts";

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
    return EXIT.ok;
  }
  if (name === "--version" || name === "-v" || name === "version") {
    console.log(VERSION_LINE);
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === name);
  if (!command) {
    console.error(`ckg: unknown command '${name}'.\n\n${globalHelp()}`);
    return EXIT.usage;
  }
  try {
    // The executable's native libraries go to <data_dir>/runtime: set before anything (the command's rules) loads DuckDB.
    const parsed = await parseCommandArgs(command, rest, process.env, (config) => {
      if (command.settings.includes("data_dir")) useNativeDir(config.data_dir);
      useDuckResources(config);
    });
    if (parsed === "help") {
      console.log(commandHelp(command));
      return EXIT.ok;
    }
    if (command.settings.includes("data_dir")) {
      // Before anything opens the directory: one written by a newer ckg is refused here, whichever command meets it.
      refuseNewerDataDir(dataDir(parsed.config.data_dir));
    }
    return (await command.run(parsed)) ?? EXIT.ok;
  } catch (error) {
    console.error(`ckg ${command.name}: ${(error as Error).message ?? error}`);
    return exitCodeOf(error);
  }
}

/** A failure's exit code: the errors that say what to do differently have their own. */
function exitCodeOf(error: unknown): number {
  if (error instanceof ConfigError || error instanceof UsageError) return EXIT.usage;
  if (error instanceof NoSnapshotError) return EXIT.noSnapshot;
  if (error instanceof NewerFormatError) return EXIT.newerFormat;
  return EXIT.failure;
}

process.exitCode = await main(process.argv.slice(2));
