/**
 * @module config/providers/github
 * GitHub (REST API v3): its id and settings.
 */
import { z } from "zod";
import { defineProvider } from "../provider.ts";
import { setting } from "../setting.ts";

export const githubProvider = defineProvider({
  id: "github",
  title: "GitHub",
  settings: {
    github_url: setting("string", z.url(), "https://api.github.com", "GitHub REST API base URL"),
    github_token: setting("string", z.string().min(1).optional(), undefined, "GitHub token (optional; raises the rate limit)", { secret: true }),
  },
});
