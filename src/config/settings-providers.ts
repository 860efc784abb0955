/**
 * @module config/settings-providers
 * The ingest settings of the table in settings.ts: which providers `ckg ingest` reads and how much,
 * then each provider's own (hosts, keys, pace), as its definition (config/providers/) gives them.
 */
import { z } from "zod";
import { PROVIDER_SETTINGS, PROVIDER_IDS, parseProviderList } from "./providers/index.ts";
import { type Setting, setting } from "./setting.ts";

const providerList = z.string().refine(
  (text) => {
    const { ids, unknown } = parseProviderList(text);
    return ids.length > 0 && unknown.length === 0;
  },
  { message: `a comma-separated list of ${PROVIDER_IDS.join(", ")}` },
);

export const INGEST_SETTINGS = {
  ingest_providers: setting("string", providerList, PROVIDER_IDS.join(","), "providers `ckg ingest` reads by default (comma-separated)"),
  ingest_detail_limit: setting(
    "integer",
    z.number().int().min(1).max(100_000),
    200,
    "most detail requests per provider list (protocol histories, treasuries, unlock schedules, coin charts, pool charts, governance spaces, GitHub orgs), largest first",
  ),
  ...PROVIDER_SETTINGS,
} as const satisfies Record<string, Setting>;
