/**
 * @module supervisor/cron
 * The scan, ingest and backup schedules as croner reads them: a pattern croner's own parser accepts, or
 * `off`. A rule of the configuration (checked before anything starts, with the setting's origin)
 * and again by the scheduler, for a configuration made in code.
 */
import { Cron } from "croner";
import type { Config } from "../config/config.ts";
import type { SettingRule } from "../config/setting.ts";

const SCHEDULES = ["scan_cron", "ingest_cron", "backup_cron"] as const;

export const CRON_RULE: SettingRule<Pick<Config, (typeof SCHEDULES)[number]>> = {
  settings: SCHEDULES,
  summary: `${SCHEDULES.join(", ")}: each a cron pattern croner accepts (UTC), or off`,
  check: (values, describe) => SCHEDULES.filter((name) => !validCron(values[name])).map((name) => `${describe(name)}: a cron pattern such as '0 6 * * *', or off`),
};

/** "off", or a pattern croner's own parser accepts. */
function validCron(pattern: string): boolean {
  if (pattern === "off") return true;
  try {
    new Cron(pattern, { paused: true, timezone: "UTC" }).stop();
    return true;
  } catch {
    return false;
  }
}
