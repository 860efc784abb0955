/**
 * @module cli/mcp
 * `ckg mcp`: the same tools over stdio for a local agent (payments off: the agent runs on your
 * machine). stdout carries the protocol only; logs go to stderr.
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import type { Command } from "./command.ts";

export const mcp: Command = {
  name: "mcp",
  summary: "Serve the MCP tools over stdio for a local agent (no payments). Builds the default dataset first if the data directory is empty.",
  usage: "[options]",
  settings: COMMAND_SETTINGS.mcp,
  async run({ config }) {
    const [{ Services }, { createPayments }, { McpEndpoint }, { StdioServerTransport }, { OPERATIONS }, { createLogger }] = await Promise.all([
      import("../server/services.ts"),
      import("../server/app.ts"),
      import("../mcp/server.ts"),
      import("@modelcontextprotocol/sdk/server/stdio.js"),
      import("../operations/table/index.ts"),
      import("../log.ts"),
    ]);
    const log = createLogger(config.log_level, 2);
    // Local use: no pay-to, so the gate is off (and prices moot) whatever the environment says; no scans are scheduled here.
    const local = { ...config, pay_to: undefined, pay_to_solana: undefined, prices: undefined, scan_cron: "off" };
    const services = await Services.open(local, log, { childLogsTo: 2 });
    await services.start();
    const { prices, payments } = createPayments(services, OPERATIONS);
    const server = new McpEndpoint({ services, operations: OPERATIONS, payments, prices, endpoint: () => "stdio://ckg/mcp" }).server();
    await server.connect(new StdioServerTransport());
    log.info({ data_dir: services.dir.root }, "MCP server on stdio");
    await new Promise<void>((resolve) => {
      server.onclose = () => resolve();
      process.stdin.on("close", () => resolve());
    });
    await services.close();
  },
};
