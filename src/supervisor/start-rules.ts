/**
 * @module supervisor/start-rules
 * The rules between settings a server's start checks with the rest of its configuration, so a bad
 * price override or schedule stops `ckg serve` before it listens: prices name only paid operations
 * of the table (payments/prices.ts), and each schedule is a cron pattern (cron.ts).
 */
import type { ConfigRule } from "../config/config.ts";
import { OPERATIONS } from "../operations/table/index.ts";
import { pricesRule } from "../payments/prices.ts";
import { CRON_RULE } from "./cron.ts";

export function startRules(): readonly ConfigRule[] {
  return [pricesRule(OPERATIONS), CRON_RULE];
}
