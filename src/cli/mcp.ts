/**
 * @module cli/mcp
 * `ckg mcp`: the same tools over stdio for a local agent (payments off: the agent runs on your
 * machine). stdout carries the protocol only; logs go to stderr. The SDK's stdio entry picks the
 * era from the client's first message (`initialize`: 2025-era; `server/discover` or an enveloped
 * request: 2026-07-28) and keeps one server for the connection. No subscriptions/listen here: no
 * scans run in this process, so there would be nothing to hear but another process's scans.
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import type { Command } from "./command.ts";

export const mcp: Command = {
  name: "mcp",
  summary: "Serve the MCP tools over stdio for a local agent (no payments). Builds the default dataset first if the data directory is empty.",
  usage: "[options]",
  settings: COMMAND_SETTINGS.mcp,
  async run({ config }) {
    const [{ Supervisor }, { createStdioMcp }, { serveStdio }, { createLogger }] = await Promise.all([
      import("../supervisor/supervisor.ts"),
      import("../supervisor/assemble.ts"),
      import("@modelcontextprotocol/server/stdio"),
      import("../log.ts"),
    ]);
    const log = createLogger(config.log_level, 2);
    // Local use: no pay-to, so the gate is off (and prices moot) whatever the environment says; no scans are scheduled here.
    const local = { ...config, pay_to: undefined, pay_to_solana: undefined, prices: undefined, scan_cron: "off" };
    const services = await Supervisor.open(local, log, { childLogsTo: 2 });
    await services.start();
    const endpoint = createStdioMcp(services);
    const connection = serveStdio(({ era }) => endpoint.server(era, false), { onerror: (error) => log.debug({ err: error.message }, "mcp: stdio message refused or failed") });
    log.info({ data_dir: services.dir.root }, "MCP server on stdio");
    // The client closing stdin ends the connection (the SDK's stdio transport closes itself then).
    await new Promise<void>((resolve) => {
      process.stdin.on("end", () => resolve());
      process.stdin.on("close", () => resolve());
    });
    await connection.close();
    await services.close();
  },
};
