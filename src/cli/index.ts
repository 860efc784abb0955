/**
 * @module cli
 * The explicit list of commands. Each command imports its heavy modules lazily, so `ckg --help`
 * and the graph processes start fast.
 */
import { backtest } from "./backtest.ts";
import { backup, restore } from "./backup.ts";
import { build } from "./build.ts";
import type { Command } from "./command.ts";
import { exportCommand } from "./export.ts";
import { graphWorker } from "./graph-worker.ts";
import { importCommand, ingest } from "./ingest.ts";
import { keys } from "./keys.ts";
import { mcp } from "./mcp.ts";
import { scan } from "./scan.ts";
import { serve } from "./serve.ts";
import { snapshotCommand } from "./snapshot.ts";
import { sparql } from "./sparql.ts";
import { stats } from "./stats.ts";

export const COMMANDS: readonly Command[] = [serve, build, ingest, importCommand, exportCommand, scan, backtest, backup, restore, snapshotCommand, keys, mcp, sparql, stats, graphWorker];
