/**
 * @module cli/graph-worker
 * `ckg __graph-worker`: internal; the server starts one per graph replica (see graph/graph-pool.ts).
 */
import { COMMAND_SETTINGS } from "../config/commands.ts";
import type { Command } from "./command.ts";

export const graphWorker: Command = {
  name: "__graph-worker",
  summary: "Internal: a graph query process started by ckg serve.",
  usage: "",
  settings: COMMAND_SETTINGS["__graph-worker"],
  hidden: true,
  async run() {
    const { runGraphProcess } = await import("../graph/graph-process.ts");
    await runGraphProcess();
    // The socket keeps the process alive; it exits when the server closes it.
    await new Promise<never>(() => {});
  },
};
