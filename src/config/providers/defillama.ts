/**
 * @module config/providers/defillama
 * DefiLlama (its free hosts, and the paid API with a key): its id and settings.
 */
import { z } from "zod";
import { defineProvider } from "../provider.ts";
import { setting } from "../setting.ts";

export const defillamaProvider = defineProvider({
  id: "defillama",
  title: "DefiLlama",
  settings: {
    defillama_url: setting("string", z.url(), "https://api.llama.fi", "DefiLlama API base URL (protocols with their raises, TVL, fees, treasuries, chains)"),
    defillama_yields_url: setting("string", z.url(), "https://yields.llama.fi", "DefiLlama yields API base URL (pools, lending)"),
    defillama_stablecoins_url: setting("string", z.url(), "https://stablecoins.llama.fi", "DefiLlama stablecoins API base URL"),
    defillama_datasets_url: setting("string", z.url(), "https://defillama-datasets.llama.fi", "DefiLlama datasets host (token unlock schedules, free)"),
    defillama_pro_url: setting("string", z.url(), "https://pro-api.llama.fi", "DefiLlama paid API base URL (the whole raises list and lending markets; used only with a key)"),
    // DefiLlama's open API allows about 10 requests a second (its docs; more draws Cloudflare's
    // 403s). Requests are spaced start to start, so 120 ms is at most 8.3 a second on average and
    // 9 in any one second, retries included: a sixth below the limit for jitter on either side.
    defillama_min_interval_ms: setting(
      "integer",
      z.number().int().min(0).max(60_000),
      120,
      "least time between two DefiLlama requests (its open API allows about 10 a second)",
    ),
    defillama_api_key: setting("string", z.string().min(1).optional(), undefined, "DefiLlama paid API key (optional: adds every raise, not only the largest protocols')", { secret: true }),
  },
});
