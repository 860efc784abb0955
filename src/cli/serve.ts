/**
 * @module cli/serve
 * `ckg serve`: listen at once (health and readiness answer while the dataset builds and loads),
 * then bring the services to ready. SIGTERM and SIGINT stop accepting, let in-flight requests
 * finish, stop the graph processes and exit 0.
 */
import { SETTINGS, type SettingName } from "../config/settings.ts";
import { EXIT } from "../exit-codes.ts";
import { createLogger } from "../log.ts";
import type { Command } from "./command.ts";

export const serve: Command = {
  name: "serve",
  summary: "Serve the HTTP API from the data directory. On first start with an empty data directory, build the default dataset into it.",
  usage: "[options]",
  settings: Object.keys(SETTINGS) as SettingName[],
  // Checked with the rest of the configuration, so a bad price override or schedule stops the start before it listens.
  async rules() {
    const { startRules } = await import("../supervisor/start-rules.ts");
    return startRules();
  },
  async run({ config }) {
    const [{ Supervisor }, { createServer }, { paymentMode }] = await Promise.all([import("../supervisor/supervisor.ts"), import("../supervisor/assemble.ts"), import("../config/settings-payments.ts")]);
    const log = createLogger(config.log_level);
    const services = await Supervisor.open(config, log);
    let baseUrl = config.base_url;
    const app = createServer(services, { baseUrl: () => baseUrl ?? `http://${config.host}:${config.port}` });
    // development: false: Bun's development mode (error pages, reload hooks) is not for a server.
    app.listen({ hostname: config.host, port: config.port, idleTimeout: 60, development: false });
    const port = app.server?.port ?? config.port;
    baseUrl ??= `http://${config.host.includes(":") ? `[${config.host}]` : config.host}:${port}`;
    const payments = paymentMode(config);
    log.info({ host: config.host, port, base_url: baseUrl, data_dir: services.dir.root, payments, network: config.network }, "listening");
    if (payments === "off") log.warn("payments are OFF: no pay-to address is configured (CKG_PAY_TO), so every route is free");

    let stopping = false;
    const stop = async (signal: string) => {
      if (stopping) return;
      stopping = true;
      log.info({ signal }, "shutting down: draining in-flight requests");
      let code: number = EXIT.ok;
      try {
        await app.endStreams();
        await app.stop();
        await services.close();
        log.info("stopped");
      } catch (error) {
        // Said in the log, with a failing exit code, rather than as an unhandled rejection's trace.
        log.error({ err: error }, "stopping failed");
        code = EXIT.failure;
      }
      // Log lines are batched: write them out before leaving.
      await new Promise<void>((resolve) => log.flush(() => resolve()));
      process.exit(code);
    };
    process.on("SIGTERM", () => void stop("SIGTERM"));
    process.on("SIGINT", () => void stop("SIGINT"));

    // Start-up failures are logged and reported by /readyz; the server stays up to say so.
    services.start().catch(() => undefined);
    await new Promise<never>(() => {});
  },
};
